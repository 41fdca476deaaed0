package sandbox

import (
	"slices"
	"testing"
)

// A subject's environment holds none of the harness's variables: PATH (the system's
// folders, not the harness's: issue 56), HOME, TMPDIR, LANG and what the caller adds, which
// replaces an entry of the same name.
func TestProgramEnv(t *testing.T) {
	t.Setenv("GAUNTLET_TEST_SECRET", "s3cret")
	t.Setenv("PATH", "/grader/scratch/bin:/root/go/bin:/usr/bin:/bin")
	got := ProgramEnv("GAUNTLET_SUBJECT=1:2:/w", "PATHS=kept")
	want := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/nonexistent", "LANG=C", "TMPDIR=/tmp", "GAUNTLET_SUBJECT=1:2:/w", "PATHS=kept"}
	if !slices.Equal(got, want) {
		t.Errorf("ProgramEnv = %q, want %q", got, want)
	}
	got = ProgramEnv("PATH=/x:/usr/bin")
	want = []string{"HOME=/nonexistent", "LANG=C", "TMPDIR=/tmp", "PATH=/x:/usr/bin"}
	if !slices.Equal(got, want) {
		t.Errorf("ProgramEnv with a PATH = %q, want %q", got, want)
	}
}
