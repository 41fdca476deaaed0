package vmtest

import (
	"bytes"
	"testing"
)

// v2Tests are the tests of this module that need a cgroup v2 machine, each a package
// (from the module's root) and a -test.run pattern: they skip where the machine is not
// one, and fail instead with GAUNTLET_REQUIRE_V2=1, which TestCgroupV2Kernel sets.
// The cgroup tests run in every group of v2Groups; the boxes' own tests (rootOnly), which
// make no group, only in the root group: they are slow under emulation.
var v2Tests = []struct {
	pkg, run string
	rootOnly bool
}{
	{"./harness/box/cgroup", ".", false},
	{"./execrole", "^TestJoinsTheCgroupsWithEveryThread$", false},
	{"./harness/grading/build", "^(TestBoxedBuildTotals|TestBoxedBuildTotalsDelegated)$", false},
	{"./harness/box/sandbox", "^(TestBoxIsolates|TestBoxHides|TestBoxedProgramHasItsOwnPIDNamespace|TestRootlessBox|TestRootlessNetIsSharedByACasesRuns)$", true},
}

// v2Groups are where the tests run: in the root group, and in a service's group as
// systemd starts a grader run as a service (a group with a process in it can give the
// groups below it no controller).
var v2Groups = []string{"", "system.slice/gauntlet.service"}

// TestCgroupV2Kernel runs every test of v2Tests in a VM of a cgroup v2 kernel (one VM a
// package and group), where they may not skip.
func TestCgroupV2Kernel(t *testing.T) {
	Need(t)
	for _, c := range v2Tests {
		for _, group := range v2Groups {
			if c.rootOnly && group != "" {
				continue
			}
			name := c.pkg + " in " + group
			if group == "" {
				name = c.pkg + " in the root group"
			}
			t.Run(name, func(t *testing.T) {
				// GAUNTLET_BOX_MASKED (sandbox.MaskedVar): the boxes here mask none of the
				// judge's files, whose search walks the host's /usr, over 9p under TCG, in
				// every test process (minutes each); none of these tests is about them,
				// and the host's suite checks the masks.
				r := RunTest(t, Test{Pkg: c.pkg, Run: c.run, Cgroup: group,
					Env: []string{"GAUNTLET_REQUIRE_V2=1", "GAUNTLET_REQUIRE_BOX=1", "GAUNTLET_BOX_MASKED=1"}})
				if bytes.Contains(r.Output, []byte("testing: warning: no tests to run")) {
					t.Errorf("-run %q matches no test of %s", c.run, c.pkg)
				}
			})
		}
	}
}
