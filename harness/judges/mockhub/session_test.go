package mockhub

import (
	"testing"
	"time"
)

// A probe's session: a line sent is answered; silence is GotNothing and what has come of a
// line is kept for the next read; once the input is closed a last line without its newline
// counts, then EOF; the program's exit is seen, and Kill reaps it and gives its CPU time.
func TestSession(t *testing.T) {
	t.Parallel()
	s, err := StartSession(player(t, "read a; echo \"got $a\"; printf 'tail'; read b\ni=0; while [ $i -lt 100000 ]; do i=$((i+1)); done; exit 3\n"), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Kill()
	// The program waits for its input: nothing can come.
	if line, state := s.ReadLine(50 * time.Millisecond); state != GotNothing {
		t.Fatalf("before any input: %q, %v, want nothing", line, state)
	}
	s.Send("hi")
	if line, state := s.ReadLine(5 * time.Second); state != GotLine || line != "got hi" {
		t.Fatalf("got %q, %v, want the line \"got hi\"", line, state)
	}
	// "tail" has no newline, and the program waits on its input again.
	for {
		line, state := s.ReadLine(50 * time.Millisecond)
		if state != GotNothing {
			t.Fatalf("while the program waits: %q, %v, want nothing", line, state)
		}
		if string(s.p.buf) == "tail" {
			break
		}
	}
	s.CloseInput()
	if line, state := s.ReadLine(5 * time.Second); state != GotLine || line != "tail" {
		t.Fatalf("got %q, %v, want the last line \"tail\"", line, state)
	}
	if line, state := s.ReadLine(5 * time.Second); state != GotEOF {
		t.Fatalf("got %q, %v, want EOF", line, state)
	}
	if !s.Exits(5 * time.Second) {
		t.Fatal("the program did not exit once its input was closed")
	}
	// The program counted to 100000 before it exited: its CPU time is not zero.
	if cpu := s.Kill(); cpu <= 0 {
		t.Errorf("CPU time %v, want the program's", cpu)
	}
	if st := s.p.cmd.ProcessState; st == nil || st.ExitCode() != 3 {
		t.Errorf("the program was not reaped with its status 3: %v", st)
	}
}

// A program that cannot be started is the harness's error.
func TestSessionCannotStart(t *testing.T) {
	if _, err := StartSession("/nonexistent/program", nil, Options{}); err == nil {
		t.Error("a missing program started")
	}
}
