package blackbox

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"gauntlet/fuzz/record"
	"gauntlet/harness/runtime/limitkill"
)

// The verdict kinds of a difference, in order of precedence (named as the grader names its
// verdicts: docs/architecture.md, "Verdicts and the fault catalogue").
const (
	KindTimeout     = "TIMEOUT"      // the subject hung where the reference ended
	KindCrash       = "CRASH"        // the subject died of a signal the reference did not
	KindWrongExit   = "WRONG-EXIT"   // both ended, with different statuses
	KindWrongStdout = "WRONG-STDOUT" // same ending, different stdout bytes
	KindWrongStderr = "WRONG-STDERR" // same ending and stdout, different stderr bytes
	// KindLate: the subject's reply did not come where the reference's did (nothing of it
	// within the step timeout), though it may have come later, when its input ended: a
	// player that does not flush its stdout after a reply. The hub of a real game waits for
	// that reply, and the game deadlocks; the recording runner goes on writing, so the
	// outputs alone may be the same.
	KindLate = "LATE-REPLY"
	// KindLimit: a resource limit ended the subject (its CPU time, its file size), where
	// the reference ended otherwise: no rule of the game, and a grade's LIMIT.
	KindLimit = "LIMIT"
)

// Signature identifies a failure: its verdict kind, how the subject and the reference
// ended, and the first line where their outputs differ. Failures with equal keys are taken
// to be the same bug: the fuzzer keeps one of them, and the minimiser only accepts a
// smaller input that fails with the same key. The key leaves out the line's number, which
// changes with every message dropped before it.
type Signature struct {
	Kind    string
	Subject string // how the subject ended, e.g. "killed by SIGSEGV"
	Ref     string // how the reference ended
	Where   string // the first differing line, e.g. `stderr: want "Bad message", got EOF`
	Line    int    // its number in that stream (not part of the key)
	// CPU is the subject's CPU time in the run (not part of the key): a TIMEOUT with as
	// much CPU as the step timeout is a busy loop whatever the machine's load.
	CPU time.Duration
}

// Key is what identifies the failure, so that one bug is one finding: the verdict kind,
// both endings, and where in the protocol the outputs part, told by the stream and the
// first word of the line the reference wrote there (its message's kind: "Communications",
// "DO", "Player", or EOF), not by the rest of its text, which differs from run to run for the
// same bug; the line number is left out too.
func (s Signature) Key() string {
	if s.Kind == KindLate {
		// One bug however the case ends and whichever reply was late: the flush.
		return s.Kind
	}
	return s.Kind + "\x00" + s.Subject + "\x00" + s.Ref + "\x00" + whereKey(s.Where)
}

// whereKey reduces a Where ("stderr: want \"Player 1 ...\", got ...") to its stream and
// the first word of the wanted line ("stderr: Player").
func whereKey(where string) string {
	stream, rest, ok := strings.Cut(where, ": want ")
	if !ok {
		return where
	}
	want, err := strconv.QuotedPrefix(rest)
	if err != nil {
		first, _, _ := strings.Cut(rest, ",")
		return stream + ": " + first
	}
	text, _ := strconv.Unquote(want)
	first, _, _ := strings.Cut(strings.TrimSpace(text), " ")
	return stream + ": " + first
}

// String is the signature on one line.
func (s Signature) String() string {
	where := s.Where
	if s.Line > 0 {
		stream, rest, _ := strings.Cut(where, ": ")
		where = fmt.Sprintf("%s line %d: %s", stream, s.Line, rest)
	}
	return fmt.Sprintf("%s: subject %s, reference %s; %s", s.Kind, s.Subject, s.Ref, where)
}

// Compare returns the signature of the difference between the reference's run and the
// subject's, and false when they behaved the same (same ending, same stdout and stderr
// bytes).
func Compare(ref, sub *record.Result) (Signature, bool) {
	s := Signature{Subject: sub.Exit.String(), Ref: ref.Exit.String(), CPU: sub.CPU}
	s.Where, s.Line = firstDiff(ref, sub)
	switch {
	case sub.Exit.Hung && !ref.Exit.Hung:
		s.Kind = KindTimeout
	case sub.Limit != limitkill.None && sub.Limit != ref.Limit:
		s.Kind = KindLimit
		s.Subject += " (" + sub.Limit.Words() + ")"
	case sub.Exit.Signal != 0 && sub.Exit.Signal != ref.Exit.Signal:
		s.Kind = KindCrash
	case lateReply(ref, sub) != "":
		s.Kind, s.Where, s.Line = KindLate, lateReply(ref, sub), 0
	case sub.Exit != ref.Exit:
		s.Kind = KindWrongExit
	case sub.Exit.Signal != 0:
		// Both died of the same signal (the one the case sent): what each had written by
		// then depends on when the signal landed, not on the spec.
		return Signature{}, false
	case !bytes.Equal(ref.Stdout, sub.Stdout):
		s.Kind = KindWrongStdout
	case !bytes.Equal(ref.Stderr, sub.Stderr):
		s.Kind = KindWrongStderr
	default:
		return Signature{}, false
	}
	return s, true
}

// lateReply describes the first wait where the reference's reply came and nothing at all
// of the subject's came within the step timeout, or returns "" when there is none.
func lateReply(ref, sub *record.Result) string {
	for i, r := range ref.Awaited {
		if i >= len(sub.Awaited) {
			break
		}
		if x := sub.Awaited[i]; r.End == record.Got && x.End == record.Timeout && len(x.Data) == 0 {
			line, ok := cutLine(&r.Data)
			return fmt.Sprintf("stdout: want %s at wait %d, got nothing before the step timeout", show(line, ok), i+1)
		}
	}
	return ""
}

// TimedOut reports whether a run of the subject ended on a timeout: a wait for its output
// took the whole step timeout, or it did not end.
func TimedOut(sub *record.Result) bool {
	if sub.Exit.Hung {
		return true
	}
	for _, a := range sub.Awaited {
		if a.End == record.Timeout {
			return true
		}
	}
	return false
}

// firstDiff names the first line where the outputs differ, stdout before stderr, and its
// number.
func firstDiff(ref, sub *record.Result) (string, int) {
	if w, n, ok := lineDiff(ref.Stdout, sub.Stdout); ok {
		return "stdout: " + w, n
	}
	if w, n, ok := lineDiff(ref.Stderr, sub.Stderr); ok {
		return "stderr: " + w, n
	}
	return sameOutput, 0
}

// sameOutput is the Where of a difference in the endings alone.
const sameOutput = "same output"

// SameOutput reports whether the subject wrote what the reference wrote, on both streams:
// the difference is in how they ended alone.
func (s Signature) SameOutput() bool { return s.Where == sameOutput }

// maxShown is how much of a differing line a signature shows.
const maxShown = 60

// lineDiff finds the first differing line of two outputs: "want W, got G" and the line's
// number, where a line that is missing shows as EOF and an unterminated last line is
// marked.
func lineDiff(want, got []byte) (string, int, bool) {
	if bytes.Equal(want, got) {
		return "", 0, false
	}
	for n := 1; ; n++ {
		w, wok := cutLine(&want)
		g, gok := cutLine(&got)
		if w != g || wok != gok {
			return fmt.Sprintf("want %s, got %s", show(w, wok), show(g, gok)), n, true
		}
	}
}

// cutLine takes the first line off b; ok is false once b is empty.
func cutLine(b *[]byte) (string, bool) {
	if len(*b) == 0 {
		return "", false
	}
	i := bytes.IndexByte(*b, '\n')
	if i < 0 {
		line := string(*b) + "(no newline)"
		*b = nil
		return line, true
	}
	line := string((*b)[:i])
	*b = (*b)[i+1:]
	return line, true
}

func show(line string, ok bool) string {
	if !ok {
		return "EOF"
	}
	if len(line) > maxShown {
		return strconv.Quote(line[:maxShown]) + fmt.Sprintf("...(%d bytes)", len(line))
	}
	return strconv.Quote(line)
}
