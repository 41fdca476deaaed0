// Package mockhub is the mock hub: it drives one player under test through a conversation,
// checks every byte the player sends against the expected one, and injects the hub-side
// faults (a malformed message, EOF, a signal, bad arguments) where the conversation says.
//
// A conversation is a small text file, the same for every pipe game, one step a line
// ('#' starts a comment; strings are Go-quoted):
//
//	args 2 0                        # the player's arguments (default: none)
//	hello "^"                       # the player must first write exactly these bytes
//	send "7;::-Mo1V11V22Mo1Mo1::-"  # write the line and a '\n' to the player
//	send-raw "DONE"                 # write the bytes as they are (no '\n' added)
//	expect "DO1"                    # the player's next line must be exactly this
//	expect-unordered "a" "b"        # the next lines must be these, in any order
//	close                           # close the player's stdin: it sees EOF
//	signal HUP                      # send the player a signal
//	sleep 100ms                     # wait
//	eof                             # the player must close its stdout, sending nothing more
//	exit 0                          # the player must exit with this status
//	exit signal SEGV                # ... or die by this signal
//	end                             # the checked part is over (see below)
//
// `end`, the last step when it is used, says that what follows only ends the conversation
// (the player was sent EARLY or shutdown, or its input was closed, only so that the run can
// finish): the player may then write anything and exit in any way; the mock hub waits up to
// the step timeout for it to exit by itself, then kills it, and the case passes. A case marks
// one requirement; the ending is marked only by the cases about the ending, which end with
// `eof` and `exit` instead.
//
// Live judging, for players that choose their own moves: a `judge` line sets up the game
// (harness/judges/live: the game's judge as the hub, reference players in the other seats), and
// each `live` step plays it, checking every line the player sends against the rules
// instead of against one expected line:
//
//	judge dealer2310 path=p1.path deck=d1.deck players=2 seat=0 others=2310B
//	args 2 0
//	hello "^"
//	live 3                          # play until the player has sent 3 lines
//	send "HAP9,9,9,9,9"             # then a scripted fault, as usual
//	exit 6
//
// `live` with no number plays to the end of the game. The first `live` step sends every
// seat its welcome and starts the game; a line that breaks a rule fails the step, naming
// the rule and what the rules allowed.
//
// A conversation made of a probe's line, such as the referee protocol's `referee
// check=PART ...` (package refereejudges), runs that probe against the program instead of
// steps: the kinds of conversation a game's registration adds (RegisterProbe). A line
// whose first word is neither a step's nor a registered probe's is an error.
//
// Conversations generated from a game's engine (the reference strategy's reply at every
// point) and hand-written ones for faults use the same steps.
package mockhub

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"gauntlet/harness/judges/faults"
)

// Kind is what a step does.
type Kind int

// The steps of a conversation.
const (
	Hello Kind = iota
	Send
	SendRaw
	Expect
	Close
	Signal
	Sleep
	EOF
	Exit
	Live
	End
	ExpectAny
	ExpectUnordered
)

var kindNames = []string{"hello", "send", "send-raw", "expect", "close", "signal", "sleep", "eof", "exit", "live", "end", "expect-any", "expect-unordered"}

func (k Kind) String() string { return kindNames[k] }

// Step is one line of a conversation.
type Step struct {
	Kind   Kind
	Text   string        // bytes for Hello, Send, SendRaw, Expect (Send and Expect without '\n'); for ExpectUnordered, the lines joined by '\n'
	Status int           // for Exit, when Signal is 0
	Signal int           // for Signal; for Exit, the expected death signal (0: a normal exit)
	Delay  time.Duration // for Sleep
	Lines  int           // for Live: the player's lines to judge (0: to the end of the game)
	Source int           // script line
}

// Conversation is a parsed conversation.
type Conversation struct {
	Args  []string
	Steps []Step
	// Judge is the game its live steps play: the game's name and its settings.
	Judge *JudgeSpec
	// Probe, when set, is the probe the mock hub runs against the program (RegisterProbe);
	// the conversation has no steps, judge, tcp or connect then.
	Probe *ProbeRun
	// TCP makes the player a TCP client: the mock hub listens on a free loopback port,
	// starts the player with "127.0.0.1 PORT" before Args, and talks over the player's
	// connection instead of its stdin and stdout.
	TCP bool
	// Connect makes the player a TCP server and the mock hub its client: the player starts
	// with Args (which give it port 0), writes "port N" as its first line on stdout once
	// it listens, and the mock hub connects to 127.0.0.1:N and talks over the connection.
	Connect bool
}

// JudgeSpec is a conversation's judge line.
type JudgeSpec struct {
	Game   string
	Params map[string]string
	Source int
}

// Error is a mistake in a conversation file.
type Error struct {
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("conversation line %d: %s", e.Line, e.Msg) }

// Parse reads a conversation.
func Parse(text string) (*Conversation, error) {
	c := &Conversation{}
	sawArgs := false
	for i, raw := range strings.Split(text, "\n") {
		n := i + 1
		f, err := faults.Words(raw)
		if err != nil {
			return nil, &Error{n, err.Error()}
		}
		if len(f) == 0 {
			continue
		}
		bad := func(format string, a ...any) (*Conversation, error) {
			return nil, &Error{n, fmt.Sprintf(format, a...)}
		}
		arg := func() (string, bool) {
			if len(f) != 2 {
				return "", false
			}
			return f[1], true
		}
		st := Step{Source: n}
		switch f[0] {
		case "args":
			if sawArgs {
				return bad("args given twice")
			}
			sawArgs = true
			c.Args = append([]string{}, f[1:]...)
			continue
		case "hello", "send", "send-raw", "expect":
			s, ok := arg()
			if !ok {
				return bad("%s takes one quoted string", f[0])
			}
			st.Kind, st.Text = map[string]Kind{"hello": Hello, "send": Send, "send-raw": SendRaw, "expect": Expect}[f[0]], s
			if (st.Kind == Send || st.Kind == Expect) && strings.Contains(s, "\n") {
				return bad("%s takes one line; use send-raw for several", f[0])
			}
		case "judge":
			if c.Judge != nil {
				return bad("judge given twice")
			}
			if len(f) < 2 {
				return bad("judge takes a game and its settings (KEY=VALUE)")
			}
			c.Judge = &JudgeSpec{Game: f[1], Params: map[string]string{}, Source: n}
			for _, kv := range f[2:] {
				k, v, ok := strings.Cut(kv, "=")
				if !ok || k == "" {
					return bad("judge setting %q is not KEY=VALUE", kv)
				}
				c.Judge.Params[k] = v
			}
			continue
		case "live":
			st.Kind = Live
			switch len(f) {
			case 1:
			case 2:
				v, err := strconv.Atoi(f[1])
				if err != nil || v <= 0 {
					return bad("live takes a number of lines (at least 1), or nothing for the whole game")
				}
				st.Lines = v
			default:
				return bad("live takes at most one number")
			}
			if c.Judge == nil {
				return bad("live needs a judge line before it")
			}
		case "end":
			if len(f) != 1 {
				return bad("end takes no argument")
			}
			st.Kind = End
		case "tcp":
			if len(f) != 1 || c.TCP || c.Connect {
				return bad("tcp takes no argument and is given once, without connect")
			}
			c.TCP = true
			continue
		case "connect":
			if len(f) != 1 || c.TCP || c.Connect {
				return bad("connect takes no argument and is given once, without tcp")
			}
			c.Connect = true
			continue
		case "expect-unordered":
			if len(f) < 3 {
				return bad("expect-unordered takes two or more quoted lines")
			}
			for _, l := range f[1:] {
				if strings.Contains(l, "\n") {
					return bad("expect-unordered takes lines without newlines")
				}
			}
			st.Kind, st.Text = ExpectUnordered, strings.Join(f[1:], "\n")
		case "expect-any":
			if len(f) != 1 {
				return bad("expect-any takes no argument")
			}
			st.Kind = ExpectAny
		case "close", "eof":
			if len(f) != 1 {
				return bad("%s takes no argument", f[0])
			}
			st.Kind = Close
			if f[0] == "eof" {
				st.Kind = EOF
			}
		case "signal":
			s, ok := arg()
			if !ok {
				return bad("signal takes a signal name")
			}
			sig, err := faults.ParseSignal(s)
			if err != nil {
				return bad("%v", err)
			}
			st.Kind, st.Signal = Signal, int(sig)
		case "sleep":
			s, ok := arg()
			d, err := time.ParseDuration(s)
			if !ok || err != nil || d < 0 {
				return bad("sleep takes a duration such as 100ms")
			}
			st.Kind, st.Delay = Sleep, d
		case "exit":
			st.Kind = Exit
			switch {
			case len(f) == 2:
				v, err := strconv.Atoi(f[1])
				if err != nil || v < 0 || v > 255 {
					return bad("exit status %q is not 0..255", f[1])
				}
				st.Status = v
			case len(f) == 3 && f[1] == "signal":
				sig, err := faults.ParseSignal(f[2])
				if err != nil {
					return bad("%v", err)
				}
				st.Signal = int(sig)
			default:
				return bad("exit takes a status, or 'signal NAME'")
			}
		default:
			probe, ok := probes[f[0]]
			if !ok {
				return bad("unknown step %q", f[0])
			}
			switch {
			case c.Probe != nil && c.Probe.Word == f[0]:
				return bad("%s given twice", f[0])
			case c.Probe != nil:
				return bad("%s after %s: a conversation runs one probe", f[0], c.Probe.Word)
			}
			spec, err := probe(f[1:])
			if err != nil {
				return bad("%v", err)
			}
			c.Probe = &ProbeRun{Word: f[0], Spec: spec, Source: n}
			continue
		}
		if k := len(c.Steps); k > 0 && c.Steps[k-1].Kind == End {
			return bad("nothing may follow end")
		}
		c.Steps = append(c.Steps, st)
	}
	if p := c.Probe; p != nil && (len(c.Steps) > 0 || c.Judge != nil || c.TCP || c.Connect) {
		return nil, &Error{p.Source, "a " + p.Word + " probe takes no steps, judge, tcp or connect"}
	}
	return c, nil
}

// Format writes the conversation in its canonical form.
func (c *Conversation) Format() string {
	var b strings.Builder
	if j := c.Judge; j != nil {
		b.WriteString("judge " + j.Game)
		keys := make([]string, 0, len(j.Params))
		for k := range j.Params {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			b.WriteString(" " + k + "=" + j.Params[k])
		}
		b.WriteByte('\n')
	}
	if p := c.Probe; p != nil {
		b.WriteString(strings.TrimSuffix(p.Word+" "+p.Spec.String(), " ") + "\n")
	}
	if c.TCP {
		b.WriteString("tcp\n")
	}
	if c.Connect {
		b.WriteString("connect\n")
	}
	if len(c.Args) > 0 {
		b.WriteString("args")
		for _, a := range c.Args {
			if a == "" || strings.ContainsAny(a, " \t#\"\\") {
				a = strconv.Quote(a)
			}
			b.WriteString(" " + a)
		}
		b.WriteByte('\n')
	}
	for _, st := range c.Steps {
		b.WriteString(st.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// Unordered are an ExpectUnordered step's lines.
func (st Step) Unordered() []string { return strings.Split(st.Text, "\n") }

// String is the step as a conversation line.
func (st Step) String() string {
	switch st.Kind {
	case Hello, Send, SendRaw, Expect:
		return st.Kind.String() + " " + strconv.Quote(st.Text)
	case ExpectUnordered:
		s := st.Kind.String()
		for _, t := range st.Unordered() {
			s += " " + strconv.Quote(t)
		}
		return s
	case Signal:
		return "signal " + faults.SignalWord(syscall.Signal(st.Signal))
	case Sleep:
		return "sleep " + st.Delay.String()
	case Exit:
		if st.Signal != 0 {
			return "exit signal " + faults.SignalWord(syscall.Signal(st.Signal))
		}
		return fmt.Sprintf("exit %d", st.Status)
	case Live:
		if st.Lines > 0 {
			return fmt.Sprintf("live %d", st.Lines)
		}
	}
	return st.Kind.String()
}
