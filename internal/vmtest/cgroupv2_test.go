package vmtest

import (
	"bytes"
	"testing"
)

// v2Tests are the tests of this module that need a cgroup v2 machine, each a package
// (from the module's root) and a -test.run pattern: they skip where the machine is not
// one, and fail instead with GAUNTLET_REQUIRE_V2=1, which TestCgroupV2Kernel sets.
var v2Tests = []struct{ pkg, run string }{
	{"./harness/cgroup", "V2"},
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
			name := c.pkg + " in " + group
			if group == "" {
				name = c.pkg + " in the root group"
			}
			t.Run(name, func(t *testing.T) {
				r := RunTest(t, Test{Pkg: c.pkg, Run: c.run, Cgroup: group,
					Env: []string{"GAUNTLET_REQUIRE_V2=1", "GAUNTLET_REQUIRE_BOX=1"}})
				if bytes.Contains(r.Output, []byte("testing: warning: no tests to run")) {
					t.Logf("note: -run %q matches no test of %s yet", c.run, c.pkg)
				}
			})
		}
	}
}
