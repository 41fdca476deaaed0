package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gauntlet/harness/box/execfile"
	"gauntlet/harness/box/sandbox"
	"gauntlet/internal/buildtest"
)

// A round robin of the two reference AIs: a line per game, the table, a saved file that
// makes a second run play nothing, and the CSV.
func TestTournament(t *testing.T) {
	t.Parallel() // its commands run apart (gauntletApart)
	exe := buildtest.Path(t, "gauntlet/cmd/gauntlet")
	dir := t.TempDir()
	var ais []string
	for _, name := range []string{"stratego-hunter", "stratego-random"} {
		p := filepath.Join(dir, name)
		if err := os.Symlink(exe, p); err != nil {
			t.Fatal(err)
		}
		ais = append(ais, p)
	}
	save, csv := filepath.Join(dir, "games.jsonl"), filepath.Join(dir, "table.csv")
	args := append([]string{"tournament", "stratego", "-rounds", "2", "-save", save, "-csv", csv}, ais...)
	code, stdout, stderr := gauntletApart(t, args...)
	if code != 0 || strings.Count(stdout, "\n[") != 3 || !strings.Contains(stdout, "[4/4]") || !strings.Contains(stdout, "1    "+ais[0]) {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, _ = gauntletApart(t, args...)
	if code != 0 || strings.Contains(stdout, "[") {
		t.Errorf("a second run with the same -save played games again:\n%s", stdout)
	}
	if b, err := os.ReadFile(csv); err != nil || !strings.HasPrefix(string(b), "rank,program,games") {
		t.Errorf("csv: %q %v", b, err)
	}
	if code, _, _ := gauntletApart(t, "tournament", "stratego", ais[0]); code != 2 {
		t.Errorf("one AI: exit %d, want 2", code)
	}
}

// A referee-protocol round robin through the reference runner: the perfect tic-tac-toe
// player never loses to the random one.
func TestRefereeTournament(t *testing.T) {
	t.Parallel() // its commands run apart (gauntletApart)
	exe := buildtest.Path(t, "gauntlet/cmd/gauntlet")
	dir := t.TempDir()
	link := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink(exe, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ref, perfect, random := link("ttt-referee"), link("ttt-perfect"), link("ttt-random")
	code, stdout, stderr := gauntletApart(t, "tournament", "referee", "-referee", ref, "-rounds", "3", perfect, random)
	if code != 0 || !strings.Contains(stdout, "[6/6]") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, line := range strings.Split(stdout, "\n") {
		if f := strings.Fields(line); len(f) > 4 && f[1] == random && f[3] != "0" && f[3] != "wins" {
			// The random player's wins column.
			t.Errorf("the random player won against the perfect one:\n%s", stdout)
		}
	}
	if code, _, _ := gauntletApart(t, "tournament", "referee", perfect, random); code != 2 {
		t.Errorf("no -referee: exit %d, want 2", code)
	}
}

// -suite grades with cases from a folder or one case file instead of the built-in suite;
// a path that is neither is a usage error.
func TestGradeSuiteFromDisk(t *testing.T) {
	t.Parallel() // its commands run apart (gauntletApart)
	buildtest.Path(t, "gauntlet/cmd/gauntlet")
	dir := t.TempDir()
	one := filepath.Join(dir, "hub_usage_mine.txtar")
	body := "# The hub with no argument prints its usage.\n# section: Exits\n# category: hub/arguments\nrun -status 1 $STLUCIA\n! stdout .\nstderr '^Usage: stlucia rollfile winscore prog1 prog2 \\[prog3 \\[prog4\\]\\]$'\n"
	if err := os.WriteFile(one, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{one, dir} {
		code, stdout, stderr := gauntletApart(t, "grade", "stlucia", "-suite", path)
		if code != 0 || !strings.Contains(stdout, "cases: PASS 1") {
			t.Errorf("-suite %s: exit %d\n%s\n%s", path, code, stdout, stderr)
		}
	}
	for _, bad := range []string{filepath.Join(dir, "nothing"), t.TempDir(), filepath.Join(dir, "x.txt")} {
		if code, _, stderr := gauntletApart(t, "grade", "stlucia", "-suite", bad); code != 2 || !strings.Contains(stderr, "-suite") {
			t.Errorf("-suite %s: exit %d, %q; want a usage error", bad, code, stderr)
		}
	}
}

// Failures stream to stderr as they are known (a missing program once), the summary groups
// BUILD-FAIL by program, and -failfast stops at the first failure with exit 1.
func TestGradeStreamsAndFailsFast(t *testing.T) {
	buildtest.Long(t)
	gauntletBinary(t)
	_, here, _, _ := runtime.Caller(0)
	buggy := filepath.Join(filepath.Dir(here), "..", "..", "fixtures", "submissions", "buggy2310")
	code, stdout, stderr := gauntlet("grade", "dealer2310", "-run", "dealer_args|player_A_args", buggy)
	if code != 1 || strings.Count(stderr, "BUILD-FAIL: program not built: 2310dealer") != 1 ||
		!strings.Contains(stderr, "WRONG-EXIT player_A_args_id_beyond_count: run $PLAYER_A 2 7: want exit 3, got 2") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	if strings.Count(stdout, "BUILD-FAIL (") != 1 || !strings.Contains(stdout, "case runs): program not built: 2310dealer") {
		t.Errorf("the summary does not group the missing program:\n%s", stdout)
	}
	code, stdout, stderr = gauntlet("grade", "dealer2310", "-j", "1", "-failfast", "-run", "player_A_args", buggy)
	if code != 1 || !strings.Contains(stdout, "STOPPED at the first failure (-failfast)") || strings.Count(stderr, "WRONG-EXIT") > 2 {
		t.Errorf("-failfast: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// gauntlet version names the source revision it was built from.
func TestVersion(t *testing.T) {
	buildtest.Long(t)
	buildtest.NeedCommand(t, "git", "install git: apt-get install git")
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not in a git checkout: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "gauntlet")
	if out, err := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if info, _ := exec.Command("go", "version", "-m", bin).Output(); !strings.Contains(string(info), "vcs.revision=") {
		t.Skip("the go command recorded no revision in this checkout (a git worktree): nothing to show")
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil || !strings.HasPrefix(string(out), "gauntlet ") || !strings.Contains(string(out), "revision "+strings.TrimSpace(string(head))) {
		t.Errorf("version: %q %v, want the revision %s", out, err, head)
	}
}

// Flags may follow the folders; a report may go to stdout (the summary then goes to
// stderr); help COMMAND is the command's help; -j 0 is refused.
func TestCLIConveniences(t *testing.T) {
	t.Parallel() // its commands run apart (gauntletApart)
	buildtest.Path(t, "gauntlet/cmd/gauntlet")
	if code, stdout, _ := gauntletApart(t, "help", "grade"); code != 0 || !strings.HasPrefix(stdout, "usage: gauntlet grade") {
		t.Errorf("help grade: %d %q", code, stdout)
	}
	code, stdout, stderr := gauntletApart(t, "grade", "stlucia", "-run", "^hub_args_usage_none$", "-json", "-")
	if code != 0 || !strings.HasPrefix(stdout, "{") || !strings.Contains(stderr, "total") {
		t.Errorf("-json -: exit %d, stdout %.60q, stderr %.60q", code, stdout, stderr)
	}
	if code, _, _ := gauntletApart(t, "grade", "stlucia", "-j", "0"); code != 2 {
		t.Errorf("-j 0: exit %d, want 2", code)
	}
	// Every report's path is checked before any case runs: nothing is graded.
	dir := t.TempDir()
	for _, args := range [][]string{
		{"-json", filepath.Join(dir, "no", "such", "r.json")},
		{"-html", dir},
		{"-junit", filepath.Join(dir, "missing", "j.xml")},
		{"-gradescope", filepath.Join(dir, "x", "results.json")},
		{"-csv", filepath.Join(dir, "y", "c.csv")},
	} {
		code, stdout, stderr := gauntletApart(t, append([]string{"grade", "stlucia"}, args...)...)
		if code != 2 || !strings.Contains(stderr, "gauntlet grade: "+args[0]+" ") || strings.Contains(stdout+stderr, "cases:") {
			t.Errorf("%q: exit %d, stdout %.80q, stderr %.200q; want 2 before grading", args, code, stdout, stderr)
		}
	}
	// A flag after the folder: the folder is graded and the flag applies.
	_, here, _, _ := runtime.Caller(0)
	buggy := filepath.Join(filepath.Dir(here), "..", "..", "fixtures", "submissions", "buggy2310")
	jsonFile := filepath.Join(t.TempDir(), "r.json")
	if code, _, stderr := gauntletApart(t, "grade", "dealer2310", buggy, "-run", "^player_A_args_id_beyond_count$", "-json", jsonFile); code != 1 {
		t.Errorf("flags after the folder: exit %d, %s", code, stderr)
	} else if _, err := os.Stat(jsonFile); err != nil {
		t.Errorf("flags after the folder: no -json report: %v", err)
	}
}

// -keep keeps a failed case run with a script that reruns it: the rerun fails the same way.
func TestKeepAndRerun(t *testing.T) {
	t.Parallel() // its commands run apart (gauntletApart)
	buildtest.Path(t, "gauntlet/cmd/gauntlet")
	_, here, _, _ := runtime.Caller(0)
	buggy := filepath.Join(filepath.Dir(here), "..", "..", "fixtures", "submissions", "buggy2310")
	keep := filepath.Join(t.TempDir(), "kept")
	code, first, stderr := gauntletApart(t, "grade", "dealer2310", buggy, "-run", "^player_A_eof_after_path$", "-keep", keep)
	if code != 1 {
		t.Fatalf("grade: exit %d\n%s%s", code, first, stderr)
	}
	dir := filepath.Join(keep, "player_A_eof_after_path")
	for _, f := range []string{"player_A_eof_after_path.txtar", "outcome.txt", "rerun.sh", "work"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("the kept folder: %v %v, want mode 0700 (no later subject may read it)", st.Mode(), err)
	}
	out, err := exec.Command(filepath.Join(dir, "rerun.sh")).CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("rerun.sh: %v\n%s", err, out)
	}
	const detail = "CRASH player_A_eof_after_path: FAIL at step 5 (line 6 of the conversation: exit 6): want exit status 6, got killed by SIGSEGV"
	if !strings.Contains(first+stderr, detail) || !strings.Contains(string(out), detail) {
		t.Errorf("the rerun does not fail as the grade did (%q):\n%s", detail, out)
	}
	if code, _, stderr := gauntletApart(t, "grade", "dealer2310", buggy, buggy, "-keep", keep); code != 2 || !strings.Contains(stderr, "-keep is for one submission") {
		t.Errorf("-keep with a cohort: exit %d, %s", code, stderr)
	}
}

// As root, a tournament runs every program as a sandbox user in a box, without the
// tournament's environment, and what a program leaves running is gone when its game ends.
// Each AI here is a shell wrapper that writes its user id (and a variable of the
// tournament's environment, if it has it) in a new file of a folder every user may write,
// leaves a `sleep` running in the
// background and then runs a reference AI. Before the boxes, the AIs ran as root, and the
// sleeps outlived the tournament.
func TestTournamentBoxesThePrograms(t *testing.T) {
	buildtest.NeedBox(t, sandbox.BoxProblem())
	exe := gauntletBinary(t)
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	// Seconds no other test's sleep uses: this process's own number.
	marker := strconv.Itoa(100000 + os.Getpid())
	var ais []string
	for _, name := range []string{"stratego-hunter", "stratego-random"} {
		if err := os.Symlink(exe, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
		wrapper := filepath.Join(dir, "ai-"+name)
		// Each start also counts itself in a file of its working folder, which must be
		// its own and kept from one game to the next.
		script := "#!/bin/sh\nf=\"$(mktemp '" + dir + "/uid.XXXXXX')\"\nid -u > \"$f\"\nprintenv GAUNTLET_TEST_SECRET >> \"$f\"\necho x >> games && wc -l < games >> \"$f\"\nsleep " + marker + " </dev/null >/dev/null 2>&1 &\nexec '" + filepath.Join(dir, name) + "'\n"
		if err := execfile.Write(wrapper, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		ais = append(ais, wrapper)
	}
	t.Setenv("GAUNTLET_TEST_SECRET", "s3cret")
	// One game at a time: each AI then has one folder, kept from its first game to its
	// second.
	code, stdout, stderr := gauntlet(append([]string{"tournament", "stratego", "-j", "1"}, ais...)...)
	left := sleepsLeft(t, marker)
	if code != 0 || !strings.Contains(stdout, "[2/2]") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "uid.*"))
	if len(files) != 4 {
		t.Errorf("%d AI starts logged their user, want 4 (two games of two)", len(files))
	}
	// Each AI kept its file from its first game to its second (before 2026-11-28 it could
	// not write where it ran).
	counts := map[string]int{}
	for _, f := range files {
		data, _ := os.ReadFile(f)
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		counts[lines[len(lines)-1]]++
	}
	if counts["1"] != 2 || counts["2"] != 2 {
		t.Errorf("the AIs' own files from game to game (counts seen %v), want each AI to see 1 then 2", counts)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil || strings.HasPrefix(string(data), "0\n") {
			t.Fatalf("an AI ran as root (%q, %v)", data, err)
		}
		if strings.Contains(string(data), "s3cret") {
			t.Fatal("an AI saw the tournament's environment")
		}
	}
	if left > 0 {
		t.Errorf("%d processes the AIs left running outlived the tournament", left)
	}
}

// sleepsLeft returns how many processes run "sleep MARKER" and are not dying
// (buildtest.Dying: a process killed at the end of its game may take a while to die on a
// busy machine, and shows its pending SIGKILL meanwhile), looking until none is or for
// buildtest.GoneWithin, and kills them.
func sleepsLeft(t *testing.T, marker string) int {
	t.Helper()
	var pids []int
	for deadline := time.Now().Add(buildtest.GoneWithin); ; time.Sleep(20 * time.Millisecond) {
		pids = pids[:0]
		procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, p := range procs {
			data, err := os.ReadFile(p)
			if err != nil || string(data) != "sleep\x00"+marker+"\x00" {
				continue
			}
			if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p))); err == nil && !buildtest.Dying(pid) {
				pids = append(pids, pid)
			}
		}
		if len(pids) == 0 || time.Now().After(deadline) {
			break
		}
	}
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	return len(pids)
}

// The CPU time of a tournament's programs: what a Stratego game's turn limit allows at its
// time per move, at least a minute; an hour where that cannot be known.
func TestProgramCPU(t *testing.T) {
	for _, tc := range []struct {
		game, turns, perMove string
		want                 time.Duration
	}{
		{"stratego", "5000", "2s", 10000 * time.Second},
		{"stratego", "10", "1s", time.Minute},
		{"stratego", "x", "2s", time.Hour},
		{"stratego", "5000", "soon", time.Hour},
		{"referee", "5000", "2s", time.Hour},
	} {
		if got := programCPU(tc.game, tc.turns, tc.perMove); got != tc.want {
			t.Errorf("programCPU(%q, %q, %q) = %v, want %v", tc.game, tc.turns, tc.perMove, got, tc.want)
		}
	}
}

// A tournament that is not root boxes its programs rootless: each AI has the tournament's
// own user, and its box holds its own folder writable and nothing else of the tournament's
// writable (an AI that could write the tournament's folder leaves a file there and gives up
// its games). As root, the test runs again as an unprivileged user.
func TestTournamentBoxesTheProgramsRootless(t *testing.T) {
	t.Parallel() // a process of its own, as another user
	if buildtest.AsUnprivileged(t, "^TestTournamentBoxesTheProgramsRootless$", "gauntlet/cmd/gauntlet") {
		return
	}
	buildtest.NeedBox(t, sandbox.RootlessProblem())
	exe := gauntletBinary(t)
	dir := t.TempDir()
	var ais []string
	for _, name := range []string{"stratego-hunter", "stratego-random"} {
		// A copy in the tournament's folder, which the boxes hold (a link would name a
		// file outside them).
		if err := execfile.CopyExecuteOnly(exe, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
		wrapper := filepath.Join(dir, "ai-"+name)
		script := "#!/bin/sh\nif echo x > '" + dir + "/escaped' 2>/dev/null; then exit 1; fi\necho x >> games || exit 1\nexec '" + filepath.Join(dir, name) + "'\n"
		if err := execfile.Write(wrapper, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		ais = append(ais, wrapper)
	}
	code, stdout, stderr := gauntlet(append([]string{"tournament", "stratego", "-j", "1"}, ais...)...)
	if code != 0 || !strings.Contains(stdout, "[2/2]") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	t.Logf("the tournament:\n%s%s", stdout, stderr)
	if strings.Contains(stderr, "without boxes") {
		t.Errorf("the tournament ran its programs unboxed:\n%s", stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "escaped")); err == nil {
		t.Errorf("an AI wrote the tournament's folder")
	}
	if strings.Contains(stdout, "ILLEGAL") {
		t.Errorf("an AI could not write its own folder, or gave up:\n%s", stdout)
	}
}

// An AI that its CPU time limit ends loses its games as ILLEGAL, as in 2012, but each
// game's line says the limit and the table counts those ends apart (the limit column, in
// the CSV too). The AI lowers its own soft limit to 1 s and burns CPU after its setup; a
// line may take 5 minutes, so that only the limit ends it.
func TestTournamentNamesALimit(t *testing.T) {
	buildtest.Long(t) // two seconds of CPU
	exe := gauntletBinary(t)
	dir := t.TempDir()
	buildtest.SearchableByOthers(t, dir)
	random := filepath.Join(dir, "stratego-random")
	if err := os.Symlink(exe, random); err != nil {
		t.Fatal(err)
	}
	burner := filepath.Join(dir, "burner")
	script := "#!/bin/sh\nread q\nprintf '123344455s\\n5566667777\\n8888899999\\n999BBBBBBF\\n'\nulimit -S -t 1\nwhile :; do :; done\n"
	if err := execfile.Write(burner, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	csv := filepath.Join(t.TempDir(), "table.csv")
	code, stdout, stderr := gauntlet("tournament", "stratego", "-j", "1", "-T", "5m", "-csv", csv, burner, random)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, c := range []string{"RED", "BLUE"} {
		if want := "(" + c + " ILLEGAL: end of file (" + c + " was killed by SIGXCPU at the CPU time limit))"; !strings.Contains(stdout, want) {
			t.Errorf("no game line ends %q:\n%s", want, stdout)
		}
	}
	if !regexp.MustCompile(`(?m)^2 +` + regexp.QuoteMeta(burner) + ` +2 +0 +0 +2 +2 `).MatchString(stdout) {
		t.Errorf("the burner's table line: want 2 games, 2 illegal ends, 2 of them the limit's:\n%s", stdout)
	}
	if b, err := os.ReadFile(csv); err != nil || !strings.Contains(string(b), "\n2,\""+burner+"\",2,0,0,2,2,2,") {
		t.Errorf("csv: %q %v", b, err)
	}
}

// SIGTERM and SIGINT stop a tournament at once: the games that run end (every program
// killed, none recorded), the table of the games played is printed with STOPPED, exit 2,
// and no program of the games is left. Before 2026-11-28 a signal only kept new games from
// starting: the games running went on (here: players that never answer, with an hour per
// move), and a second SIGINT did nothing.
func TestTournamentSignals(t *testing.T) {
	t.Parallel() // tournaments of their own, in processes of their own
	// The binary itself (not gauntletBinary, which sets what this process's runs start).
	exe := buildtest.Path(t, "gauntlet/cmd/gauntlet")
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			for _, d := range []string{filepath.Dir(dir), dir} {
				if err := os.Chmod(d, 0o777); err != nil {
					t.Fatal(err)
				}
			}
			marker := strconv.Itoa(300000 + 2*os.Getpid() + int(sig)%2)
			write := func(name, body string) string {
				p := filepath.Join(dir, name)
				if err := execfile.Write(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
					t.Fatal(err)
				}
				return p
			}
			ref := write("referee", "echo feature_end; exec sleep "+marker+"\n")
			p0, p1 := write("p0", "exec sleep "+marker+"\n"), write("p1", "exec sleep "+marker+"\n")
			// The programs of the games: their scripts (before they exec) or their sleeps.
			games := func() []int {
				var pids []int
				procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
				for _, p := range procs {
					data, err := os.ReadFile(p)
					if err == nil && (string(data) == "sleep\x00"+marker+"\x00" || strings.Contains(string(data), dir+"/")) {
						pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
						pids = append(pids, pid)
					}
				}
				return pids
			}
			t.Cleanup(func() {
				for _, pid := range games() {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			cmd := exec.Command(exe, "tournament", "referee", "-referee", ref, "-T", "1h", p0, p1)
			var out, errb strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill() })
			buildtest.Await(t, "both games (-j 2) to run, three programs each", func() bool { return len(games()) >= 6 })
			cmd.Process.Signal(sig)
			if !buildtest.Ends(cmd) {
				t.Fatalf("the tournament did not end after %v:\n%s\n%s", sig, out.String(), errb.String())
			}
			if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(out.String(), "STOPPED") || strings.Contains(out.String(), "[1/2]") {
				t.Errorf("exit %d, want 2 with STOPPED and no game played\n%s\n%s", code, out.String(), errb.String())
			}
			if left := games(); len(left) > 0 {
				t.Errorf("programs %v of the games outlived the tournament", left)
			}
		})
	}
}
