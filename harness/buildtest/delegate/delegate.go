// Package delegate runs a test again as an unprivileged user whose cgroups are delegated
// to it (AsDelegatedUser): the grader that is not root but may give its cases totals. It is
// apart from buildtest, which the cgroup package's own tests use.
package delegate

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"gauntlet/harness/buildtest"
	"gauntlet/harness/cgroup"
)

// delegatedVar names, in an unprivileged rerun (AsDelegatedUser), the cgroup.procs files
// of the groups the root run delegated to that user.
const delegatedVar = "GAUNTLET_TEST_DELEGATED_CGROUP"

// AsDelegatedUser is buildtest.AsUnprivileged for a test of a grader that is not root but whose
// cgroups are delegated to it: the root run makes a group below its own, gives it to the
// unprivileged user (cgroup v1: its folders become that user's), reruns the tests run
// matches as that user, and removes the group and all below it afterwards. In the rerun,
// the test's process moves itself into the group first (before anything asks the cgroup
// package where its groups are). Cgroup v2 gives a grader that is not root no groups
// (cgroup.Problem), so there the test is skipped.
func AsDelegatedUser(tb testing.TB, run string, pkgs ...string) (done bool) {
	tb.Helper()
	if os.Geteuid() == 0 {
		buildtest.NeedBox(tb, cgroup.Problem())
		if !cgroup.V1() {
			tb.Skip("cgroup v2: a grader that is not root gets no cgroups (docs/security.md)")
		}
		g, err := cgroup.New("delegated-"+strconv.Itoa(os.Getpid()), cgroup.Limits{Memory: 1 << 30, Processes: 4096})
		if err != nil {
			tb.Fatal(err)
		}
		defer g.RemoveTree()
		if err := g.Chown(buildtest.Unprivileged, buildtest.Unprivileged); err != nil {
			tb.Fatal(err)
		}
		buildtest.AsUnprivilegedWith(tb, []string{delegatedVar + "=" + strings.Join(g.ProcFiles(), ",")}, run, pkgs...)
		return true
	}
	if files := os.Getenv(delegatedVar); files != "" {
		if err := cgroup.Join(strings.Split(files, ","), os.Getpid()); err != nil {
			tb.Fatalf("join the delegated group: %v", err)
		}
	}
	return false
}
