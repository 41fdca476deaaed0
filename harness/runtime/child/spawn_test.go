package child

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"gauntlet/internal/buildtest"
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
	// The thread is gone: a parent-death signal would have been sent by now.
	if buildtest.Dying(cmd.Process.Pid) {
		cmd.Wait()
		t.Fatalf("the program ended when its caller's thread did: %v", cmd.ProcessState)
	}
	cmd.Process.Kill()
	cmd.Wait()
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

// testTracer is the tests' Tracer: no_new_privs alone.
var testTracer = NewTracer(nil)

// A Tracer's confinement runs on its thread before the first start: one that fails fails
// every start of that thread, with its error.
func TestTracerConfines(t *testing.T) {
	refused := errors.New("refused")
	tr := NewTracer(func() error { return refused })
	for range 2 {
		cmd := exec.Command("true")
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := tr.StartStopped(cmd, nil, func(int) error { return nil }); !errors.Is(err, refused) {
			t.Fatalf("StartStopped: %v, want the confinement's error", err)
		}
	}
}

// StartStopped runs atExec while the program is stopped at its exec, then lets it go; a
// program whose atExec fails is killed and reaped, and the error returned.
func TestStartStopped(t *testing.T) {
	cmd := exec.Command("grep", "-E", "^(State|TracerPid|NoNewPrivs):", "/proc/self/status")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var out []byte
	cmd.Stdout = writerFunc(func(b []byte) (int, error) { out = append(out, b...); return len(b), nil })
	var state string
	err := testTracer.StartStopped(cmd, nil, func(pid int) error {
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
	err = testTracer.StartStopped(sleeper, nil, func(p int) error { pid = p; return errors.New("no") })
	if err == nil || err.Error() != "no" {
		t.Fatalf("StartStopped: %v, want atExec's error", err)
	}
	if err := syscall.Kill(pid, 0); err != syscall.ESRCH {
		t.Errorf("the program whose atExec failed is still there (kill: %v)", err)
	}
}

// A harness started with signals blocked (by a parent that blocked them) passes them on
// blocked to every thread of its runtime, the spawner's too, and a fork inherits its
// thread's mask: the program, stopped at its exec, gets an empty mask before it runs, as
// the exec role gives it. Here this test binary is started with SIGUSR1 blocked (which the
// Go runtime leaves blocked) and starts a program that shows its mask.
func TestStartStoppedEmptiesTheSignalMask(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	done := make(chan error, 1)
	go func() {
		// The fork inherits the mask of the thread it runs on.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var set, old unix.Sigset_t
		set.Val[0] = 1 << (uint(syscall.SIGUSR1) - 1)
		if err := unix.PthreadSigmask(unix.SIG_BLOCK, &set, &old); err != nil {
			done <- err
			return
		}
		defer unix.PthreadSigmask(unix.SIG_SETMASK, &old, nil)
		cmd := exec.Command(self)
		cmd.Env = append(os.Environ(), roleEnv+"=sigmask")
		out, err = cmd.CombinedOutput()
		done <- err
	}()
	if err := <-done; err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if want := "probe: SigBlk:\t0000000000000200\nprogram: SigBlk:\t0000000000000000\n"; string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// probeSigmask prints this process's blocked signals, then those of a program it starts
// stopped at its exec.
func probeSigmask() int {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 1
	}
	for _, l := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(l, "SigBlk:") {
			fmt.Printf("probe: %s\n", l)
		}
	}
	cmd := exec.Command("grep", "^SigBlk:", "/proc/self/status")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := testTracer.StartStopped(cmd, nil, func(int) error { return nil }); err != nil {
		fmt.Println(err)
		return 1
	}
	if err := cmd.Wait(); err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Printf("program: %s", out.String())
	return 0
}
