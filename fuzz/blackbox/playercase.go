package blackbox

import (
	"fmt"
	"slices"
	"strings"
	"syscall"
	"time"

	"gauntlet/fuzz/record"
	"gauntlet/games/judge"
	"gauntlet/harness/judges/mockhub"
)

// Op is what one step of a player case does.
type Op int

// The steps of a player case.
const (
	OpSend   Op = iota // write Text and '\n'
	OpRaw              // write Text as it is
	OpClose            // close the player's stdin (EOF)
	OpSignal           // send Sig to the player (after a short settle)
	OpSleep            // wait Delay
)

// Step is one step of what the hub does to a player.
type Step struct {
	Op    Op
	Text  string         // OpSend (without '\n'), OpRaw
	Await bool           // after an OpSend or OpRaw: wait for the player's reply line
	Sig   syscall.Signal // OpSignal
	Delay time.Duration  // OpSleep
}

// Before sending a signal the fuzzer waits until the player's output has been quiet for
// Settle, so that the player has taken in every line written before it (a 1 MiB line takes
// a while to echo), and after it gives the player up to AfterSignal to die of it (the
// recording runner goes on as soon as it has): the point the signal lands at is then the
// same in every run, for the subject and the reference alike. The regression file, played
// by the mock hub, sleeps Settle and AfterSignal instead.
const (
	Settle      = 20 * time.Millisecond
	AfterSignal = 100 * time.Millisecond
)

// PlayerCase is one input for a player under test: its arguments and what the hub says to
// it, step by step. A case is built from an engine-made conversation and mutated at one
// or more points; after the mutation there are no fixed expectations, only the
// reference's behaviour on the same input.
type PlayerCase struct {
	Ref   string   // the reference player compared with
	Args  []string // the player's arguments
	Steps []Step
	Kind  string   // the first mutation's kind (for the regression's category)
	Notes []string // the mutations made, for people
}

// NewPlayerCase turns a conversation into a case: each line the hub sends is a step,
// waiting for the reply wherever the conversation has one.
func NewPlayerCase(ref string, args []string, events []judge.Line) *PlayerCase {
	c := &PlayerCase{Ref: ref, Args: append([]string(nil), args...)}
	for i, e := range events {
		if e.FromPlayer {
			continue
		}
		await := i+1 < len(events) && events[i+1].FromPlayer
		c.Steps = append(c.Steps, Step{Op: OpSend, Text: e.Text, Await: await})
	}
	return c
}

// signals reports whether the case sends the player a signal.
func (c *PlayerCase) signals() bool { return c.has(OpSignal) }

// waits reports whether the case pauses or sends a signal (which the runner lets settle).
func (c *PlayerCase) waits() bool { return c.has(OpSignal, OpSleep) }

// has reports whether a step of the case is one of ops.
func (c *PlayerCase) has(ops ...Op) bool {
	return slices.ContainsFunc(c.Steps, func(st Step) bool { return slices.Contains(ops, st.Op) })
}

func (c *PlayerCase) clone() *PlayerCase {
	d := *c
	d.Args = append([]string(nil), c.Args...)
	d.Steps = append([]Step(nil), c.Steps...)
	d.Notes = append([]string(nil), c.Notes...)
	return &d
}

// Describe says what the case is, for people.
func (c *PlayerCase) Describe() string {
	return fmt.Sprintf("player %s %s, %d steps; %s", c.Ref, strings.Join(c.Args, " "), len(c.Steps), strings.Join(c.Notes, "; "))
}

// script is the recording runner's script: the handshake wait, then the steps.
func (c *PlayerCase) script(hello string) []record.Step {
	s := []record.Step{{Kind: record.AwaitBytes, N: len(hello)}}
	for _, st := range c.Steps {
		switch st.Op {
		case OpSend:
			s = append(s, record.Step{Kind: record.Write, Data: []byte(st.Text + "\n")})
		case OpRaw:
			s = append(s, record.Step{Kind: record.Write, Data: []byte(st.Text)})
		case OpClose:
			s = append(s, record.Step{Kind: record.Close})
		case OpSignal:
			s = append(s, record.Step{Kind: record.Quiet, Delay: Settle}, record.Step{Kind: record.Signal, Signal: st.Sig})
		case OpSleep:
			s = append(s, record.Step{Kind: record.Sleep, Delay: st.Delay})
		}
		if st.Await && (st.Op == OpSend || st.Op == OpRaw) {
			s = append(s, record.Step{Kind: record.AwaitLine})
		}
	}
	return s
}

// Conversation is the case as a mock hub conversation that expects, at every point where
// the fuzzer waited, exactly what the reference answered there, and at the end the
// reference's exit. Played by mockhub, it passes on the reference and fails on a player
// that differs from it before the end of its stdout.
func (c *PlayerCase) Conversation(hello string, ref *record.Result) (*mockhub.Conversation, error) {
	if ref.Exit.Hung {
		return nil, fmt.Errorf("the reference did not end")
	}
	conv := &mockhub.Conversation{Args: append([]string(nil), c.Args...)}
	add := func(st mockhub.Step) { conv.Steps = append(conv.Steps, st) }
	awaited := ref.Awaited
	next := func() (record.Awaited, bool) {
		if len(awaited) == 0 {
			return record.Awaited{}, false
		}
		a := awaited[0]
		awaited = awaited[1:]
		return a, true
	}
	// stopped: the reference closed its stdout; later waits expect nothing.
	stopped := false
	took := func(a record.Awaited) {
		switch {
		case stopped:
		case a.End == record.Got && strings.HasSuffix(string(a.Data), "\n"):
			add(mockhub.Step{Kind: mockhub.Expect, Text: strings.TrimSuffix(string(a.Data), "\n")})
		case len(a.Data) > 0:
			// Bytes that are not a whole line: a hello step takes exactly that many.
			add(mockhub.Step{Kind: mockhub.Hello, Text: string(a.Data)})
		}
		if a.End != record.Got {
			stopped = true
		}
	}
	if a, ok := next(); ok {
		if a.End == record.Got {
			add(mockhub.Step{Kind: mockhub.Hello, Text: string(a.Data)})
		} else {
			took(a)
		}
	}
	closed := false
	for _, st := range c.Steps {
		switch st.Op {
		case OpSend:
			if strings.Contains(st.Text, "\n") {
				add(mockhub.Step{Kind: mockhub.SendRaw, Text: st.Text + "\n"})
			} else {
				add(mockhub.Step{Kind: mockhub.Send, Text: st.Text})
			}
		case OpRaw:
			add(mockhub.Step{Kind: mockhub.SendRaw, Text: st.Text})
		case OpClose:
			add(mockhub.Step{Kind: mockhub.Close})
			closed = true
		case OpSignal:
			add(mockhub.Step{Kind: mockhub.Sleep, Delay: Settle})
			add(mockhub.Step{Kind: mockhub.Signal, Signal: int(st.Sig)})
			add(mockhub.Step{Kind: mockhub.Sleep, Delay: AfterSignal})
		case OpSleep:
			add(mockhub.Step{Kind: mockhub.Sleep, Delay: st.Delay})
		}
		if st.Await && (st.Op == OpSend || st.Op == OpRaw) {
			if a, ok := next(); ok {
				took(a)
			}
		}
	}
	if !closed {
		add(mockhub.Step{Kind: mockhub.Close})
	}
	add(mockhub.Step{Kind: mockhub.EOF})
	add(mockhub.Step{Kind: mockhub.Exit, Status: ref.Exit.Code, Signal: int(ref.Exit.Signal)})
	return conv, nil
}

// hubLines is what the case writes to the player, cut into the lines a player reads (a last
// line without its newline counts), up to the first close.
func (c *PlayerCase) hubLines() []string {
	var b strings.Builder
	for _, st := range c.Steps {
		switch st.Op {
		case OpSend:
			b.WriteString(st.Text + "\n")
		case OpRaw:
			b.WriteString(st.Text)
		case OpClose:
			return splitLines(b.String())
		}
	}
	return splitLines(b.String())
}

func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		if l != "" {
			out = append(out, strings.TrimSuffix(l, "\n"))
		}
	}
	return out
}
