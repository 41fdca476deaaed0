package limitkill

import (
	"syscall"
	"testing"
	"time"
)

// Every way a limit shows to a parent is named, and nothing else is: a SIGKILL or a
// shell's 137 only with the CPU time at the limit, a shell's 152 by its CPU time when
// known, a crash never.
func TestOf(t *testing.T) {
	s := time.Second
	tests := []struct {
		name      string
		sig       syscall.Signal
		code      int
		cpu, lim  time.Duration
		want      Limit
		wantInRep bool
	}{
		{"SIGXCPU", syscall.SIGXCPU, 0, 1 * s, 1 * s, CPU, true},
		{"SIGXFSZ", syscall.SIGXFSZ, 0, 0, 1 * s, FileSize, true},
		{"SIGKILL at the hard limit", syscall.SIGKILL, 0, 2 * s, 1 * s, CPU, true},
		{"SIGKILL well below it", syscall.SIGKILL, 0, 300 * time.Millisecond, 1 * s, None, false},
		{"SIGKILL without a limit", syscall.SIGKILL, 0, 5 * s, 0, None, false},
		{"SIGSEGV", syscall.SIGSEGV, 0, 5 * s, 1 * s, None, false},
		{"a shell's 152, CPU at the limit", 0, 152, 1 * s, 1 * s, CPU, true},
		{"a shell's 152, CPU unknown", 0, 152, UnknownCPU, 0, CPU, true},
		{"exit 152 with little CPU", 0, 152, 10 * time.Millisecond, 1 * s, None, false},
		{"a shell's 137 at the hard limit", 0, 137, 2 * s, 1 * s, CPU, true},
		{"a shell's 137 below it", 0, 137, 10 * time.Millisecond, 1 * s, None, false},
		{"a shell's 153", 0, 153, 0, 1 * s, FileSize, true},
		{"exit 1", 0, 1, 5 * s, 1 * s, None, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Of(tc.sig, tc.code, tc.cpu, tc.lim)
			if got != tc.want {
				t.Fatalf("Of = %q, want %q", got, tc.want)
			}
			status := "exit status 1"
			if tc.sig != 0 {
				status = "killed by SIG" + map[syscall.Signal]string{syscall.SIGXCPU: "XCPU", syscall.SIGXFSZ: "XFSZ", syscall.SIGKILL: "KILL", syscall.SIGSEGV: "SEGV"}[tc.sig]
			}
			rep := "FAIL ...; player: " + status + Note(got, tc.sig, tc.cpu)
			if in := InReport(rep); (in != None) != tc.wantInRep || tc.wantInRep && in != tc.want {
				t.Errorf("InReport(%q) = %q, want %q", rep, in, tc.want)
			}
		})
	}
	// What the program wrote, quoted before how it ended, is not read.
	if l := InReport(`FAIL at step 3: want "a", got "killed by SIGXCPU (the CPU time limit)"; player: exit status 1`); l != None {
		t.Errorf("a quoted line read as %q", l)
	}
	if n := Note(CPU, syscall.SIGKILL, 2*s); n != " (the CPU time limit, 2s of CPU)" {
		t.Errorf("Note = %q", n)
	}
	if n := Note(CPU, 0, UnknownCPU); n != " (a program it ran was killed at the CPU time limit)" {
		t.Errorf("Note = %q", n)
	}
}
