package hygiene

import (
	"bufio"
	"errors"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TreeCPU counts what a program's descendants computed, once reaped as much as while they
// ran: a shell whose subshell burnt CPU and was reaped is charged that CPU, as much as the
// kernel's own account of the whole tree gives at its end (wait4's usage), to a few ticks.
func TestTreeCPU(t *testing.T) {
	cmd := exec.Command("sh", "-c", `(i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done); echo burnt; read x; exit 0`)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); line != "burnt\n" {
		t.Fatalf("read %q, %v", line, err)
	}
	during, err := TreeCPU(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	total := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	if total < 50*time.Millisecond {
		t.Fatalf("the subshell burnt only %v: too little to tell", total)
	}
	if d := total - during; d < -3*TickLength || d > 3*TickLength {
		t.Errorf("TreeCPU %v while the shell waited, %v in all at its end: want the same to 3 ticks", during, total)
	}
	if _, err := TreeCPU(cmd.Process.Pid); !errors.Is(err, ErrGone) {
		t.Errorf("TreeCPU of a reaped process: %v, want ErrGone", err)
	}
}

// A tree blocked writing to a pipe nobody reads is seen writing, not runnable; a tree
// asleep is neither.
func TestTreeUseSeesABlockedWriter(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		writing      bool
	}{
		{"writer", "head -c 1000000 /dev/zero", true},
		{"sleeper", "exec sleep 30", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command("sh", "-c", tc.script)
			if _, err := cmd.StdoutPipe(); err != nil { // never read
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { cmd.Process.Kill(); cmd.Wait() }()
			// Until the tree has settled (nothing runnable): a bound only a failing test
			// reaches.
			var u TreeUse
			for end := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				var err error
				if u, err = ReadTreeUse(cmd.Process.Pid, true); err != nil {
					t.Fatal(err)
				}
				if !u.Runnable && (u.Writing || !tc.writing) || time.Now().After(end) {
					break
				}
			}
			if u.Runnable || u.Writing != tc.writing {
				t.Errorf("runnable %v, writing %v; want not runnable, writing %v", u.Runnable, u.Writing, tc.writing)
			}
		})
	}
}
