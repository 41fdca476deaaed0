package buildtest

import (
	"os/exec"
	"syscall"
	"testing"
)

// A running process is not dying; killed, it is, whether the kernel has ended it yet or
// not (its SIGKILL pending), as a zombie and once reaped.
func TestDying(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if Dying(pid) {
		t.Error("a sleeping process counts as dying")
	}
	cmd.Process.Signal(syscall.SIGKILL)
	if alive := UntilDying([]int{pid}); len(alive) != 0 {
		t.Errorf("a killed process (not reaped) does not count as dying: %v", alive)
	}
	cmd.Wait()
	if !Dying(pid) {
		t.Error("a reaped process does not count as dying")
	}
	if alive := UntilGone([]int{pid}); len(alive) != 0 {
		t.Errorf("UntilGone on a reaped process: %v", alive)
	}
}
