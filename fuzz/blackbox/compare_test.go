package blackbox

import (
	"syscall"
	"testing"

	"gauntlet/fuzz/record"
)

func TestCompare(t *testing.T) {
	ref := &record.Result{Stdout: []byte("!reroll 1\nkeepall\n"), Stderr: []byte("From StLucia:turn 111111\nBad message from StLucia\n"), Exit: record.Exit{Code: 5}}
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

// TestSignatureKey: the line number is not part of the key, everything else is.
func TestSignatureKey(t *testing.T) {
	a := Signature{Kind: KindCrash, Subject: "killed by SIGSEGV", Ref: "exit status 5", Where: `stderr: want "x", got EOF`, Line: 3}
	b := a
	b.Line = 170
	if a.Key() != b.Key() {
		t.Error("signatures differing only in the line number have different keys")
	}
	for _, c := range []Signature{{Kind: KindWrongExit}, {Subject: "exit status 0"}, {Ref: "exit status 4"}, {Where: "stdout: x"}} {
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
