package faults

import (
	"errors"
	"syscall"
	"testing"
	"time"
)

func TestParseEveryAction(t *testing.T) {
	src := `# a comment line
start spawn
hello send "x"
after 3 exit 4      # trailing comment
reply 2 line "DO0"
reply 2 sleep 1500ms
reply 5 long 70000
reply 6 drop
after 7 close
after 8 signal SEGV
after 9 signal sigint
after 10 signal 9
end hang
hello send "\x00\r\n"
`
	s, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	want := []Rule{
		{At: Start, Op: Spawn},
		{At: Hello, Op: Send, Bytes: []byte("x")},
		{At: After, K: 3, Op: Exit, N: 4},
		{At: Reply, K: 2, Op: Line, Bytes: []byte("DO0\n")},
		{At: Reply, K: 2, Op: Sleep, Delay: 1500 * time.Millisecond},
		{At: Reply, K: 5, Op: Long, N: 70000},
		{At: Reply, K: 6, Op: Drop},
		{At: After, K: 7, Op: Close},
		{At: After, K: 8, Op: Signal, Signal: syscall.SIGSEGV},
		{At: After, K: 9, Op: Signal, Signal: syscall.SIGINT},
		{At: After, K: 10, Op: Signal, Signal: syscall.SIGKILL},
		{At: End, Op: Hang},
		{At: Hello, Op: Send, Bytes: []byte("\x00\r\n")},
	}
	if len(s) != len(want) {
		t.Fatalf("got %d rules, want %d", len(s), len(want))
	}
	for i, w := range want {
		g := s[i]
		if g.At != w.At || g.K != w.K || g.Op != w.Op || string(g.Bytes) != string(w.Bytes) ||
			g.N != w.N || g.Signal != w.Signal || g.Delay != w.Delay {
			t.Errorf("rule %d = %+v, want %+v", i, g, w)
		}
	}
	// Format then Parse gives the same rules.
	again, err := Parse(s.Format())
	if err != nil {
		t.Fatalf("reparse of %q: %v", s.Format(), err)
	}
	if again.Format() != s.Format() {
		t.Errorf("round trip changed the script:\n%s\nvs\n%s", again.Format(), s.Format())
	}
}

func TestAt(t *testing.T) {
	s, _ := Parse("reply 2 sleep 1s\nreply 2 line \"x\"\nreply 3 drop\nend hang\n")
	if got := s.At(Reply, 2); len(got) != 2 || got[0].Op != Sleep || got[1].Op != Line {
		t.Errorf("At(reply 2) = %+v", got)
	}
	if got := s.At(Reply, 1); len(got) != 0 {
		t.Errorf("At(reply 1) = %+v", got)
	}
	if got := s.At(End, 0); len(got) != 1 {
		t.Errorf("At(end) = %+v", got)
	}
}

func TestParseErrors(t *testing.T) {
	for _, src := range []string{
		"later exit 1",
		"after exit 1",
		"after 0 exit 1",
		"after x exit 1",
		"after 2",
		"hello explode",
		"exit",
		"hello send",
		"hello send \"unterminated",
		"after 1 exit 256",
		"after 1 signal WOBBLE",
		"after 1 sleep forever",
		"after 1 drop",
		"end hang now",
	} {
		_, err := Parse("# ok\n" + src + "\n")
		var fe *Error
		if !errors.As(err, &fe) || fe.Line != 2 {
			t.Errorf("Parse(%q) = %v, want an error on line 2", src, err)
		}
	}
}

func TestReplaces(t *testing.T) {
	for op, want := range map[Op]bool{Send: true, Line: true, Long: true, Drop: true, Close: true,
		Exit: true, Signal: true, Hang: true, Sleep: false, Spawn: false} {
		if op.Replaces() != want {
			t.Errorf("%v.Replaces() = %v", op, !want)
		}
	}
}

// TestSignalWordsRoundTrip checks the signal names against the system's table: every signal
// is written by its short name and read back as itself (SIGXCPU, which the hand-written
// table of before did not know, was written "24"), and a name reads in any case, with or
// without SIG.
func TestSignalWordsRoundTrip(t *testing.T) {
	for sig := syscall.Signal(1); sig < 32; sig++ {
		w := SignalWord(sig)
		if got, err := ParseSignal(w); err != nil || got != sig {
			t.Errorf("ParseSignal(SignalWord(%d) = %q) = %v, %v", int(sig), w, got, err)
		}
	}
	for in, want := range map[string]syscall.Signal{"XCPU": syscall.SIGXCPU, "sigcont": syscall.SIGCONT,
		"SIGSEGV": syscall.SIGSEGV, "usr1": syscall.SIGUSR1, "9": syscall.SIGKILL} {
		if got, err := ParseSignal(in); err != nil || got != want {
			t.Errorf("ParseSignal(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if w := SignalWord(syscall.SIGXCPU); w != "XCPU" {
		t.Errorf("SignalWord(SIGXCPU) = %q, want XCPU", w)
	}
	if _, err := ParseSignal("SIGWOBBLE"); err == nil {
		t.Error("ParseSignal(SIGWOBBLE) is no error")
	}
}
