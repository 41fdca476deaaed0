package sandbox_test

import (
	"bufio"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"gauntlet/harness/box/hygiene"
	"gauntlet/harness/box/sandbox"
)

// An orphan on its way out is not "left running" because the machine is busy: the hub
// (slowexit.c) exits, and its child, woken by the end of file, needs 20 ms of CPU on a CPU
// this test keeps busy while the child may only use it when nothing else does
// (SCHED_IDLE). The child waits for the CPU as long as the test spins, far longer than the
// 100 ms of wall time the harness gave orphans until 2026-11-28 (which made this a
// finding); it is measured in its own CPU time now. When the spinner stops, the test gives
// the child the normal policy back: at SCHED_IDLE, a machine kept busy by others (CI's
// loaded step) starved it past the harness's 10 s wall-time backstop, which is a finding
// by design.
func TestOrphanStarvedOfCPUIsNotLeftRunning(t *testing.T) {
	t.Parallel() // it waits 700 ms on its spinner: beside the parallel tests (more load only starves the orphan longer)
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Fatal(err)
	}
	cpu := -1
	for i := 0; i < 1024 && cpu < 0; i++ {
		if set.IsSet(i) {
			cpu = i
		}
	}
	if cpu < 0 {
		t.Fatal("no CPU in this process's affinity")
	}
	// Keep that CPU busy for a while: a shell's busy loop, a task of normal priority that
	// never sleeps, pinned to it.
	spin := exec.Command("/bin/sh", "-c", "while :; do :; done")
	if err := spin.Start(); err != nil {
		t.Fatal(err)
	}
	defer spin.Wait()
	var one unix.CPUSet
	one.Set(cpu)
	if err := unix.SchedSetaffinity(spin.Process.Pid, &one); err != nil {
		spin.Process.Kill()
		t.Fatal(err)
	}
	cfg := testConfig()
	g, err := sandbox.Start(cfg, sandbox.Spec{Path: filepath.Join(progDir, "slowexit"), Args: []string{strconv.Itoa(cpu)},
		Stdout: sandbox.Pipe})
	if err != nil {
		spin.Process.Kill()
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(g.Procs()[0].Stdout()).ReadString('\n')
	child, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Errorf("the hub did not tell its child's pid: %q", line)
	}
	time.AfterFunc(700*time.Millisecond, func() {
		spin.Process.Kill()
		if child > 0 {
			// SCHED_OTHER, as the child had it: a root test may always; another may fail,
			// and the child then waits for what the machine leaves it.
			unix.SchedSetAttr(child, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: 0}, 0)
		}
	})
	res := g.Wait()
	if res.Hygiene.Has(hygiene.LeftRunning) {
		t.Errorf("an orphan starved of CPU on its way out was found left running:\n%s", res)
	}
}
