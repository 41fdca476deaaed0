package blackbox

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gauntlet/fuzz/pipegame"
	"gauntlet/fuzz/record"
	"gauntlet/harness/box/execfile"
	"gauntlet/harness/box/sandbox"
	"gauntlet/harness/judges/faults"
	"gauntlet/harness/runtime/child"
)

// HubFaults are the faults the fuzzer gives the mock players of a hub under test, by the
// name the --mutate flag takes (see docs/mocks.md for the rules they become).
var HubFaults = []string{
	"hello",   // no handshake, EOF instead, a wrong byte, an extra byte, a slow handshake
	"quit",    // exit (status 0, 1 or 3) or close stdout after the K-th message
	"garbage", // a reply that is no message: a word, an empty line, a space
	"long",    // a very long reply, up to and past the 1 MiB line limit
	"binary",  // a reply of random bytes
	"crlf",    // a well-formed reply ended by "\r\n"
	"partial", // a reply without '\n', then EOF
	"illegal", // a malformed or illegal reply of the game's own language
	"slow",    // a reply or handshake that comes late (300 ms)
	"signal",  // death by a signal after the K-th message
	"hang",    // the player never exits at the end (the hub must kill it after 2 s)
	"args",    // a bad input file or argument for the hub itself
}

// HubCase is one input for a hub under test: the game (files and arguments) and the fault
// rules of each seat's mock player (docs/mocks.md); a seat without rules plays its
// reference strategy honestly.
type HubCase struct {
	Setup  HubSetup
	Faults [][]string // per seat, mockplayer fault rules
	Kind   string     // the first fault's kind (for the regression's category)
	Notes  []string
}

// waits reports whether a mock player's rule sleeps or hangs. The rules are the fuzzer's
// own, so they parse; one that did not would fail the case where it is played, not here.
func (c *HubCase) waits() bool {
	for _, rules := range c.Faults {
		script, _ := faults.Parse(strings.Join(rules, "\n"))
		for _, r := range script {
			if r.Op == faults.Sleep || r.Op == faults.Hang {
				return true
			}
		}
	}
	return false
}

func (c *HubCase) clone() *HubCase {
	d := &HubCase{Setup: c.Setup.Clone(), Kind: c.Kind, Notes: append([]string(nil), c.Notes...)}
	for _, f := range c.Faults {
		d.Faults = append(d.Faults, append([]string(nil), f...))
	}
	return d
}

// Describe says what the case is, for people.
func (c *HubCase) Describe() string {
	return fmt.Sprintf("hub %s, players %s; %s", strings.Join(c.Setup.Args, " "), strings.Join(c.Setup.Players, " "), strings.Join(c.Notes, "; "))
}

// seatName is the program name of seat i's mock player (p1, p2, ...).
func seatName(i int) string { return "p" + strconv.Itoa(i+1) }

// args are the hub's arguments: the setup's, then the seats' programs.
//
// Each seat's program is given as a path in the folder bin (a regression file's $MOCKBIN),
// never as a bare name: the specs do not ask a hub to search PATH, and a hub that starts
// its players with execl must not be found wrong for that (docs/stlucia.md, docs/dealer2310.md).
func (c *HubCase) args(bin string) []string {
	args := append([]string(nil), c.Setup.Args...)
	for i := range c.Setup.Players {
		args = append(args, bin+"/"+seatName(i))
	}
	return args
}

// shellQuote quotes s for sh (and for testscript, which reads '...' the same way except
// that a quote inside is written ”; fault rules never contain one, see quoteRule).
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// mockFlags are seat i's mockplayer flags.
func (c *HubCase) mockFlags(i int) []string {
	flags := []string{"-as", c.Setup.Players[i]}
	for _, f := range c.Faults[i] {
		flags = append(flags, "-fault", f)
	}
	return flags
}

// prepare writes the case's files and its mock players' wrappers into dir, as mkplayer
// does: dir/.bin/pN runs mockplayer (the program at that path, when it is given; else
// found through PATH) with the seat's flags.
func (c *HubCase) prepare(dir, mockplayer string) (bin string, err error) {
	for name, data := range c.Setup.Files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			return "", err
		}
	}
	bin = filepath.Join(dir, ".bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return "", err
	}
	for i := range c.Setup.Players {
		var b strings.Builder
		b.WriteString("#!/bin/sh\nexec ")
		if mockplayer != "" {
			b.WriteString(shellQuote(mockplayer))
		} else {
			b.WriteString("mockplayer")
		}
		for _, f := range c.mockFlags(i) {
			b.WriteString(" " + shellQuote(f))
		}
		b.WriteString(" -- \"$@\"\n")
		if err := execfile.Write(filepath.Join(bin, seatName(i)), []byte(b.String()), 0o755); err != nil {
			return "", err
		}
	}
	return bin, nil
}

// hubFault returns a fault rule of the named kind for a seat of game g.
func hubFault(g Game, r *rand.Rand, kind string) []string {
	reply := 1 + r.IntN(8)  // the K of "reply K"
	after := 1 + r.IntN(16) // the K of "after K"
	rep := func(action string) string { return fmt.Sprintf("reply %d %s", reply, action) }
	switch kind {
	case "hello":
		return []string{pipegame.Pick(r, "hello exit 0", "hello close", `hello send "x"`, `hello send "`+g.Hello()+g.Hello()+`"`,
			`hello send "`+g.Hello()+`\n"`, "hello sleep 200ms")}
	case "quit":
		return []string{fmt.Sprintf("after %d %s", after, pipegame.Pick(r, "exit 0", "exit 1", "exit 3", "close"))}
	case "garbage":
		return []string{rep(pipegame.Pick(r, `line "garbage"`, `line ""`, `line " "`, `line "!"`))}
	case "long":
		return []string{rep(fmt.Sprintf("long %d", pipegame.Pick(r, 1000, 65536, 1<<20, 1<<20+1)))}
	case "binary":
		b := make([]byte, 1+r.IntN(8))
		for i := range b {
			if b[i] = byte(r.IntN(256)); b[i] == '\n' {
				b[i] = 0
			}
		}
		return []string{rep("send " + quoteRule(string(b)+"\n"))}
	case "crlf":
		return []string{rep("send " + quoteRule(g.BadReply(r)+"\r\n"))}
	case "partial":
		return []string{rep("send " + quoteRule(g.BadReply(r))), rep("exit 0")}
	case "illegal":
		return []string{rep("line " + quoteRule(g.BadReply(r)))}
	case "slow":
		return []string{rep("sleep 300ms")}
	case "signal":
		return []string{fmt.Sprintf("after %d signal %s", after, pipegame.Pick(r, "SEGV", "KILL", "TERM", "ABRT"))}
	case "hang":
		return []string{"end hang"}
	}
	panic("blackbox: unknown hub fault " + strconv.Quote(kind))
}

// quoteRule quotes s for a fault rule: Go syntax, ASCII only, and no single quote (written
// \x27), so that the rule can sit between single quotes in a shell or a script.
func quoteRule(s string) string {
	return strings.ReplaceAll(strconv.QuoteToASCII(s), "'", `\x27`)
}

// Mutate gives the case one fault of the named kind: a fault rule on a random seat, or
// (args) a bad input for the hub.
func (c *HubCase) Mutate(g Game, r *rand.Rand, kind string) bool {
	if kind == "args" {
		c.Setup = g.BadSetup(r, c.Setup)
		for len(c.Faults) < len(c.Setup.Players) {
			c.Faults = append(c.Faults, nil)
		}
		c.Faults = c.Faults[:len(c.Setup.Players)]
		c.note(kind, fmt.Sprintf("hub arguments %q", c.Setup.Args))
		return true
	}
	if len(c.Setup.Players) == 0 {
		return false
	}
	seat := r.IntN(len(c.Setup.Players))
	rules := hubFault(g, r, kind)
	c.Faults[seat] = append(c.Faults[seat], rules...)
	c.note(kind, fmt.Sprintf("%s (%s) %s", seatName(seat), c.Setup.Players[seat], strings.Join(rules, "; ")))
	return true
}

func (c *HubCase) note(kind, what string) {
	if c.Kind == "" {
		c.Kind = kind
	}
	c.Notes = append(c.Notes, kind+": "+what)
}

// NewHubCase returns an honest game: every seat plays its reference strategy.
func NewHubCase(s HubSetup) *HubCase {
	return &HubCase{Setup: s, Faults: make([][]string, len(s.Players))}
}

// run runs hub on the case in a fresh folder under tmp, with the reference programs found
// in refDir, and the mock player at mockplayer ("": found in refDir).
func (c *HubCase) run(hub, refDir, mockplayer, tmp string, opt record.Options) (*record.Result, error) {
	dir, err := os.MkdirTemp(tmp, "hub-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	// Readable by the sandbox user the hub may run as: its inputs and the players' wrappers.
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	bin, err := c.prepare(dir, mockplayer)
	if err != nil {
		return nil, err
	}
	opt.Dir = dir
	opt.Env = sandbox.ProgramEnv("PATH=" + child.SubjectPath(bin, refDir))
	return record.Run(hub, c.args(bin), nil, opt)
}
