package scriptcmds

import (
	"os"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"gauntlet/harness/box/sandbox"
	"gauntlet/harness/grading/suite"
	"gauntlet/internal/buildtest"
)

// runBoxed runs a script as a grader runs a case: with sandbox users (Settings.SandboxUser),
// the case's folder made by the caller and searchable by others.
func runBoxed(t *testing.T, script string) suite.Result {
	t.Helper()
	return runBoxedWith(t, script, Settings{})
}

// runBoxedWith is runBoxed with more of the grader's settings (its limits).
func runBoxedWith(t *testing.T, script string, s Settings) suite.Result {
	t.Helper()
	needBox(t)
	s.SandboxUser = true
	return runCase(t, boxedCaseDir(t), script, testscript.Params{Setup: s.Setup})
}

// needBox skips t where the box a case of this grader runs in cannot be made: the
// rootless box when this process is not root (a rerun as an unprivileged user), the
// box otherwise.
func needBox(t *testing.T) {
	t.Helper()
	if sandbox.Rootless() {
		buildtest.NeedBox(t, sandbox.RootlessProblem())
	} else {
		buildtest.NeedBox(t, sandbox.BoxProblem())
	}
}

// boxedCaseDir returns a new folder for a boxed case, which the sandbox's users may
// search, as may they every folder above it.
func boxedCaseDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	os.Chmod(dir, 0o711)
	buildtest.SearchableByOthers(t, dir)
	return dir
}

// In a graded case the subject sees the inputs its command names and nothing else of the
// script; what it leaves comes back for the checks, but never over a file of the script.
func TestBoxedCaseKeepsTheOracleAway(t *testing.T) {
	t.Parallel()
	script := `run sh -c 'ls -A; cat in.txt; cat want.txt ../*/want.txt 2>/dev/null || echo no-oracle; echo mine > out.txt; echo forged > want.txt; id -u'
stdout '^in.txt$'
stdout '^input$'
stdout '^no-oracle$'
! stdout '^expected$'
! stdout '^0$'
cmp out.txt mine.txt
cmp want.txt expected.txt
-- in.txt --
input
-- want.txt --
expected
-- expected.txt --
expected
-- mine.txt --
mine
`
	// The command names in.txt, so that is the input it gets.
	script = strings.Replace(script, "echo mine > out.txt; echo forged > want.txt; id -u'", "echo mine > out.txt; echo forged > want.txt; id -u' in.txt", 1)
	r := runBoxed(t, script)
	if !r.Passed {
		t.Fatalf("the case failed:\n%s", r.Log)
	}
}

// A subject's environment names nothing of the judge: no mock player (a subject player ran
// it as the reference player in its place), no reference program (a player started by the
// reference dealer found the dealer by $DEALER), none of the harness's settings; its TMPDIR
// is the box's private /tmp, which it may write. Before 2026-11-28 it got the script's
// whole environment.
func TestBoxedSubjectGetsNoJudgeInItsEnvironment(t *testing.T) {
	t.Parallel()
	script := `env DEALER=/grader/programs/x/2310dealer
env ` + MockPlayerVar + `=/grader/programs/y/mockplayer
env SECRET_TOKEN=hunter2
run sh -c 'env; mktemp >/dev/null && echo tmp-writable'
! stdout '^DEALER='
! stdout '^` + MockPlayerVar + `='
! stdout '^SECRET_TOKEN='
! stdout '^GAUNTLET_(SANDBOX|BOX|LIMITS|TIMEOUT|NO_BOX)'
! stdout '^WORK='
stdout '^TMPDIR=/tmp$'
stdout '^tmp-writable$'
stdout '^` + MarkerVar + `='
`
	r := runBoxed(t, script)
	if !r.Passed {
		t.Fatalf("the case failed:\n%s", r.Log)
	}
}

// All the files a subject writes in its folder together are bounded by the case's disk
// (Limits.CaseDisk, here 8 MiB), many small ones as one big one: past it the subject's
// writes fail with ENOSPC, and what the case's folder holds after is within the bound. A
// root grader's box/ is a tmpfs on the host; a rootless one's run works in a tmpfs in its
// box, copied back once it has ended (TestBoxedCaseDiskRootless; before 2026-11-28 its
// box/ was a plain folder, bounded per file only). The second run sees what the host's
// folder holds (rootless: copied in from it).
func TestBoxedCaseDisk(t *testing.T) {
	t.Parallel()
	script := `run -status 3 sh -c 'for i in $(seq 20); do head -c 1048576 /dev/zero > f$i || exit 3; done'
stderr 'No space left on device'
run sh -c 'n=$(cat f* | wc -c); echo $n; [ $n -le 8388608 ] && [ $n -ge 4194304 ] && echo bounded'
stdout '^bounded$'
`
	r := runBoxedWith(t, script, Settings{Limits: sandbox.Limits{CaseDisk: 8 << 20}})
	if !r.Passed {
		t.Fatalf("the case failed:\n%s", r.Log)
	}
}

// The boxed cases again, graded by a grader that is not root: run as an unprivileged user
// from a root test run.
func TestBoxedCasesRootless(t *testing.T) {
	if os.Geteuid() != 0 {
		buildtest.ByRerun(t, "not root: the tests it reruns run here directly")
	}
	buildtest.AsUnprivileged(t, "^(TestBoxedCaseDisk|TestBoxedCaseKeepsTheOracleAway|TestBoxedSubjectGetsNoJudgeInItsEnvironment)$")
}
