package buildtest

import (
	"os/exec"
	"testing"
)

func TestPathBuildsAndRuns(t *testing.T) {
	bin := Path(t, "gauntlet/harness/buildtest/internal/hello")
	out, err := exec.Command(bin).Output()
	if err != nil || string(out) != "hello\n" {
		t.Fatalf("%s: %q, %v", bin, out, err)
	}
	if again := Path(t, "gauntlet/harness/buildtest/internal/hello"); again != bin {
		t.Fatalf("second Path = %s, want %s", again, bin)
	}
}
