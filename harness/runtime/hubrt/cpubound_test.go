package hubrt

import (
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"gauntlet/harness/runtime/child"
)

// The players of these tests stand beside busy loops, on a machine that may be busy too:
// the backstop, which only a player the machine never runs reaches, must not end them first.
func init() { wallBackstop = 1000 }

// A read's time limit is the player's own time, not the time a busy machine held it: a
// player that computes past it times out (its child's work counted); one that waits for
// ever times out; one that computes a little on a machine so busy that the work takes
// several times the limit on the clock gets its line read.
func TestReadLimitIsCPUTime(t *testing.T) {
	t.Parallel()
	const limit = 200 * time.Millisecond
	// The player and six busy loops on one CPU; the loops end with the test.
	loops := exec.Command("sh", "-c", strings.Repeat("taskset -c 0 sh -c 'while :; do :; done' & ", 6)+"wait")
	loops.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := loops.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-loops.Process.Pid, syscall.SIGKILL); loops.Wait() })
	held := "exec taskset -c 0 sh -c 'i=0; while [ $i -lt 40000 ]; do i=$((i+1)); done; echo late'\n"
	for _, tc := range []struct {
		name, body string
		timeout    bool
	}{
		// About 50 ms of work for one CPU shared with six busy loops: 350 ms or more on
		// the clock.
		{"held by a busy machine", held, false},
		// The shell's child computes; the shell waits for it.
		{"computes in a child", "sh -c 'while :; do :; done'\n", true},
		{"waits for ever", "exec sleep 3600\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// In a group of its own, which goes with it: the busy child too.
			h, err := StartWith([]string{script(t, t.TempDir(), "p", tc.body)}, noArgs, func(_ int, s *child.Spec) error {
				s.Group = true
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Kill()
			start := time.Now()
			line, err := h.ReadLineWithin(0, limit)
			switch {
			case !tc.timeout && (err != nil || line != "late"):
				t.Errorf("ReadLineWithin = %q, %v; want the line", line, err)
			case tc.timeout && !errors.Is(err, ErrTimeout):
				t.Errorf("ReadLineWithin = %q, %v; want ErrTimeout", line, err)
			}
			if tc.name == "held by a busy machine" && time.Since(start) < limit {
				t.Errorf("the line came after %v, within the limit: the machine did not hold the player", time.Since(start))
			}
		})
	}
}
