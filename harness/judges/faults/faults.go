// Package faults reads the fault scripts that tell the mock player where to leave the
// protocol. The format is the same for every game, because the mock player works on the
// wire (a handshake, then lines), not on a game's rules.
//
// A script has one rule a line, "WHEN ACTION [ARGUMENT]"; '#' starts a comment:
//
//	hello    send "x"       # instead of the handshake, send the byte x
//	after 3  exit 0         # after receiving the 3rd line from the hub, exit with status 0
//	reply 2  line "DO0"     # instead of the 2nd reply, send the line DO0 (a '\n' is added)
//	reply 4  sleep 3s       # wait 3 seconds, then send the 4th reply as usual
//	end      hang           # when the game is over, do not exit
//
// WHEN is one of:
//
//	start      before the handshake
//	hello      in place of the handshake (the first byte the player writes)
//	after K    right after the K-th line from the hub arrives, before the player sees it
//	reply K    in place of the K-th line the player writes after its handshake
//	end        when the player would exit
//
// ACTION is one of:
//
//	send "Q"   write the bytes of the Go-quoted string Q, as they are (no '\n' added)
//	line "Q"   write Q and a '\n'
//	long N     write a line of N 'x' bytes and a '\n'
//	drop       write nothing
//	close      close stdout (the hub sees EOF) and keep running until stdin ends
//	exit N     exit at once with status N
//	signal S   die by signal S (HUP, INT, KILL, SEGV, TERM, PIPE, ABRT, ... or a number)
//	sleep D    wait D (a Go duration, e.g. 1500ms), then go on
//	hang       never exit: keep the pipes open and sleep until killed
//	spawn      start a grandchild (a sleeping process) that holds the pipes open
//
// At a hello or reply point the player's own message is still sent after the rules, unless a
// rule there replaces it (send, line, long, drop) or ends the player (close, exit, signal,
// hang). Several rules at one point run in script order.
package faults

import (
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Point says when a rule fires.
type Point int

// The points of a conversation where a rule can fire.
const (
	Start Point = iota
	Hello
	After
	Reply
	End
)

var pointNames = []string{"start", "hello", "after", "reply", "end"}

func (p Point) String() string { return pointNames[p] }

// Op is what a rule does.
type Op int

// The actions a rule can take.
const (
	Send Op = iota
	Line
	Long
	Drop
	Close
	Exit
	Signal
	Sleep
	Hang
	Spawn
)

var opNames = []string{"send", "line", "long", "drop", "close", "exit", "signal", "sleep", "hang", "spawn"}

func (o Op) String() string { return opNames[o] }

// Replaces reports whether the action takes the place of the player's own message.
func (o Op) Replaces() bool {
	switch o {
	case Sleep, Spawn:
		return false
	}
	return true
}

// Rule is one line of a script.
type Rule struct {
	At     Point
	K      int // the message number, for After and Reply (1-based)
	Op     Op
	Bytes  []byte         // for Send and Line (Line's bytes include the '\n')
	N      int            // for Long (length) and Exit (status)
	Signal syscall.Signal // for Signal
	Delay  time.Duration  // for Sleep
	Source int            // the script line the rule came from
}

// Script is a parsed fault script, rules in script order.
type Script []Rule

// At returns the rules that fire at point p (with message number k for After and Reply).
func (s Script) At(p Point, k int) []Rule {
	var out []Rule
	for _, r := range s {
		if r.At == p && (r.K == k || (p != After && p != Reply)) {
			out = append(out, r)
		}
	}
	return out
}

// Error is a mistake in a script, with its line number.
type Error struct {
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("fault script line %d: %s", e.Line, e.Msg) }

// ParseSignal reads a signal name (with or without "SIG", in any case) or number, by the
// system's own table (unix.SignalNum).
func ParseSignal(s string) (syscall.Signal, error) {
	if n, err := strconv.Atoi(s); err == nil && n > 0 && n < 65 {
		return syscall.Signal(n), nil
	}
	if sig := unix.SignalNum("SIG" + strings.TrimPrefix(strings.ToUpper(s), "SIG")); sig != 0 {
		return sig, nil
	}
	return 0, fmt.Errorf("unknown signal %q", s)
}

// SignalWord writes a signal as ParseSignal reads it back: its short name (SEGV) when the
// system has one (unix.SignalName), or its number.
func SignalWord(sig syscall.Signal) string {
	if n := unix.SignalName(sig); n != "" {
		return strings.TrimPrefix(n, "SIG")
	}
	return strconv.Itoa(int(sig))
}

// Parse reads a script.
func Parse(text string) (Script, error) {
	var s Script
	for i, raw := range strings.Split(text, "\n") {
		r, ok, err := parseLine(raw, i+1)
		if err != nil {
			return nil, err
		}
		if ok {
			s = append(s, r)
		}
	}
	return s, nil
}

func parseLine(raw string, n int) (Rule, bool, error) {
	fields, err := Words(raw)
	if err != nil {
		return Rule{}, false, &Error{n, err.Error()}
	}
	if len(fields) == 0 {
		return Rule{}, false, nil
	}
	bad := func(format string, a ...any) (Rule, bool, error) {
		return Rule{}, false, &Error{n, fmt.Sprintf(format, a...)}
	}
	r := Rule{Source: n}
	switch fields[0] {
	case "start":
		r.At = Start
	case "hello":
		r.At = Hello
	case "end":
		r.At = End
	case "after", "reply":
		r.At = After
		if fields[0] == "reply" {
			r.At = Reply
		}
		if len(fields) < 2 {
			return bad("%s needs a message number", fields[0])
		}
		k, err := strconv.Atoi(fields[1])
		if err != nil || k < 1 {
			return bad("message number %q is not a whole number from 1", fields[1])
		}
		r.K = k
		fields = fields[1:]
	default:
		return bad("unknown point %q (want start, hello, after K, reply K or end)", fields[0])
	}
	if len(fields) < 2 {
		return bad("missing action")
	}
	op, args := fields[1], fields[2:]
	want := func(k int) error {
		if len(args) != k {
			return &Error{n, fmt.Sprintf("%s takes %d argument(s), got %d", op, k, len(args))}
		}
		return nil
	}
	switch op {
	case "send", "line":
		if err := want(1); err != nil {
			return Rule{}, false, err
		}
		r.Op, r.Bytes = Send, []byte(args[0])
		if op == "line" {
			r.Op, r.Bytes = Line, append(r.Bytes, '\n')
		}
	case "long", "exit":
		if err := want(1); err != nil {
			return Rule{}, false, err
		}
		v, err := strconv.Atoi(args[0])
		if err != nil || v < 0 || (op == "exit" && v > 255) {
			return bad("%s: bad number %q", op, args[0])
		}
		r.Op, r.N = Long, v
		if op == "exit" {
			r.Op = Exit
		}
	case "signal":
		if err := want(1); err != nil {
			return Rule{}, false, err
		}
		sig, err := ParseSignal(args[0])
		if err != nil {
			return bad("%v", err)
		}
		r.Op, r.Signal = Signal, sig
	case "sleep":
		if err := want(1); err != nil {
			return Rule{}, false, err
		}
		d, err := time.ParseDuration(args[0])
		if err != nil || d < 0 {
			return bad("sleep: bad duration %q", args[0])
		}
		r.Op, r.Delay = Sleep, d
	case "drop", "close", "hang", "spawn":
		if err := want(0); err != nil {
			return Rule{}, false, err
		}
		r.Op = map[string]Op{"drop": Drop, "close": Close, "hang": Hang, "spawn": Spawn}[op]
	default:
		return bad("unknown action %q", op)
	}
	if r.Op == Drop && r.At != Hello && r.At != Reply {
		return bad("drop only makes sense at hello or reply")
	}
	return r, true, nil
}

// Words splits a script line into words, honouring Go-quoted strings (unquoted in the
// result) and '#' comments. The mock hub's conversations use it too.
func Words(line string) ([]string, error) {
	var out []string
	for {
		line = strings.TrimLeft(line, " \t\r")
		if line == "" || line[0] == '#' {
			return out, nil
		}
		if line[0] == '"' {
			q, err := strconv.QuotedPrefix(line)
			if err != nil {
				return nil, fmt.Errorf("bad quoted string: %s", line)
			}
			s, _ := strconv.Unquote(q)
			out = append(out, s)
			line = line[len(q):]
			continue
		}
		end := strings.IndexAny(line, " \t\r")
		if end < 0 {
			end = len(line)
		}
		out = append(out, line[:end])
		line = line[end:]
	}
}

// Format writes the script back in its canonical text form.
func (s Script) Format() string {
	var b strings.Builder
	for _, r := range s {
		b.WriteString(r.At.String())
		if r.At == After || r.At == Reply {
			fmt.Fprintf(&b, " %d", r.K)
		}
		b.WriteString(" " + r.Op.String())
		switch r.Op {
		case Send:
			b.WriteString(" " + strconv.Quote(string(r.Bytes)))
		case Line:
			b.WriteString(" " + strconv.Quote(string(r.Bytes[:len(r.Bytes)-1])))
		case Long, Exit:
			fmt.Fprintf(&b, " %d", r.N)
		case Signal:
			fmt.Fprintf(&b, " %d", int(r.Signal))
		case Sleep:
			b.WriteString(" " + r.Delay.String())
		}
		b.WriteByte('\n')
	}
	return b.String()
}
