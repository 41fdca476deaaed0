package blackbox

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"syscall"
	"time"

	"gauntlet/fuzz/pipegame"
	"gauntlet/harness/judges/faults"
	"gauntlet/harness/runtime/lineio"
)

// PlayerMutations are the ways the fuzzer changes a conversation with a player, by the name
// the --mutate flag takes. Each picks a point of the conversation (a line the hub sends).
var PlayerMutations = []string{
	"malformed",   // the line broken in a way the game's grammar forbids
	"boundary",    // one field at the edge of its range (a player beyond the count, a huge number)
	"wrong-turn",  // a well-formed message out of place: inserted, repeated or swapped
	"crlf",        // "\r\n" at the end of the line
	"binary",      // bytes 0x00-0xff (not '\n') put into the line
	"huge",        // the line made very long, up to and past the 1 MiB line limit
	"empty",       // an empty line instead
	"split",       // the line written in two pieces with a pause between them
	"truncate",    // the conversation ends (EOF) before the line
	"eof-midline", // part of the line, no '\n', then EOF
	"signal",      // a signal (HUP, INT, TERM, USR1) before the line
	"delay",       // a pause before the line
	"args",        // wrong command-line arguments
}

// hugeSizes are the lengths a huge line is given: round sizes and the edges of the line
// limit the reference programs share (lineio.MaxLine bytes without the '\n').
var hugeSizes = []int{100, 256, 1024, 4096, 65536, lineio.MaxLine - 1, lineio.MaxLine, lineio.MaxLine + 1}

// signals are those a player may be sent; their default action ends a C program.
var signals = []syscall.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGUSR1}

// messageSteps returns the indexes of the steps that write a line.
func (c *PlayerCase) messageSteps() []int {
	var idx []int
	for i, st := range c.Steps {
		if st.Op == OpSend {
			idx = append(idx, i)
		}
	}
	return idx
}

// insert puts steps before index i.
func (c *PlayerCase) insert(i int, steps ...Step) {
	c.Steps = append(c.Steps[:i], append(steps, c.Steps[i:]...)...)
}

// Mutate applies the named mutation at a random point of the case. It returns false when
// the mutation cannot apply (no line to change).
func (c *PlayerCase) Mutate(g Game, r *rand.Rand, kind string) bool {
	if kind == "args" {
		c.Args = g.BadArgs(r, c.Args)
		c.note(kind, fmt.Sprintf("arguments %q", c.Args))
		return true
	}
	idx := c.messageSteps()
	if len(idx) == 0 {
		return false
	}
	i := idx[r.IntN(len(idx))]
	st := &c.Steps[i]
	old := st.Text
	relay := func(text string) {
		st.Text = text
		st.Await = g.Solicits(text)
	}
	switch kind {
	case "malformed":
		relay(g.Malformed(r, old))
	case "boundary":
		relay(g.Boundary(r, old, c.Args))
	case "crlf":
		relay(old + "\r")
	case "binary":
		b := []byte(old)
		for k := 1 + r.IntN(3); k > 0; k-- {
			x := byte(r.IntN(256))
			if x == '\n' {
				x = 0
			}
			at := r.IntN(len(b) + 1)
			if at < len(b) && r.IntN(2) == 0 {
				b[at] = x
			} else {
				b = append(b[:at], append([]byte{x}, b[at:]...)...)
			}
		}
		relay(string(b))
	case "huge":
		n := pipegame.Pick(r, hugeSizes...)
		text := old + " "
		if n > len(text) {
			text += strings.Repeat("x", n-len(text))
		}
		relay(text[:max(n, 0)])
	case "empty":
		relay("")
	case "split":
		if len(old) < 2 {
			return false
		}
		cut := 1 + r.IntN(len(old)-1)
		first := Step{Op: OpRaw, Text: old[:cut]}
		pause := Step{Op: OpSleep, Delay: 10 * time.Millisecond}
		*st = Step{Op: OpRaw, Text: old[cut:] + "\n", Await: st.Await}
		c.insert(i, first, pause)
		c.note(kind, fmt.Sprintf("step %d %q written as %q then %q", i+1, old, old[:cut], old[cut:]))
		return true
	case "truncate":
		c.Steps = c.Steps[:i]
		c.note(kind, fmt.Sprintf("EOF instead of step %d %q", i+1, old))
		return true
	case "eof-midline":
		if len(old) == 0 {
			return false
		}
		cut := 1 + r.IntN(len(old))
		c.Steps = append(c.Steps[:i], Step{Op: OpRaw, Text: old[:cut]})
		c.note(kind, fmt.Sprintf("%q without newline, then EOF, at step %d", old[:cut], i+1))
		return true
	case "signal":
		sig := pipegame.Pick(r, signals...)
		c.insert(i, Step{Op: OpSignal, Sig: sig})
		c.note(kind, fmt.Sprintf("SIG%s before step %d %q", faults.SignalWord(sig), i+1, old))
		return true
	case "delay":
		d := time.Duration(5+r.IntN(46)) * time.Millisecond
		c.insert(i, Step{Op: OpSleep, Delay: d})
		c.note(kind, fmt.Sprintf("a pause of %v before step %d", d, i+1))
		return true
	case "wrong-turn":
		switch r.IntN(3) {
		case 0: // a message the hub would not send here
			m := g.Message(r, c.Args)
			c.insert(i, Step{Op: OpSend, Text: m, Await: g.Solicits(m)})
			c.note(kind, fmt.Sprintf("%q inserted before step %d", m, i+1))
		case 1: // a message sent twice
			c.insert(i, *st)
			c.note(kind, fmt.Sprintf("step %d %q sent twice", i+1, old))
		default: // two messages swapped
			j := idx[r.IntN(len(idx))]
			c.Steps[i], c.Steps[j] = c.Steps[j], c.Steps[i]
			c.note(kind, fmt.Sprintf("steps %d and %d swapped", i+1, j+1))
		}
		return true
	default:
		panic("blackbox: unknown player mutation " + strconv.Quote(kind))
	}
	c.note(kind, fmt.Sprintf("step %d %s became %s", i+1, clip(old), clip(st.Text)))
	return true
}

func (c *PlayerCase) note(kind, what string) {
	if c.Kind == "" {
		c.Kind = kind
	}
	c.Notes = append(c.Notes, kind+": "+what)
}

// clip quotes s, shortened for a note.
func clip(s string) string {
	if len(s) > 40 {
		return strconv.Quote(s[:40]) + fmt.Sprintf("...(%d bytes)", len(s))
	}
	return strconv.Quote(s)
}
