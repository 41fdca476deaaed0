package strategohub

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"gauntlet/harness/box/hygiene"
	"gauntlet/internal/buildtest"
)

// The time an AI has for a line counts its own time (what it computed, with its children,
// or waited), not the time a busy machine kept it from running (hubrt's cpuBound; the
// held case is hubrt's TestReadLimitIsCPUTime): an AI that burns CPU past -T loses, itself
// or through a child it waits for, and so does one that sleeps past it, at -T and not at
// the clock's backstop (-W, an hour here). No case here depends on how long anything takes.
// (Before 2026-12-07 the limit was the clock's: under load the reference AI's setup ran
// out of it, and the suite's hunter-random game printed RED BAD_SETUP 0 0 148.)
func TestTimeLimitCountsCPUTime(t *testing.T) {
	t.Parallel() // games over processes of their own
	rows := "printf '" + strings.ReplaceAll(setupRows, "\n", "\\n") + "'; "
	board := "read s; i=0; while [ $i -lt 10 ]; do read r; i=$((i+1)); done; "
	tests := []struct {
		name, red, want, why string
	}{
		{"sleeps at setup", "read q; exec sleep 3600\n", `/ai RED BAD_SETUP 0 0 148`, "stratego: RED BAD_SETUP: RED: 0 setup rows of 4 (RED: no whole line within 200ms)\n"},
		{"burns CPU at setup", "read q; while :; do :; done\n", `/ai RED BAD_SETUP 0 0 148`, "stratego: RED BAD_SETUP: RED: 0 setup rows of 4 (RED: no whole line within 200ms)\n"},
		{"burns CPU in a move", "read q; " + rows + board + "while :; do :; done\n", `/ai RED ILLEGAL 1 148 148`, "stratego: RED ILLEGAL: no whole line within 200ms\n"},
		{"a child burns CPU", "read q; " + rows + board + "sh -c 'while :; do :; done' & wait\n", `/ai RED ILLEGAL 1 148 148`, "stratego: RED ILLEGAL: no whole line within 200ms\n"},
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

// The clock is the backstop whatever the AI does: silence past -W loses, and says so.
func TestWallTimeIsTheBackstop(t *testing.T) {
	t.Parallel()
	got, why, status, _ := runErr(t, "-T", "1h", "-W", "0.3", script(t, "exec sleep 3600\n"), random(t))
	if status != 0 || !strings.HasSuffix(got, "/ai RED BAD_SETUP 0 0 148") || why != "stratego: RED BAD_SETUP: RED: 0 setup rows of 4 (RED: no whole line within 300ms on the clock)\n" {
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
