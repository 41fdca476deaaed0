// Package delegate runs a test again as an unprivileged user whose cgroups are delegated
// to it (AsDelegatedUser): the grader that is not root but may give its cases totals. It is
// apart from buildtest, which the cgroup package's own tests use.
package delegate

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gauntlet/harness/box/cgroup"
	"gauntlet/internal/buildtest"
)

// delegatedVar names, in an unprivileged rerun (AsDelegatedUser), the cgroup.procs files
// of the groups the root run delegated to that user.
const delegatedVar = "GAUNTLET_TEST_DELEGATED_CGROUP"

// AsDelegatedUser is buildtest.AsUnprivileged for a test of a grader that is not root but whose
// cgroups are delegated to it: the root run makes a group below its own, gives it to the
// unprivileged user (cgroup v1: its folders become that user's), reruns the tests run
// matches as that user, and removes the group and all below it afterwards. Under cgroup
// v1 the rerun's process moves itself into the group first (before anything asks the
// cgroup package where its groups are); under v2, where it could not (cgroup.procs of the
// common ancestor is root's), it starts there, and the cgroup package moves it into a leaf
// below the group when first asked.
func AsDelegatedUser(tb testing.TB, run string, pkgs ...string) (done bool) {
	tb.Helper()
	if os.Geteuid() == 0 {
		buildtest.NeedBox(tb, cgroup.Problem())
		g, err := cgroup.New("delegated-"+strconv.Itoa(os.Getpid()), cgroup.Limits{Memory: 1 << 30, Processes: 4096})
		if err != nil {
			tb.Fatal(err)
		}
		defer g.RemoveTree()
		if err := g.Chown(buildtest.Unprivileged, buildtest.Unprivileged); err != nil {
			tb.Fatal(err)
		}
		if cgroup.V1() {
			buildtest.AsUnprivilegedWith(tb, []string{delegatedVar + "=" + strings.Join(g.ProcFiles(), ",")}, run, pkgs...)
		} else {
			buildtest.AsUnprivilegedIn(tb, filepath.Dir(g.ProcFiles()[0]), nil, run, pkgs...)
		}
		return true
	}
	if files := os.Getenv(delegatedVar); files != "" {
		if err := cgroup.Join(strings.Split(files, ","), os.Getpid()); err != nil {
			tb.Fatalf("join the delegated group: %v", err)
		}
	}
	return false
}
