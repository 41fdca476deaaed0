package grade

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"gauntlet/harness/box/cgroup"
	"gauntlet/harness/box/execfile"
	"gauntlet/harness/box/hygiene"
	"gauntlet/harness/box/sandbox"
	"gauntlet/internal/buildtest"
	"gauntlet/internal/buildtest/delegate"
)

// The hostile corpus: subjects that try to cheat, escape or harm the grading machine, each
// graded as a root grader grades a submission (boxed), with what the grader must do.

// boxedSetup is setup for a boxed grade: the subject's programs and the scratch folder are
// reachable by the sandbox users, as a real grade's are. It skips where the machine cannot
// box (not root, no namespaces): there the grader refuses to grade (TestSandboxUsers).
func boxedSetup(t testing.TB, player string) (Subject, Options) {
	t.Helper()
	buildtest.NeedBox(t, BoxProblem())
	subj, opt := setup(t, player)
	searchable(t, opt.Scratch)
	searchable(t, filepath.Dir(subj.Programs["toyplayer"]))
	opt.SandboxUsers = true
	return subj, opt
}

// searchable lets others search dir and the folders above it that the test made, as the
// sandbox users that run a case must (buildtest.SearchableByOthers).
func searchable(t testing.TB, dir string) {
	t.Helper()
	buildtest.SearchableByOthers(t, dir)
}

// gradeOne grades the subject on one player case made of script, and returns its outcome.
func gradeOne(t *testing.T, subj Subject, opt Options, script string) Outcome {
	t.Helper()
	return gradeCase(t, subj, opt, "player/basics", script)
}

// gradeCase grades the subject on one case of the category made of script, and returns
// its outcome.
func gradeCase(t *testing.T, subj Subject, opt Options, category, script string) Outcome {
	t.Helper()
	cases, err := LoadCases(fstest.MapFS{"toy/c.txtar": {Data: []byte(header(category) + script)}}, "toy", toy.ProgramVars())
	if err != nil {
		t.Fatal(err)
	}
	outs := Run(toy, cases, subj, opt)
	if len(outs) != 1 {
		t.Fatalf("outcomes: %+v", outs)
	}
	return outs[0]
}

// Several processes, each well within the per-process memory limit, together over the
// case's total: the kernel stops them and the verdict names the case's memory limit.
func TestHostileMemoryTotal(t *testing.T) {
	buildtest.Long(t)
	testMemoryTotal(t)
}

// A grader that is not root, whose cgroups are delegated to it (cgroup v1: folders of its
// own), gives its cases totals as a root grader does.
func TestHostileMemoryTotalDelegated(t *testing.T) {
	buildtest.Long(t)
	if delegate.AsDelegatedUser(t, "^TestHostileMemoryTotalDelegated$", "gauntlet/cmd/gauntlet") {
		return
	}
	testMemoryTotal(t)
}

// testMemoryTotal grades four processes of 90 MB under a 128 MiB case total: a LIMIT
// naming the case's memory.
func testMemoryTotal(t *testing.T) {
	buildtest.NeedBox(t, cgroup.Problem())
	// Each holds its 90 MB (dd's buffer, its write blocked on a pipe nobody reads) for 3 s:
	// the four hold them at once however the machine schedules them.
	player := "#!/bin/sh\nfor i in 1 2 3 4; do dd if=/dev/zero bs=90M count=1 2>/dev/null | sleep 3 & done\nwait\n"
	subj, opt := boxedSetup(t, player)
	opt.Limits.CaseMemory = 128 << 20
	opt.Timeout = 20e9
	o := gradeOne(t, subj, opt, "run $PLAYER\n")
	if o.Verdict != Limit || !strings.Contains(o.Detail, "memory limit of the whole case") {
		t.Errorf("four processes of 90 MB under a 128 MiB case total: %s (%s), want %s naming the case's memory", o.Verdict, o.Detail, Limit)
	}
}

// A case's cgroup goes with its user to the user's next case (scriptcmds' caseGroup): a
// case that ran into the memory total, then one that did not, each with the same user and
// group, get each their own verdict.
func TestCaseTotalsAreEachCasesOwn(t *testing.T) {
	buildtest.Long(t)
	buildtest.NeedBox(t, cgroup.Problem())
	player := "#!/bin/sh\nif [ \"$1\" = hog ]; then for i in 1 2 3 4; do dd if=/dev/zero bs=90M count=1 2>/dev/null | sleep 3 & done; wait; fi\nexit 0\n"
	subj, opt := boxedSetup(t, player)
	opt.Limits.CaseMemory = 128 << 20
	opt.Timeout = 20e9
	opt.Jobs = 1
	files := fstest.MapFS{
		"toy/a.txtar": {Data: []byte(header("player/basics") + "run $PLAYER hog\n")},
		"toy/b.txtar": {Data: []byte(header("player/basics") + "run $PLAYER calm\n")},
	}
	cases, err := LoadCases(files, "toy", toy.ProgramVars())
	if err != nil {
		t.Fatal(err)
	}
	outs := Run(toy, cases, subj, opt)
	if len(outs) != 2 || outs[0].Verdict != Limit || outs[1].Verdict != Pass {
		for _, o := range outs {
			t.Logf("%s: %s (%s)", o.Case.ID, o.Verdict, o.Detail)
		}
		t.Fatalf("want %s, then %s", Limit, Pass)
	}
}

// What a subject leaves in /tmp, /dev/shm and SysV IPC is gone with its box, and the
// machine's own are untouched.
func TestHostileLeftoversGone(t *testing.T) {
	tag := "gauntlet-hostile-" + strconv.Itoa(os.Getpid())
	ipcBefore, _ := exec.Command("ipcs", "-m").Output()
	player := fmt.Sprintf("#!/bin/sh\necho x > /tmp/%[1]s && echo x > /dev/shm/%[1]s && ipcmk -M 4096 >/dev/null && printf '^'\nread x\necho \"echo $x\"\n", tag)
	subj, opt := boxedSetup(t, player)
	o := gradeOne(t, subj, opt, "run $PLAYER\nstdout '^\\^echo $'\n")
	if o.Verdict != Pass {
		t.Fatalf("the player did not run as written: %s (%s)\n%s", o.Verdict, o.Detail, o.Log)
	}
	for _, f := range []string{"/tmp/" + tag, "/dev/shm/" + tag} {
		if _, err := os.Stat(f); err == nil {
			os.Remove(f)
			t.Errorf("%s, written by the subject, outlived its case", f)
		}
	}
	if ipcAfter, _ := exec.Command("ipcs", "-m").Output(); string(ipcAfter) != string(ipcBefore) {
		t.Errorf("the machine's shared memory segments changed:\nbefore\n%s\nafter\n%s", ipcBefore, ipcAfter)
	}
}

// The hostile corpus again, graded by a grader that is not root, in rootless boxes (the
// subject then has the grader's own user): run as an unprivileged user from a root test
// run. TestHostileMemoryTotal and TestCaseTotalsAreEachCasesOwn need the cgroups of a root
// grader; TestCaseRunsShareTheCaseNetwork checks what a rootless grade does instead.
func TestHostileCorpusRootless(t *testing.T) {
	t.Parallel()      // a process of its own, as another user: beside the parallel tests, not before them
	buildtest.Long(t) // the corpus again, rootless: the full suite (CI's) runs it
	if os.Geteuid() != 0 {
		buildtest.ByRerun(t, "not root: the tests it reruns run here directly")
	}
	buildtest.AsUnprivileged(t, "^(TestHostile(LeftoversGone|HubCannotForgeAMockRecord|AttackOnTheJudge|OutputFlood|LinkPlant|Network|EscapeSequences|HidingLeftover|ReplaysTheCaseScript|FolderLeftUnusable)|TestCaseRunsShareTheCaseNetwork)$",
		"gauntlet/cmd/gauntlet")
}

// A player that tries to take over the mock hub judging it (ptrace, a signal to stop it,
// its environment) gets nowhere, and fails the case as a player that does not play.
func TestHostileAttackOnTheJudge(t *testing.T) {
	src := filepath.Join(t.TempDir(), "attack.c")
	prog := `#include <stdio.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <unistd.h>
int main(void) {
	pid_t hub = getppid();
	if (ptrace(PTRACE_ATTACH, hub, 0, 0) == 0) { fprintf(stderr, "ATTACHED\n"); }
	else { perror("ptrace"); }
	/* Stopped for real, not only sent (a signal to the init of a PID namespace, which a
	   rootless box's program sees as its parent, is accepted and dropped). */
	if (kill(hub, SIGSTOP) == 0) {
		char st[64]; snprintf(st, sizeof st, "/proc/%d/stat", (int)hub);
		for (int i = 0; i < 100; i++) {
			FILE *s = fopen(st, "r"); char line[512] = "";
			if (s) { fgets(line, sizeof line, s); fclose(s); }
			char *p = strrchr(line, ')');
			if (p && p[1] == ' ' && p[2] == 'T') { fprintf(stderr, "STOPPED\n"); break; }
			usleep(10000);
		}
	} else { perror("kill"); }
	char path[64]; snprintf(path, sizeof path, "/proc/%d/environ", (int)hub);
	FILE *f = fopen(path, "r");
	if (f) { fprintf(stderr, "READ ENV\n"); } else { perror("environ"); }
	printf("ok: 99 steps matched\n");
	return 0;
}
`
	if err := os.WriteFile(src, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	subj, opt := boxedSetup(t, "")
	if err := buildtest.CProgramAt(subj.Programs["toyplayer"], src); err != nil {
		t.Fatal(err)
	}
	o := gradeOne(t, subj, opt, "run mockhub conv $PLAYER\n-- conv --\nhello \"^\"\nsend \"hi\"\nexpect \"echo hello\"\n")
	if o.Verdict.Passed() || o.Verdict == HarnessError {
		t.Errorf("a player attacking its judge: %s (%s), want a failure charged to it", o.Verdict, o.Detail)
	}
	for _, bad := range []string{"ATTACHED", "STOPPED", "READ ENV"} {
		if strings.Contains(o.Log, bad) {
			t.Errorf("the player's attack worked: %s\n%s", bad, o.Log)
		}
	}
}

// A subject that floods its output: the grader keeps a bounded part, the verdict names the
// limit, and the outcome's log stays small.
func TestHostileOutputFlood(t *testing.T) {
	buildtest.Long(t)
	subj, opt := boxedSetup(t, "#!/bin/sh\nexec yes flood\n")
	o := gradeOne(t, subj, opt, "run $PLAYER\n")
	if o.Verdict != Limit {
		t.Errorf("an endless output: %s (%s), want %s", o.Verdict, o.Detail, Limit)
	}
	if len(o.Log) > MaxLog+1024 {
		t.Errorf("the outcome keeps %d bytes of log, want at most %d", len(o.Log), MaxLog+1024)
	}
}

// A subject that plants links to a root-only file where the case later reads its result
// and in place of the expected file: the expected file is out of its reach, and the grader
// never follows a link it finds, so the case fails and the file's text reaches no report.
func TestHostileLinkPlant(t *testing.T) {
	subj, opt := boxedSetup(t, "#!/bin/sh\nln -sf /etc/shadow out.txt\nln -sf /etc/shadow want\nexit 0\n")
	o := gradeOne(t, subj, opt, "run $PLAYER\ncmp out.txt want\n-- want --\nsomething\n")
	if o.Verdict.Passed() {
		t.Errorf("verdict %s, want a failure", o.Verdict)
	}

	if shadow, err := os.ReadFile("/etc/shadow"); err == nil && len(shadow) > 8 && strings.Contains(o.Log+o.Detail+o.Divergence, string(shadow[:8])) {
		t.Errorf("a root-only file's text reached the report:\n%s", o.Log)
	}
}

// A subject that tries to reach the grading machine's services on its loopback, or any
// other address: its box has only its own loopback.
func TestHostileNetwork(t *testing.T) {
	port := buildtest.LoopbackService(t, "secret\n")
	player := fmt.Sprintf("#!/bin/bash\nexec 3<>/dev/tcp/127.0.0.1/%d && read -r line <&3 && echo \"$line\"\n", port)
	subj, opt := boxedSetup(t, player)
	o := gradeOne(t, subj, opt, "run -status any $PLAYER\n! stdout secret\n")
	if o.Verdict != Pass {
		t.Errorf("the subject reached the machine's loopback: %s (%s)\n%s", o.Verdict, o.Detail, o.Log)
	}
}

// A subject's escape sequences and invalid bytes never reach a report as they are.
func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain\ttext\n", "plain\ttext\n"},
		{"\x1b[2J\x1b]0;pwned\x07", `\x1b[2J\x1b]0;pwned\x07`},
		{"bad \xff byte, ok é", `bad \xff byte, ok é`},
		{"\r\x00\x7f\u0085", `\x0d\x00\x7f\xc2\x85`},
		{"abc\u202edef\u2066g\u200fh", `abc\xe2\x80\xaedef\xe2\x81\xa6g\xe2\x80\x8fh`},
	}
	for _, tc := range tests {
		if got := Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// The escape sequences a subject prints are escaped in the outcome, its log included.
func TestHostileEscapeSequences(t *testing.T) {
	subj, opt := boxedSetup(t, "#!/bin/sh\nprintf '\\033[2J\\033]0;owned\\007' >&2\nexit 3\n")
	o := gradeOne(t, subj, opt, "run $PLAYER\n")
	if strings.ContainsAny(o.Log+o.Detail+o.Divergence, "\x1b\x07") {
		t.Errorf("raw escape sequences in the outcome:\n%q", o.Log)
	}
	if !strings.Contains(o.Log, `\x1b[2J`) {
		t.Errorf("the escaped output is not shown:\n%s", o.Log)
	}
}

// A player that leaves behind a process hiding from every sweep but by its user (its own
// session, non-dumpable so that the files of its /proc/PID are root's, its environment
// wiped, orphaned) fails its case as HYGIENE, the process killed. When the sweeps read a
// process's user from /proc/PID/stat, such a case passed (the case's cgroup killed the
// process at the end, where the machine has cgroups, unreported; without them it lived on).
func TestHostileHidingLeftover(t *testing.T) {
	bin, err := os.ReadFile(buildtest.HostileProgram(t, "escapee"))
	if err != nil {
		t.Fatal(err)
	}
	subj, opt := boxedSetup(t, "")
	hider := filepath.Join(filepath.Dir(subj.Programs["toyplayer"]), "hider")
	if err := execfile.Write(hider, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	player := "#!/bin/sh\n" + hider + " >/dev/null\nprintf '^'\nread x\necho \"echo $x\"\n"
	if err := execfile.Write(subj.Programs["toyplayer"], []byte(player), 0o755); err != nil {
		t.Fatal(err)
	}
	o := gradeOne(t, subj, opt, "run $PLAYER\nstdout '^\\^echo $'\n")
	if o.Verdict != Hygiene || !strings.Contains(o.Detail, "left running") {
		t.Errorf("%s (%s), want %s: a process left running\n%s", o.Verdict, o.Detail, Hygiene, o.Log)
	}
	// Killed, it may take a while to die on a busy machine (buildtest.Dying: its SIGKILL
	// pending); a zombie left to init is gone enough.
	for deadline := time.Now().Add(buildtest.GoneWithin); ; time.Sleep(20 * time.Millisecond) {
		procs, err := hygiene.Scan()
		if err != nil {
			t.Fatal(err)
		}
		var live []int
		for _, p := range procs {
			if p.Comm == "hider" && !p.Zombie() && !buildtest.Dying(p.Pid) {
				live = append(live, p.Pid)
			}
		}
		if len(live) == 0 {
			break
		}
		if time.Now().After(deadline) {
			for _, pid := range live {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Errorf("the hidden process outlived its case: pid %v", live)
			break
		}
	}
}

// The runs of a graded case meet on one network of the case's (a server in the background
// and its clients after it), never the grader's: both runs of the case below see the same
// network namespace, and not the grader's, rootless too (since 2026-11-28). That another
// case at the same time never shares it is sandbox's TestUserPoolLendsANetWithEachUser
// (rootless: TestRootlessNetIsSharedByACasesRuns).
func TestCaseRunsShareTheCaseNetwork(t *testing.T) {
	// The grader's namespace is its threads' (the first thread's, which /proc/self names,
	// may not be: a goroutine that runs in a case's namespace on it and cannot go back
	// wedges it there).
	runtime.LockOSThread()
	own, err := os.Readlink("/proc/thread-self/ns/net")
	runtime.UnlockOSThread()
	if err != nil {
		t.Fatal(err)
	}
	subj, opt := boxedSetup(t, "#!/bin/sh\nreadlink /proc/self/ns/net\n")
	script := "run $PLAYER\nstdout '^net:'\n! stdout '" + regexp.QuoteMeta(own) + "'\ncp stdout first\nrun $PLAYER\ncmp stdout first\n"
	if os.Geteuid() != 0 && sandbox.NetProblem() != nil {
		// Rootless without a C compiler, each run has a network namespace of its own (a
		// shared one needs the C helper: docs/security.md), never the grader's.
		script = "run $PLAYER\nstdout '^net:'\n! stdout '" + regexp.QuoteMeta(own) + "'\ncp stdout first\nrun $PLAYER\n! cmp stdout first\n! stdout '" + regexp.QuoteMeta(own) + "'\n"
	}
	if o := gradeOne(t, subj, opt, script); o.Verdict != Pass {
		t.Errorf("%s (%s), want %s\n%s", o.Verdict, o.Detail, Pass, o.Log)
	}
}

// A case that starts the subject with testscript's own exec (a staff-written case, through
// -suite or gauntlet run) would run it as the grader, outside the box: the grader refuses
// the case as its own error and the subject never runs. Before, the subject ran as root.
func TestCaseWithExecIsRefused(t *testing.T) {
	dir := t.TempDir()
	searchable(t, dir)
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	mark := filepath.Join(dir, "ran")
	subj, opt := boxedSetup(t, "#!/bin/sh\nid -u > '"+mark+"'\nexit 0\n")
	o := gradeOne(t, subj, opt, "exec $PLAYER\n")
	if o.Verdict != HarnessError || !strings.Contains(o.Detail, "testscript's exec") {
		t.Errorf("a case with exec: %s (%s), want %s naming exec", o.Verdict, o.Detail, HarnessError)
	}
	if data, err := os.ReadFile(mark); err == nil {
		t.Errorf("the subject ran, as user %s", strings.TrimSpace(string(data)))
	}
}

// A player with no logic that looks for the case's script where the grader used to write
// it (../CASE.txtar, readable by all, beside its folder), or anywhere its box shows, and
// prints the answer it finds: the script is the grader's alone (0600) and outside every
// subject's box, so the case fails (before 2026-11-28 such a replayer scored 40.44/42).
func TestHostileReplaysTheCaseScript(t *testing.T) {
	player := "#!/bin/sh\n" +
		"for f in ../*.txtar ../../*.txtar ../../*/*.txtar /tmp/*/*.txtar /tmp/*/*/*.txtar; do\n" +
		"  [ -r \"$f\" ] && grep -ho 'answer-[0-9]*' \"$f\" && exit 0\n" +
		"done\n" +
		"grep -o ' /[^ ]*case-[^ ]*' /proc/self/mountinfo | while read d; do cat \"$d\"/*.txtar 2>/dev/null; done | grep -o 'answer-[0-9]*' | head -1\n"
	subj, opt := boxedSetup(t, player)
	o := gradeOne(t, subj, opt, "run $PLAYER\nstdout '^answer-4217$'\n")
	if o.Verdict.Passed() || o.Verdict == HarnessError {
		t.Errorf("a player that replays the case's script: %s (%s), want a failure charged to it\n%s", o.Verdict, o.Detail, o.Log)
	}
}

// searchable leaves the special bits of the folders above alone: a test once took the
// sticky bit off the system's /tmp through it.
func TestSearchableKeepsStickyBit(t *testing.T) {
	shared := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o770|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	inner := filepath.Join(shared, "inner")
	if err := os.Mkdir(inner, 0o700); err != nil {
		t.Fatal(err)
	}
	searchable(t, inner)
	for dir, want := range map[string]os.FileMode{shared: 0o771 | os.ModeSticky, inner: 0o711} {
		st, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Mode() & (os.ModePerm | os.ModeSticky); got != want {
			t.Errorf("%s: mode %v, want %v", dir, got, want)
		}
	}
}

// A subject whose first run leaves its folder so that the harness cannot give the next run
// its input (the folder filled to its bound; in a rootless grade, where the subject is the
// grader's own user, also the folder made read-only) fails the case as what it left
// behind (HYGIENE) or the folder's bound (LIMIT), not as a HARNESS-ERROR (until 2026-12-07
// the case was left out of the marks so: the input's write, no space left; rootless, the
// start of a box whose folder held more than its bound).
func TestHostileFolderLeftUnusable(t *testing.T) {
	player := "#!/bin/sh\ncase \"$1\" in\n" +
		"fill) i=0; while head -c 1048576 /dev/zero > f$i 2>/dev/null; do i=$((i+1)); done; chmod 0500 .; exit 0;;\n" +
		"*) cat \"$1\";;\nesac\n"
	subj, opt := boxedSetup(t, player)
	o := gradeOne(t, subj, opt, "run -status any $PLAYER fill\nrun $PLAYER in.txt\nstdout '^hello$'\n-- in.txt --\nhello\n")
	if o.Verdict != Hygiene && o.Verdict != Limit || strings.Contains(o.Detail, "harness error") {
		t.Errorf("a subject that left its folder unusable: %s (%s), want HYGIENE or LIMIT charged to it\n%s", o.Verdict, o.Detail, o.Log)
	}
	t.Logf("%s: %s", o.Verdict, o.Detail)
}
