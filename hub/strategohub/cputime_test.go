package strategohub

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"gauntlet/harness/buildtest"
	"gauntlet/harness/hygiene"
)

// The time an AI has for a line counts its CPU time (its process group's), not the clock:
// an AI that sleeps without using CPU does not lose while within the clock's backstop (-W,
// an hour here), however busy the machine is, and one that burns CPU past -T loses, itself
// or through a child it waits for. No case here depends on how long anything takes: the
// backstop is never reached, and a busy loop reaches its CPU time on any machine.
// (Before 2026-12-07 the limit was the clock's: under load the reference AI's setup ran
// out of it, and the suite's hunter-random game printed RED BAD_SETUP 0 0 148.)
func TestTimeLimitCountsCPUTime(t *testing.T) {
	t.Parallel() // games over processes of their own
	rows := "printf '" + strings.ReplaceAll(setupRows, "\n", "\\n") + "'; "
	board := "read s; i=0; while [ $i -lt 10 ]; do read r; i=$((i+1)); done; "
	quitter := "while read l; do case \"$l\" in QUIT*) exit 0;; esac; done\n"
	tests := []struct {
		name, red, want, why string
	}{
		// 0.6 s asleep before each line, three times the CPU limit: still in time.
		{"sleeps", "read q; sleep 0.6; " + rows + board + "sleep 0.6; echo SURRENDER; " + quitter, `/ai RED SURRENDER 1 148 148`, ""},
		{"burns CPU at setup", "read q; while :; do :; done\n", `/ai RED BAD_SETUP 0 0 148`, "stratego: RED BAD_SETUP: RED: 0 setup rows of 4 (RED: no whole line within 200ms of CPU time)\n"},
		{"burns CPU in a move", "read q; " + rows + board + "while :; do :; done\n", `/ai RED ILLEGAL 1 148 148`, "stratego: RED ILLEGAL: no whole line within 200ms of CPU time\n"},
		{"a child burns CPU", "read q; " + rows + board + "sh -c 'while :; do :; done' & wait\n", `/ai RED ILLEGAL 1 148 148`, "stratego: RED ILLEGAL: no whole line within 200ms of CPU time\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, why, status, _ := runErr(t, "-T", "0.2", "-W", "1h", script(t, tc.red), random(t))
			if status != 0 || !strings.HasSuffix(got, tc.want) || why != tc.why {
				t.Errorf("exit %d, result %q, stderr %q; want %q, %q", status, got, why, tc.want, tc.why)
			}
		})
	}
}

// The clock is the backstop for an AI that uses no CPU: silence past -W loses.
func TestWallTimeIsTheBackstop(t *testing.T) {
	t.Parallel()
	got, why, status, _ := runErr(t, "-T", "1h", "-W", "0.3", script(t, "exec sleep 3600\n"), random(t))
	if status != 0 || !strings.HasSuffix(got, "/ai RED BAD_SETUP 0 0 148") || why != "stratego: RED BAD_SETUP: RED: 0 setup rows of 4 (RED: no whole line within 300ms)\n" {
		t.Errorf("exit %d, result %q, stderr %q", status, got, why)
	}
}

// What an AI starts goes with it: the manager kills the AI's process group when the AI
// ends, so a process it left running (here a sleep of an hour, after the AI exits on QUIT)
// does not outlive the game (a zombie that its new parent has not reaped yet is dead). Before 2026-12-07 the AIs shared the manager's group and
// such a process lived on.
func TestAIsChildrenEndWithIt(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "child")
	red := script(t, "sleep 3600 & echo $! > "+pidFile+"; read q; printf '"+strings.ReplaceAll(setupRows, "\n", "\\n")+"'; "+
		"read s; i=0; while [ $i -lt 10 ]; do read r; i=$((i+1)); done; echo SURRENDER; while read l; do case \"$l\" in QUIT*) exit 0;; esac; done\n")
	got, status, _ := run(t, "-T", "5", red, random(t))
	b, err := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if status != 0 || !strings.HasSuffix(got, "/ai RED SURRENDER 1 148 148") || err != nil || pid <= 0 {
		t.Fatalf("exit %d, result %q, child %q %v", status, got, b, err)
	}
	// Killed, it ends a moment later (a SIGKILL takes effect when the process next runs):
	// awaited, never timed; one the manager left alive never ends, and fails at the backstop.
	defer syscall.Kill(pid, syscall.SIGKILL)
	buildtest.Await(t, "the AI's child to end with it", func() bool { return dead(pid) })
}

// dead reports whether process pid has ended: gone, or a zombie its parent has not reaped.
func dead(pid int) bool {
	p, err := hygiene.ReadProc(pid)
	return err != nil || p.Zombie()
}
