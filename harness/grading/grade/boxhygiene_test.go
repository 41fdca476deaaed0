package grade

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gauntlet/internal/buildtest"
)

// A subject that writes a folder of files and takes every right on it away from its owner
// (chmod 0500: rootless, the subject is the grader's user, and os.RemoveAll stopped there
// with its error ignored, so 40 MiB a case stayed on the grader's disk: issue 56) leaves
// nothing behind: the grader's scratch holds none of its files once the grade is done.
func TestHostileLockedFolderIsRemoved(t *testing.T) {
	player := "#!/bin/sh\nmkdir -p locked/inner && head -c 1048576 /dev/zero > locked/inner/fill && head -c 1048576 /dev/zero > locked/fill &&" +
		" chmod 0500 locked/inner && chmod 0 locked/inner/fill && chmod 0500 locked\nprintf '^'\nread x\necho \"echo $x\"\n"
	subj, opt := boxedSetup(t, player)
	o := gradeOne(t, subj, opt, "run $PLAYER\nstdout '^\\^echo $'\n")
	if o.Verdict != Pass || o.Cleanup != "" {
		t.Fatalf("the player did not run as written, or its folder stayed: %s (%s), cleanup %q\n%s", o.Verdict, o.Detail, o.Cleanup, o.Log)
	}
	filepath.WalkDir(opt.Scratch, func(path string, d fs.DirEntry, err error) error {
		if d != nil && (d.Name() == "fill" || d.Name() == "locked") {
			t.Errorf("the subject's %s outlived the grade", path)
			os.Chmod(filepath.Dir(path), 0o700) // for the test's own clean-up
			os.Chmod(path, 0o700)
		}
		return nil
	})
}

// The same, by a grader that is not root (a rootless box, where the subject has the
// grader's user): run as an unprivileged user from a root test run.
func TestHostileLockedFolderIsRemovedRootless(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("run by the root test run, as an unprivileged user")
	}
	buildtest.AsUnprivileged(t, "^TestHostileLockedFolderIsRemoved$", "gauntlet/cmd/gauntlet")
}

// Each submission graded by one process (a cohort's) has sandbox users of its own: the
// cases of two submissions graded one after the other never run as the same user (one
// sandbox uid served every case of two students graded in one cohort: issue 56).
func TestEachSubmissionHasItsOwnSandboxUsers(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("sandbox users are a root grader's (a rootless grade runs as the grader's user)")
	}
	uidOf := func() string {
		t.Helper()
		subj, opt := boxedSetup(t, "#!/bin/sh\necho \"uid=$(id -u)\" >&2\n")
		o := gradeOne(t, subj, opt, "run $PLAYER\n! stderr .\n")
		m := regexp.MustCompile(`uid=(\d+)`).FindStringSubmatch(o.Log)
		if m == nil {
			t.Fatalf("the player's uid is not in the log (%s):\n%s", o.Verdict, o.Log)
		}
		return m[1]
	}
	first, second := uidOf(), uidOf()
	if first == second {
		t.Errorf("two submissions graded one after the other both ran as uid %s", first)
	}
}

// A subject's PATH is its own: the system's program folders after the case's folder of
// mock players (which a case may name by a bare name), never the grader's (its BinDir of
// reference programs, its own PATH: /root/go/bin, ...: issue 56). Root and rootless.
func TestSubjectGetsAPathOfItsOwn(t *testing.T) {
	// As root: rootless first (as an unprivileged user), then here, boxed as root.
	buildtest.AsUnprivileged(t, "^TestSubjectGetsAPathOfItsOwn$", "gauntlet/cmd/gauntlet")
	subj, opt := boxedSetup(t, "#!/bin/sh\necho \"path=$PATH.\" >&2\n")
	t.Setenv("PATH", "/grader/go/bin:"+os.Getenv("PATH"))
	o := gradeOne(t, subj, opt, "run $PLAYER\n! stderr .\n")
	m := regexp.MustCompile(`path=(.*)\.\n`).FindStringSubmatch(o.Log)
	if m == nil {
		t.Fatalf("the player's PATH is not in the log (%s):\n%s", o.Verdict, o.Log)
	}
	dirs := filepath.SplitList(m[1])
	if len(dirs) != 4 || filepath.Base(dirs[0]) != "bin" || strings.Join(dirs[1:], ":") != "/usr/local/bin:/usr/bin:/bin" {
		t.Errorf("the subject's PATH is %q, want the case's bin, then /usr/local/bin:/usr/bin:/bin (the grader's BinDir is %s)", m[1], opt.BinDir)
	}
}

// A mock hub's signal step reaches the player it judges, as a hub's kill(pid, sig) would.
// Rootless, the judge starts its subject through a supervisor (sandbox.Command), which
// ignores every signal it can: the step went to the supervisor, and a player that should
// have died of SIGTERM was still running at the next step (only the suites' SIGKILL, which
// the supervisor cannot ignore, got through). Root and rootless.
func TestMockHubSignalReachesThePlayer(t *testing.T) {
	// As root: rootless first (as an unprivileged user), then here, boxed as root.
	buildtest.AsUnprivileged(t, "^TestMockHubSignalReachesThePlayer$", "gauntlet/cmd/gauntlet")
	subj, opt := boxedSetup(t, "#!/bin/sh\nprintf '^'\nexec sleep 30\n")
	o := gradeOne(t, subj, opt, "run -status 0 mockhub conv $PLAYER\nstdout '^ok: '\n-- conv --\nhello \"^\"\nsignal TERM\nexit signal TERM\n")
	if o.Verdict != Pass {
		t.Errorf("the player did not die of the mock hub's SIGTERM: %s (%s)\n%s", o.Verdict, o.Detail, o.Log)
	}
}
