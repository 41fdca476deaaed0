package child

import (
	"os/exec"
	"syscall"
	"testing"

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
