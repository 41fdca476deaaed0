package build

import (
	"os"
	"testing"
)

// graderSecret is a variable of the grader's own environment, set for the whole test
// binary: TestBoxedBuildIsNotRoot checks that a build never sees it. (Set here rather than
// with t.Setenv, which a parallel test may not use.)
const graderSecret = "GAUNTLET_GRADER_SECRET"

func TestMain(m *testing.M) {
	os.Setenv(graderSecret, "x")
	os.Exit(m.Run())
}
