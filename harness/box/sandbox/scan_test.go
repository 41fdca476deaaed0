package sandbox

import (
	"os/exec"
	"slices"
	"sync"
	"testing"

	"gauntlet/harness/box/hygiene"
)

// Every caller of a shared scan sees the processes that existed when it asked, however
// many ask at once: a scan begun before a caller asked is never its answer.
func TestSharedScanBeginsAfterTheCall(t *testing.T) {
	t.Parallel() // scans of its own, beside the tests that wait
	var s sharedScan
	for round := 0; round < 10; round++ {
		cmd := exec.Command("sleep", "5")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pid := cmd.Process.Pid
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				procs := s.since()
				if !slices.ContainsFunc(procs, func(p hygiene.Proc) bool { return p.Pid == pid }) {
					t.Errorf("round %d: a scan asked for after pid %d started does not show it", round, pid)
				}
			}()
		}
		wg.Wait()
		cmd.Process.Kill()
		cmd.Wait()
		// A process gone before the call is not in the answer either.
		if slices.ContainsFunc(s.since(), func(p hygiene.Proc) bool { return p.Pid == pid }) {
			t.Errorf("round %d: pid %d, reaped before the call, is in the scan", round, pid)
		}
	}
}
