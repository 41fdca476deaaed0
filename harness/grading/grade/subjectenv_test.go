package grade

import (
	"os"
	"slices"
	"strings"
	"testing"

	"gauntlet/harness/box/sandbox"
	"gauntlet/harness/runtime/child"
	"gauntlet/internal/buildtest"
)

// subjectEnvNames grades a player that prints the names of its environment's variables
// and returns them, with the values of PATH and HOME.
func subjectEnvNames(t *testing.T, subj Subject, opt Options, script string) (names []string, path, home string) {
	t.Helper()
	o := gradeOne(t, subj, opt, script)
	_, out, ok := strings.Cut(o.Log, "[stderr]\n")
	if o.Verdict.Passed() || !ok {
		t.Fatalf("verdict %s (%s), want a failure with the environment on stderr:\n%s", o.Verdict, o.Detail, o.Log)
	}
	out, _, _ = strings.Cut(out, "\n\n")
	for _, l := range strings.Split(out, "\n") {
		name, value, _ := strings.Cut(l, "=")
		names = append(names, name)
		switch name {
		case "PATH":
			path = value
		case "HOME":
			home = value
		}
	}
	slices.Sort(names)
	return names, path, home
}

// envPlayer prints its environment on stderr and fails its case.
const envPlayer = "#!/bin/sh\nenv >&2\nexit 3\n"

// A subject sees exactly the variables the one policy gives it (child.SubjectEnv): a PATH
// of its own (the case's folder of mock players, then the system's), HOME and TMPDIR that
// are not the grader's, LANG, the case's marker and the run's token, and what its shell
// adds (PWD); none of the grader's settings (GAUNTLET_TIMEOUT, GAUNTLET_LIMITS, ...), the
// programs' variables ($PLAYER) or the grader's own environment. So whoever starts it:
// run, or a judge (the mock hub, whose subject got the whole script's environment, the
// grader's PATH, GAUNTLET_LIMITS, $PLAYER and $HUB, where the case did not box it).
func TestSubjectSeesOnlyItsEnvironment(t *testing.T) {
	// As root: rootless first (as an unprivileged user), then here, boxed as root.
	buildtest.AsUnprivileged(t, "^TestSubjectSeesOnlyItsEnvironment$", "gauntlet/cmd/gauntlet")
	t.Setenv("GAUNTLET_TEST_SECRET", "s3cret")
	want := []string{"GAUNTLET_CASE", "HOME", "LANG", "PATH", "PWD", "TMPDIR"}
	check := func(t *testing.T, subj Subject, opt Options, script string) {
		names, path, home := subjectEnvNames(t, subj, opt, script)
		// The sandbox's run token, by which it tracks a run's processes: a subject that
		// run starts has it, one a judge starts does not.
		if names = slices.DeleteFunc(names, func(n string) bool { return n == sandbox.TokenEnv }); !slices.Equal(names, want) {
			t.Errorf("the subject's variables: %q, want %q (and %s)", names, want, sandbox.TokenEnv)
		}
		if own, sys, _ := strings.Cut(path, ":"); !strings.HasSuffix(own, "bin") || sys != child.SystemPath {
			t.Errorf("the subject's PATH %q: want the case's own folder, then %s", path, child.SystemPath)
		}
		if grader, _ := os.UserHomeDir(); home == grader || home == "" {
			t.Errorf("the subject's HOME %q: want none of the grader's (%q)", home, grader)
		}
	}
	for _, tc := range []struct{ name, script string }{
		{"run", "run $PLAYER\n"},
		{"the mock hub", "run mockhub conv $PLAYER\n-- conv --\nhello \"^\"\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			subj, opt := setup(t, envPlayer)
			opt.Limits.FileSize = 1 << 20 // a setting the grader passes to its commands
			check(t, subj, opt, tc.script)
		})
		t.Run(tc.name+", boxed", func(t *testing.T) {
			subj, opt := boxedSetup(t, envPlayer)
			check(t, subj, opt, tc.script)
		})
	}
}
