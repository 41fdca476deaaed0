package vmtest

import "testing"

// v2Tests are the tests of this module that need a cgroup v2 machine, each a package
// (from the module's root) and a -test.run pattern: they skip where the machine is not
// one, and fail instead with GAUNTLET_REQUIRE_V2=1, which TestCgroupV2Kernel sets.
var v2Tests = []struct{ pkg, run string }{
	{"./harness/cgroup", "V2"},
}

// TestCgroupV2Kernel runs every test of v2Tests in a VM of a cgroup v2 kernel (one VM a
// package), where they may not skip.
func TestCgroupV2Kernel(t *testing.T) {
	Need(t)
	for _, c := range v2Tests {
		t.Run(c.pkg, func(t *testing.T) {
			GoTest(t, c.pkg, c.run, "GAUNTLET_REQUIRE_V2=1", "GAUNTLET_REQUIRE_BOX=1")
		})
	}
}
