package blackbox

import (
	"strings"
	"syscall"
	"testing"

	"gauntlet/fuzz/record"
)

func TestCompare(t *testing.T) {
	ref := &record.Result{Stdout: []byte("!reroll 1\nkeepall\n"), Stderr: []byte("From StLucia:turn 111111\nBad message from StLucia\n"), Exit: record.Exit{Code: 5},
		Awaited: []record.Awaited{{Data: []byte("!reroll 1\n")}, {Data: []byte("keepall\n")}}}
	with := func(f func(r *record.Result)) *record.Result {
		r := *ref
		f(&r)
		return &r
	}
	tests := []struct {
		name string
		sub  *record.Result
		kind string // "" when no difference
		str  string
	}{
		{"same", with(func(*record.Result) {}), "", ""},
		{"hung", with(func(r *record.Result) { r.Exit = record.Exit{Hung: true} }), KindTimeout,
			"TIMEOUT: subject hung (killed by the fuzzer), reference exit status 5; same output"},
		{"crash", with(func(r *record.Result) {
			r.Exit = record.Exit{Signal: syscall.SIGSEGV}
			r.Stderr = []byte("From StLucia:turn 111111\n")
		}), KindCrash,
			`CRASH: subject killed by SIGSEGV, reference exit status 5; stderr line 2: want "Bad message from StLucia", got EOF`},
		{"wrong exit", with(func(r *record.Result) { r.Exit = record.Exit{Code: 4} }), KindWrongExit,
			"WRONG-EXIT: subject exit status 4, reference exit status 5; same output"},
		{"wrong stdout", with(func(r *record.Result) { r.Stdout = []byte("!reroll 1\nkeepall") }), KindWrongStdout,
			`WRONG-STDOUT: subject exit status 5, reference exit status 5; stdout line 2: want "keepall", got "keepall(no newline)"`},
		{"wrong stderr", with(func(r *record.Result) { r.Stderr = []byte("From StLucia:turn 111111\nbad\n") }), KindWrongStderr,
			`WRONG-STDERR: subject exit status 5, reference exit status 5; stderr line 2: want "Bad message from StLucia", got "bad"`},
		{"extra output", with(func(r *record.Result) { r.Stdout = append([]byte(nil), "!reroll 1\nkeepall\nstay\n"...) }), KindWrongStdout,
			`WRONG-STDOUT: subject exit status 5, reference exit status 5; stdout line 3: want EOF, got "stay"`},
		// The same bytes in the end, but the second reply came only when the input ended.
		{"late reply", with(func(r *record.Result) {
			r.Awaited = []record.Awaited{{Data: []byte("!reroll 1\n")}, {End: record.Timeout}}
		}), KindLate,
			`LATE-REPLY: subject exit status 5, reference exit status 5; stdout: want "keepall" at wait 2, got nothing before the step timeout`},
		// A part of a line before the timeout is no late reply: the line lacks its newline.
		{"part of a reply", with(func(r *record.Result) {
			r.Stdout = []byte("!reroll 1\nkeepall")
			r.Awaited = []record.Awaited{{Data: []byte("!reroll 1\n")}, {Data: []byte("keepall"), End: record.Timeout}}
		}), KindWrongStdout,
			`WRONG-STDOUT: subject exit status 5, reference exit status 5; stdout line 2: want "keepall", got "keepall(no newline)"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sig, diff := Compare(ref, tc.sub)
			if diff != (tc.kind != "") || sig.Kind != tc.kind {
				t.Fatalf("Compare = %+v, %v; want kind %q", sig, diff, tc.kind)
			}
			if diff && sig.String() != tc.str {
				t.Errorf("signature\n got %s\nwant %s", sig, tc.str)
			}
		})
	}
}

// TestSignatureKey: one bug, one key. The line number and the text of the differing line
// past its first word are not part of the key; the kind, both endings, the stream and the
// wanted line's first word are.
func TestSignatureKey(t *testing.T) {
	a := Signature{Kind: KindCrash, Subject: "killed by SIGSEGV", Ref: "exit status 5", Where: `stderr: want "Player 1 rolled 123", got EOF`, Line: 3}
	for _, same := range []Signature{
		{Line: 170},
		{Where: `stderr: want "Player 0 rolled HHA", got "Player 0"`},
	} {
		b := a
		if same.Line != 0 {
			b.Line = same.Line
		}
		if same.Where != "" {
			b.Where = same.Where
		}
		if a.Key() != b.Key() {
			t.Errorf("%+v and %+v: the same bug, different keys", a, b)
		}
	}
	for _, c := range []Signature{{Kind: KindWrongExit}, {Subject: "exit status 0"}, {Ref: "exit status 4"}, {Where: `stdout: want "Player 1", got EOF`}, {Where: `stderr: want "Communications error", got EOF`}} {
		d := a
		if c.Kind != "" {
			d.Kind = c.Kind
		}
		if c.Subject != "" {
			d.Subject = c.Subject
		}
		if c.Ref != "" {
			d.Ref = c.Ref
		}
		if c.Where != "" {
			d.Where = c.Where
		}
		if d.Key() == a.Key() {
			t.Errorf("%+v and %+v have the same key", a, d)
		}
	}
}

func TestShowLongLine(t *testing.T) {
	long := make([]byte, 200)
	for i := range long {
		long[i] = 'x'
	}
	w, n, ok := lineDiff(append(long, '\n'), nil)
	if !ok || n != 1 || w != `want "`+string(long[:maxShown])+`"...(200 bytes), got EOF` {
		t.Errorf("lineDiff = %q, %d, %v", w, n, ok)
	}
}

// A late reply is one finding however the run ends and whichever reply was late; a run
// times out when a wait took the whole step timeout or the subject did not end.
func TestLateReplyKeyAndTimedOut(t *testing.T) {
	a := Signature{Kind: KindLate, Subject: "exit status 0", Ref: "exit status 0", Where: `stdout: want "DO1" at wait 2, got nothing before the step timeout`}
	b := Signature{Kind: KindLate, Subject: "exit status 6", Ref: "exit status 6", Where: `stdout: want "DO4" at wait 5, got nothing before the step timeout`}
	if a.Key() != b.Key() {
		t.Errorf("keys %q and %q differ", a.Key(), b.Key())
	}
	if r := FlushRule(RolePlayer); r.ID != "player/flush" || !strings.Contains(r.Words, "fflush(stdout)") {
		t.Errorf("rule %+v", r)
	}
	for _, tc := range []struct {
		res  record.Result
		want bool
	}{
		{record.Result{Awaited: []record.Awaited{{End: record.Got}, {End: record.EOF}}}, false},
		{record.Result{Awaited: []record.Awaited{{End: record.Got}, {End: record.Timeout}}}, true},
		{record.Result{Exit: record.Exit{Hung: true}}, true},
	} {
		if got := TimedOut(&tc.res); got != tc.want {
			t.Errorf("TimedOut(%+v) = %v", tc.res, got)
		}
	}
	sum := &Summary{Runs: 4, TimedOut: 2}
	if n := sum.TimeoutNote(); n != "" {
		t.Errorf("half the runs: note %q", n)
	}
	sum.TimedOut = 3
	if n := sum.TimeoutNote(); !strings.HasPrefix(n, "most runs ended on a timeout (3 of 4)") {
		t.Errorf("note %q", n)
	}
}
