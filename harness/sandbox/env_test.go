package sandbox

import (
	"slices"
	"testing"
)

// A subject's environment holds none of the harness's variables: PATH, HOME, TMPDIR, LANG
// and what the caller adds, which replaces an entry of the same name.
func TestSubjectEnv(t *testing.T) {
	t.Setenv("GAUNTLET_TEST_SECRET", "s3cret")
	t.Setenv("PATH", "/usr/bin:/bin")
	got := SubjectEnv("PATH=/x:/usr/bin", "GAUNTLET_SUBJECT=1:2:/w", "PATHS=kept")
	want := []string{"HOME=/nonexistent", "TMPDIR=/tmp", "LANG=C", "PATH=/x:/usr/bin", "GAUNTLET_SUBJECT=1:2:/w", "PATHS=kept"}
	if !slices.Equal(got, want) {
		t.Errorf("SubjectEnv = %q, want %q", got, want)
	}
}
