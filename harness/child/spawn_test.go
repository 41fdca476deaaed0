package child

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gauntlet/harness/buildtest"
)

// A program started with a parent-death signal lives on when the goroutine that asked for
// it ends on a thread the runtime then retires: the fork happened on the spawner's thread.
// (Started with cmd.Start from that goroutine, it gets the signal as the thread ends.)
func TestStartCmdOutlivesTheCallersThread(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("sleep", "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var err error
	buildtest.OnThreadThatEnds(func() { err = StartCmd(cmd) })
	if err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() { ended <- cmd.Wait() }()
	select {
	case err := <-ended:
		t.Fatalf("the program ended when its caller's thread did: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	cmd.Process.Kill()
	<-ended
}

// Run starts from the spawner and waits, as exec.Cmd.Run does.
func TestRun(t *testing.T) {
	cmd := exec.Command("sh", "-c", "echo hi; exit 3")
	var out []byte
	cmd.Stdout = writerFunc(func(b []byte) (int, error) { out = append(out, b...); return len(b), nil })
	err := Run(cmd)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 || string(out) != "hi\n" {
		t.Fatalf("Run: %v, output %q; want exit status 3 and \"hi\\n\"", err, out)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// StartStopped runs atExec while the program is stopped at its exec, then lets it go; a
// program whose atExec fails is killed and reaped, and the error returned.
func TestStartStopped(t *testing.T) {
	cmd := exec.Command("grep", "-E", "^(State|TracerPid|NoNewPrivs):", "/proc/self/status")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var out []byte
	cmd.Stdout = writerFunc(func(b []byte) (int, error) { out = append(out, b...); return len(b), nil })
	var state string
	err := StartStopped(cmd, nil, func(pid int) error {
		st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		state = strings.Fields(string(st[bytes.LastIndexByte(st, ')')+1:]))[0]
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if state != "t" {
		t.Errorf("at its exec the program was in state %q, want t (stopped by its tracer)", state)
	}
	if want := "State:\tR (running)\nTracerPid:\t0\nNoNewPrivs:\t1\n"; string(out) != want {
		t.Errorf("the program saw\n%s\nwant\n%s", out, want)
	}

	sleeper := exec.Command("sleep", "30")
	sleeper.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	pid := 0
	err = StartStopped(sleeper, nil, func(p int) error { pid = p; return errors.New("no") })
	if err == nil || err.Error() != "no" {
		t.Fatalf("StartStopped: %v, want atExec's error", err)
	}
	if err := syscall.Kill(pid, 0); err != syscall.ESRCH {
		t.Errorf("the program whose atExec failed is still there (kill: %v)", err)
	}
}
