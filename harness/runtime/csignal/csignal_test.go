package csignal

import (
	"errors"
	"gauntlet/internal/buildtest"
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// The test binary plays a program that called Default and waits.
func TestMain(m *testing.M) {
	if os.Getenv("CSIGNAL_CHILD") == "player" {
		// Writes to stdout until a write fails: 7 when it failed with EPIPE.
		Player()
		for {
			if _, err := os.Stdout.WriteString("line\n"); err != nil {
				if errors.Is(err, syscall.EPIPE) {
					os.Exit(7)
				}
				os.Exit(8)
			}
		}
	}
	if os.Getenv("CSIGNAL_CHILD") == "1" {
		Default(syscall.SIGUSR2)
		os.Stdout.WriteString("ready\n")
		time.Sleep(10 * time.Second)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// dieBound is how long TestDiesAsC waits for a child to die: a bound only a failing test
// reaches (a loaded machine may take a while to run it).
const dieBound = 20 * time.Second

// A program that called Default dies of SIGUSR1 and SIGQUIT as C does (the Go runtime
// alone would ignore the first and exit 2 on the second), keeps the handling of a signal
// it handles itself (SIGUSR2, ignored here), and ignores SIGWINCH as C does. Survival is
// not judged by watching for a while: after a signal it must survive, the child is sent
// SIGUSR1, which kills it, and it must have died of that one. A signal whose default action
// kills marks the process for death when it is sent (the kernel decides it then), so a
// child that the first signal killed dies of the first, however slowly the machine runs it.
func TestDiesAsC(t *testing.T) {
	buildtest.Long(t)
	tests := []struct {
		sig  syscall.Signal
		dies bool
	}{
		{syscall.SIGUSR1, true},
		{syscall.SIGQUIT, true},
		{syscall.SIGALRM, true},
		{syscall.SIGUSR2, false},
		{syscall.SIGWINCH, false},
	}
	for _, tc := range tests {
		cmd, _ := startChild(t, "1")
		cmd.Process.Signal(tc.sig)
		want := tc.sig
		if !tc.dies {
			want = syscall.SIGUSR1
			cmd.Process.Signal(want)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
			ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if !ws.Signaled() || ws.Signal() != want {
				t.Errorf("%v: ended %v, want killed by %v", tc.sig, cmd.ProcessState, want)
			}
		case <-time.After(dieBound):
			t.Errorf("%v: still alive after %v, want killed by %v", tc.sig, dieBound, want)
			cmd.Process.Kill()
			<-done
		}
	}
}

// A program that called Player survives a write to a pipe nobody reads (the write fails
// with EPIPE) and SIGPIPE sent by kill, and still dies of SIGUSR1 as C does.
func TestPlayerSurvivesSIGPIPE(t *testing.T) {
	buildtest.Long(t)
	cmd, out := startChild(t, "player")
	cmd.Process.Signal(syscall.SIGPIPE)
	out.Close()
	err := cmd.Wait()
	if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); ws.Signaled() || ws.ExitStatus() != 7 {
		t.Errorf("ended %v (%v), want exit status 7: the write failed with EPIPE", cmd.ProcessState, err)
	}
}

// startChild starts this test binary as the program of TestMain's mode CSIGNAL_CHILD=mode,
// and returns once it has written its first bytes (it is ready): the command and its
// stdout.
func startChild(t *testing.T, mode string) (*exec.Cmd, io.ReadCloser) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "CSIGNAL_CHILD="+mode)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := out.Read(make([]byte, 5)); err != nil {
		t.Fatal(err)
	}
	return cmd, out
}
