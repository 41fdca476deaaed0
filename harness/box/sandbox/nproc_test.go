package sandbox_test

import (
	"strconv"
	"strings"
	"testing"

	"gauntlet/harness/box/sandbox"
)

// budgetScript prints how many more processes the program may start: its soft
// RLIMIT_NPROC less the tasks of its user alive now (itself among them). The processes
// are listed before the helpers that read their status start, so the helpers are not
// counted; one cat and one awk read them all (an awk per process cost seconds on a
// machine with hundreds of them), and a process gone since the listing is skipped.
const budgetScript = `lim=$(awk '/^Max processes/ {print $3}' /proc/self/limits)
me=$(id -u)
set -- /proc/[0-9]*/status
n=$(cat "$@" 2>/dev/null | awk -v me="$me" '/^Uid:/ {u=$2} /^Threads:/ && u == me {n += $2} END {print n + 0}')
echo $((lim - n))
`

// budgetOf runs budgetScript unboxed as this process's own user, with a process limit
// of 64, and returns its answer.
func budgetOf(t *testing.T) int {
	t.Helper()
	cfg := testConfig()
	cfg.Identity = sandbox.Identity{Same: true}
	cfg.Limits.Processes = 64 // the script's own pipes and awks fit
	res, err := sandbox.Run(cfg, sandbox.Spec{Path: "/bin/sh", Args: []string{"-c", budgetScript}, Stdout: sandbox.Capture, Stderr: sandbox.Capture})
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(res.Procs[0].Stdout)))
	if err != nil {
		t.Fatalf("the script said %q (%v); stderr %q", res.Procs[0].Stdout, err, res.Procs[0].Stderr)
	}
	return n
}

// An unboxed program leaves the room the process limit gives, as a grader that is not root
// (the limit counts on top of the user's other tasks): Limits.Processes more processes,
// give or take the harness's own threads coming and going (a thread it starts after the
// count leaves the program one less). Through the role the program once got the role's
// threads on top (3 to 5 more): the role counts the tasks of its user as the program it
// becomes.
func TestUnboxedProgramGetsItsProcessLimit(t *testing.T) {
	// As a user of its own: another test running as the usual unprivileged user meanwhile
	// (a rootless grade) changes how many tasks that user has between the counts.
	if asAlone(t, "^TestUnboxedProgramGetsItsProcessLimit$") {
		return
	}
	const want, under, over = 64, 4, 2
	for i := 0; i < 3; i++ {
		room := budgetOf(t)
		t.Logf("room for %d more processes", room)
		if room < want-under || room > want+over {
			t.Errorf("room for %d more processes; want %d (-%d, +%d)", room, want, under, over)
		}
	}
}
