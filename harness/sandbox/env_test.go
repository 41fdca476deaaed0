package sandbox

import (
	"slices"
	"testing"
)

// A subject's environment holds none of the harness's variables: PATH (the system's
// folders, not the harness's: issue 56), HOME, TMPDIR, LANG and what the caller adds, which
// replaces an entry of the same name.
func TestSubjectEnv(t *testing.T) {
	t.Setenv("GAUNTLET_TEST_SECRET", "s3cret")
	t.Setenv("PATH", "/grader/scratch/bin:/root/go/bin:/usr/bin:/bin")
	got := SubjectEnv("GAUNTLET_SUBJECT=1:2:/w", "PATHS=kept")
	want := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "TMPDIR=/tmp", "HOME=/nonexistent", "LANG=C", "GAUNTLET_SUBJECT=1:2:/w", "PATHS=kept"}
	if !slices.Equal(got, want) {
		t.Errorf("SubjectEnv = %q, want %q", got, want)
	}
	got = SubjectEnv("PATH=/x:/usr/bin")
	want = []string{"TMPDIR=/tmp", "HOME=/nonexistent", "LANG=C", "PATH=/x:/usr/bin"}
	if !slices.Equal(got, want) {
		t.Errorf("SubjectEnv with a PATH = %q, want %q", got, want)
	}
}
