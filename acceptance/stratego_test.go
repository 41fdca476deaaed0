package acceptance

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gauntlet/fuzz/judgerun"
	"gauntlet/fuzz/livefuzz"
	"gauntlet/harness/grading/grade"
	"gauntlet/harness/runtime/limitkill"
	"gauntlet/internal/buildtest"
	_ "gauntlet/programs" // the games, with their live judges
)

// shellAI is a Stratego AI in sh with a fixed setup: MOVE answers every turn query, and
// ONQUIT is what it does when told QUIT.
func shellAI(move, onQuit string) string {
	return `#!/bin/sh
read colour rest
case "$colour" in QUIT*) ` + onQuit + `;; esac
printf '123344455s\n5566667777\n8888899999\n999BBBBBBF\n'
while read line; do
  case "$line" in QUIT*) ` + onQuit + `;; esac
  i=0; while [ $i -lt 10 ]; do read row; i=$((i+1)); done
  ` + move + `
  read conf
  case "$conf" in QUIT*) ` + onQuit + `;; esac
done
`
}

// aiSubmission is a folder whose Makefile builds the program ai from the script.
func aiSubmission(t *testing.T, script string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ai.sh"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	mk := "all:\n\tcp ai.sh ai && chmod 755 ai\n"
	if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte(mk), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The Stratego AI suite fails an AI that moves a bomb (PROTOCOL, naming the rule) and one
// that answers too late (TIMEOUT); an AI that surrenders at once, which the protocol
// allows, passes every case. How an AI exits after QUIT is not fixed by the manual: one
// that ignores QUIT until it is killed, or exits 99, passes the ai/end cases on their
// alternative (PASS-LENIENT) and loses no mark anywhere else, and so does one written for
// the 2012 manager's QUIT (docs/stratego.md). An AI-only submission is
// graded out of the AI's 20 marks, without BUILD-FAIL cases for the manager.
func TestStrategoAISuiteFailsBadAIs(t *testing.T) {
	if testing.Short() {
		t.Skip("whole grades: full mode only")
	}
	bomb := `if [ "$colour" = RED ]; then echo "3 3 DOWN"; else echo "3 9 UP"; fi`
	lenientEnd := func(t *testing.T, rep *grade.Report) {
		for _, c := range rep.Cases {
			switch {
			case c.Category == "ai/end" && (c.Verdict != grade.PassLenient || !strings.Contains(strings.Join(c.Lenient, " "), "any-exit.conv")):
				t.Errorf("%s: %s %v, want PASS-LENIENT on any-exit.conv", c.ID, c.Verdict, c.Lenient)
			case c.Category != "ai/end" && c.Verdict != grade.Pass:
				t.Errorf("%s: %s (%s), want PASS: the QUIT is ai/end's alone", c.ID, c.Verdict, c.Detail)
			}
		}
		if marks(t, rep) != 20 || rep.MaxMarks != 20 {
			t.Errorf("marks %v/%v, want 20/20", marks(t, rep), rep.MaxMarks)
		}
	}
	tests := []struct {
		name, script string
		check        func(t *testing.T, rep *grade.Report)
	}{
		{"moves a bomb", shellAI(bomb, "exit 0"), func(t *testing.T, rep *grade.Report) {
			for _, c := range rep.Cases {
				if c.Category == "ai/play" && (c.Verdict != grade.Protocol || !strings.Contains(c.Detail, "bombs and the flag do not move")) {
					t.Errorf("%s: %s (%s), want PROTOCOL naming the rule", c.ID, c.Verdict, c.Detail)
				}
			}
		}},
		{"answers late", shellAI("sleep 3; echo SURRENDER", "exit 0"), func(t *testing.T, rep *grade.Report) {
			for _, c := range rep.Cases {
				if c.Category == "ai/play" && c.Verdict != grade.Timeout {
					t.Errorf("%s: %s (%s), want TIMEOUT", c.ID, c.Verdict, c.Detail)
				}
			}
		}},
		{"ignores QUIT", shellAI("echo SURRENDER", "sleep 30"), lenientEnd},
		// Written for the 2012 manager's end: QUIT and the result line, in place of the
		// next line it reads, and a kill at once: it takes the words after QUIT as the
		// result line's and waits to be killed. The suite's QUIT word serves it as well.
		{"written for 2012's QUIT", shellAI("echo SURRENDER", `set -- $line $conf; name=$2 colour=$3 outcome=$4; sleep 30`), lenientEnd},
		{"exits 99 on QUIT", shellAI("echo SURRENDER", "exit 99"), lenientEnd},
		{"surrenders at once", shellAI("echo SURRENDER", "exit 0"), func(t *testing.T, rep *grade.Report) {
			for _, c := range rep.Cases {
				if c.Verdict != grade.Pass {
					t.Errorf("%s: %s (%s), want PASS", c.ID, c.Verdict, c.Detail)
				}
			}
			if marks(t, rep) != 20 || rep.MaxMarks != 20 || len(rep.Cases) != 13 || rep.Counts[grade.BuildFail] != 0 {
				t.Errorf("an AI-only submission: %v/%v in %d cases, %d BUILD-FAIL; want 20/20 in the 13 AI cases",
					marks(t, rep), rep.MaxMarks, len(rep.Cases), rep.Counts[grade.BuildFail])
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, rep, text := gradeRun(t, "stratego", aiSubmission(t, tc.script))
			tc.check(t, rep)
			if t.Failed() {
				t.Logf("report:\n%s", text)
			}
		})
	}
}

// binarySubmission is a folder whose Makefile installs the built program bin as the spec's
// program prog.
func binarySubmission(t *testing.T, bin, prog string) string {
	t.Helper()
	dir := t.TempDir()
	data, err := os.ReadFile(bin)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "prog.bin"), data, 0o755)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "Makefile"), []byte("all:\n\tcp prog.bin "+prog+"\n"), 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// mutant builds the main package pkg with one source file changed (go build -overlay): the
// exact text old in file (relative to the module) replaced by new.
func mutant(t *testing.T, pkg, file, old, new string) string {
	t.Helper()
	root, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(filepath.Dir(strings.TrimSpace(string(root))), file)
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(data), old) != 1 {
		t.Fatalf("%s: the text to mutate is not there exactly once: %q", file, old)
	}
	dir := t.TempDir()
	patched := filepath.Join(dir, filepath.Base(file))
	if err := os.WriteFile(patched, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	overlay := filepath.Join(dir, "overlay.json")
	js, _ := json.Marshal(map[string]map[string]string{"Replace": {src: patched}})
	os.WriteFile(overlay, js, 0o644)
	bin := filepath.Join(dir, filepath.Base(pkg))
	if out, err := exec.Command("go", "build", "-overlay", overlay, "-o", bin, pkg).CombinedOutput(); err != nil {
		t.Fatalf("building the mutant: %v\n%s", err, out)
	}
	return bin
}

// The manager suite fails mutants of the reference manager: one whose reads have no
// deadline (a partial line or silence hangs it, as the 2012 manager did), one with a wrong
// combat rule (equal ranks: the attacker wins), one that counts moves where the 2012
// manager counted turns, and one that prints the values in the wrong order.
func TestStrategoManagerSuiteFailsMutants(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mutants and grades them: full mode only")
	}
	t.Parallel()
	tests := []struct {
		name, file, old, new string
		mustFail             []string // cases the mutant must fail
		anyOf                bool     // one of mustFail failing is enough
		// backstop, when set, replaces the cases' own wall-time backstop (60 s): a mutant
		// that hangs fails them alike, in a sixth of the time.
		backstop string
	}{
		{"no read deadline", "hub/strategohub/manager.go",
			"ReadTimeout:     o.timeout,\n\t\tReadBackstop:    o.backstop,", "ReadTimeout:     0,\n\t\tReadBackstop:    0,",
			[]string{"manager_partial_line", "manager_silent_setup"}, false, "10s"},
		{"equal ranks: the attacker wins", "games/stratego/game.go",
			"case att.Rank() == def.Rank():\n\t\treturn BothDie", "case att.Rank() == def.Rank():\n\t\treturn Kills",
			// A game with a fight of equal ranks shows it; not every game has one.
			[]string{"manager_game_random_random", "manager_game_hunter_random", "manager_game_random_hunter"}, true, ""},
		{"turns counted as moves", "games/stratego/game.go",
			"func (g *Game) turn1() int { return g.moves/2 + 1 }", "func (g *Game) turn1() int { return g.moves }",
			[]string{"manager_illegal_move", "manager_game_random_random", "manager_surrender"}, false, ""},
		{"values swapped", "games/stratego/game.go",
			`strconv.Itoa(g.board.Value(Red)) + " " + strconv.Itoa(g.board.Value(Blue))`,
			`strconv.Itoa(g.board.Value(Blue)) + " " + strconv.Itoa(g.board.Value(Red))`,
			[]string{"manager_bad_setup_blue", "manager_game_random_random"}, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := binarySubmission(t, mutant(t, "gauntlet/cmd/stratego", tc.file, tc.old, tc.new), "stratego")
			// Only the cases the test asks about: the mutant without a deadline hangs in
			// others too, each until its case's timeout (a minute of the package's time).
			args := []string{"-run", "^(" + strings.Join(tc.mustFail, "|") + ")$"}
			if tc.backstop != "" {
				args = append(args, "-suite", backstopped(t, tc.mustFail, tc.backstop))
			}
			_, rep, text := gradeRun(t, "stratego", append(args, dir)...)
			got := verdicts(rep)
			failed := 0
			for _, id := range tc.mustFail {
				if v := got[id]; v.Passed() || v == "" || v == grade.HarnessError {
					if !tc.anyOf {
						t.Errorf("%s: %s, want a failure", id, v)
					}
				} else {
					failed++
				}
			}
			if tc.anyOf && failed == 0 {
				t.Errorf("none of %v failed", tc.mustFail)
			}
			if t.Failed() {
				t.Logf("report:\n%s", text)
			}
		})
	}
}

// backstopped is a folder of the built-in Stratego cases named, each with its runs'
// wall-time backstop (-timeout 60s) set to backstop instead.
func backstopped(t *testing.T, cases []string, backstop string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range cases {
		b, err := os.ReadFile(filepath.Join("..", "testscripts", "stratego", name+".txtar"))
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if !strings.Contains(text, " -timeout 60s ") {
			t.Fatalf("%s: no -timeout 60s to replace", name)
		}
		text = strings.ReplaceAll(text, " -timeout 60s ", " -timeout "+backstop+" ")
		if err := os.WriteFile(filepath.Join(dir, name+".txtar"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The live fuzzer (gauntlet fuzz stratego) finds an AI that moves a bomb, and nothing in
// the reference hunter, with the same seed.
func TestLiveFuzzerFindsBadAI(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzz campaigns: full mode only")
	}
	t.Parallel()
	gauntlet := buildtest.Path(t, "gauntlet/cmd/gauntlet")
	dir := t.TempDir()
	// The program runs as a sandbox user when the test is root: let it reach its file.
	os.Chmod(filepath.Dir(dir), 0o755)
	os.Chmod(dir, 0o755)
	bomb := filepath.Join(dir, "bomb-ai")
	script := shellAI(`if [ "$colour" = RED ]; then echo "3 3 DOWN"; else echo "3 9 UP"; fi`, "exit 0")
	if err := os.WriteFile(bomb, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	hunter := filepath.Join(dir, "stratego-hunter")
	if err := os.Symlink(gauntlet, hunter); err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct {
		prog string
		want bool
	}{{hunter, false}, {bomb, true}} {
		var log strings.Builder
		found, err := livefuzz.Run(livefuzz.Options{Game: "stratego", Campaign: judgerun.Campaign{Program: p.prog, Seed: 3, Runs: 4,
			Out: t.TempDir(), Log: &log, Gauntlet: gauntlet}})
		if err != nil {
			t.Fatalf("%s: %v\n%s", p.prog, err, log.String())
		}
		if (len(found) > 0) != p.want {
			t.Errorf("%s: %d findings, want findings: %v\n%s", filepath.Base(p.prog), len(found), p.want, log.String())
		}
		if p.want && len(found) > 0 && !strings.Contains(found[0].Detail, "bombs and the flag do not move") {
			t.Errorf("the finding does not name the rule: %s", found[0].Detail)
		}
	}
}

// limitCase is a suite case that plays a short live game with a step timeout far longer
// than the CPU limit the tests give (-cpu 1s): a program that burns CPU runs into that
// limit long before the mock hub gives it up, however loaded the machine.
const limitCase = `# A short game with a long step timeout, for the CPU limit.
# section: Protocol
# category: ai/play
run -status 0 mockhub -timeout 120s conv $AI
stdout '^ok: '

-- conv --
judge stratego seat=RED others=random seed=1 turns=20
live
end
`

// A limit that kills an AI is LIMIT, however it shows: SIGXCPU itself, SIGKILL a second
// later for an AI that ignores SIGXCPU (before 2026-11-28: PROTOCOL, "got EOF; player:
// killed by SIGKILL"), and status 152 from a shell that runs the AI without exec, as a
// `#!/bin/sh` wrapper of a Python AI does (before: PROTOCOL, "got EOF; player: exit status
// 152", as a real Python AI was graded in issue 48).
func TestStrategoLimitKillIsLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("whole grades: full mode only")
	}
	t.Parallel()
	setup := `printf '123344455s\n5566667777\n8888899999\n999BBBBBBF\n'`
	tests := []struct{ name, file, src, make string }{
		{"SIGXCPU", "ai.sh", "#!/bin/sh\nread colour rest\n" + setup + "\nwhile :; do :; done\n", "cp ai.sh ai && chmod 755 ai"},
		{"SIGKILL after SIGXCPU", "ai.c", `#include <signal.h>
#include <stdio.h>
int main(void) {
	char b[100];
	signal(SIGXCPU, SIG_IGN);
	if (!fgets(b, sizeof b, stdin)) return 1;
	printf("123344455s\n5566667777\n8888899999\n999BBBBBBF\n");
	fflush(stdout);
	for (volatile unsigned long i = 0;; i++) ;
}
`, "cc -o ai ai.c"},
		{"a wrapper's 152", "ai.sh", "#!/bin/sh\nread colour rest\n" + setup + "\nsh -c 'while :; do :; done'\n", "cp ai.sh ai && chmod 755 ai"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, tc.file), []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte("all:\n\t"+tc.make+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			suite := filepath.Join(t.TempDir(), "ai_cpu_limit.txtar")
			if err := os.WriteFile(suite, []byte(limitCase), 0o644); err != nil {
				t.Fatal(err)
			}
			_, rep, text := gradeRun(t, "stratego", "-suite", suite, "-cpu", "1s", dir)
			if len(rep.Cases) != 1 || rep.Cases[0].Verdict != grade.Limit || !strings.HasPrefix(rep.Cases[0].Detail, "cpu limit: ") {
				t.Fatalf("want one case, LIMIT with \"cpu limit: \"; report:\n%s", text)
			}
		})
	}
}

// Without -cpu, a Stratego case's programs may use the CPU time the protocol lets an AI
// think for (programs.StrategoCPU, over 1000 s), not the sandbox's 10 s: the AI here
// surrenders when its CPU limit is that (a legal answer) and moves a bomb otherwise.
func TestStrategoCPULimitIsTheProtocols(t *testing.T) {
	if testing.Short() {
		t.Skip("whole grades: full mode only")
	}
	t.Parallel()
	move := `if [ "$(ulimit -t)" -ge 1002 ]; then echo SURRENDER; elif [ "$colour" = RED ]; then echo "3 3 DOWN"; else echo "3 9 UP"; fi`
	_, rep, text := gradeRun(t, "stratego", "-run", "ai_game_red_vs_random_1", aiSubmission(t, shellAI(move, "exit 0")))
	if len(rep.Cases) != 1 || rep.Cases[0].Verdict != grade.Pass {
		t.Fatalf("want the one case PASS (ulimit -t at least 1002); report:\n%s", text)
	}
}

// The live fuzzer calls a program a limit ended a LIMIT, not a broken rule: its finding
// says the limit, and the case it writes does not say "broke a rule of the game" (before
// 2026-11-28 it did, for an AI killed by its CPU time as for one that moved a bomb). The
// AIs burn CPU after their setup, one itself (SIGXCPU) and one behind a shell that does
// not exec it (status 152); the step timeout is long so that only the limit can end them.
func TestLiveFuzzerNamesALimit(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzz campaigns: full mode only")
	}
	t.Parallel()
	gauntlet := buildtest.Path(t, "gauntlet/cmd/gauntlet")
	setup := `printf '123344455s\n5566667777\n8888899999\n999BBBBBBF\n'`
	for _, tc := range []struct{ name, script string }{
		{"SIGXCPU", "#!/bin/sh\nread colour rest\n" + setup + "\nwhile :; do :; done\n"},
		{"a wrapper's 152", "#!/bin/sh\nread colour rest\n" + setup + "\nsh -c 'while :; do :; done'\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			buildtest.SearchableByOthers(t, dir)
			ai := filepath.Join(dir, "burner")
			if err := os.WriteFile(ai, []byte(tc.script), 0o755); err != nil {
				t.Fatal(err)
			}
			var log strings.Builder
			found, err := livefuzz.Run(livefuzz.Options{Game: "stratego", Campaign: judgerun.Campaign{Program: ai, Seed: 3, Runs: 1,
				Out: t.TempDir(), Log: &log, Gauntlet: gauntlet, CPU: time.Second, StepTimeout: 2 * time.Minute}})
			if err != nil {
				t.Fatalf("%v\n%s", err, log.String())
			}
			if len(found) != 1 || found[0].Limit != limitkill.CPU || !strings.HasPrefix(found[0].Detail, "LIMIT (the CPU time limit): ") {
				t.Fatalf("want one finding, a CPU LIMIT; got %+v\n%s", found, log.String())
			}
			text, err := os.ReadFile(found[0].File)
			if err != nil {
				t.Fatal(err)
			}
			if first, _, _ := strings.Cut(string(text), "\n"); strings.Contains(first, "broke a rule") || !strings.Contains(first, "a LIMIT, not a broken rule") {
				t.Errorf("the case's first line: %s", first)
			}
		})
	}
}
