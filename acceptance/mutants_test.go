package acceptance

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gauntlet/harness/box/execfile"
	"gauntlet/harness/grading/grade"
	"gauntlet/harness/grading/mutants"
	"gauntlet/internal/buildtest"
	"gauntlet/programs"
	"gauntlet/testscripts"
)

// MutantsVar, set to "all" in the environment, makes the adequacy tests grade every mutant
// of each library on every case its program takes part in. Otherwise (go test ./..., full
// mode) they grade a sample that keeps the run short: the first mutant of each marking
// category (in library order) and every mutant that must survive (the accepted
// alternatives and the equivalent ones), each on the cases of its own categories alone
// (mutants.OwnCases), where it must be killed or show as PASS-LENIENT; its blast radius is
// measured with the whole library. The whole libraries take about 5 minutes on 2 cores.
const MutantsVar = "GAUNTLET_MUTANTS"

// SuiteVar, set to a folder of cases, makes the adequacy tests grade the mutants with those
// cases instead of the built-in suite (gauntlet grade -suite): how the blast radius of an
// older suite was measured. The test then also fails where that suite is inadequate.
const SuiteVar = "GAUNTLET_MUTANT_SUITE"

func selectMutants(lib []mutants.Mutant) []mutants.Mutant {
	if os.Getenv(MutantsVar) == "all" {
		return lib
	}
	seen := map[string]bool{}
	var out []mutants.Mutant
	for _, m := range lib {
		if !seen[m.Category] || m.Lenient || m.Equivalent != "" {
			out = append(out, m)
		}
		seen[m.Category] = true
	}
	return out
}

// checkLibrary grades mutants of a game's library (harness/grading/mutants), each as a submission
// made of the mutant alone on the cases where its program takes part in the marked run, and
// checks the suite's adequacy: every mutant is killed (but the accepted alternatives, which
// must pass with PASS-LENIENT, and the equivalent ones), and no mutant's failed marked cases
// lie outside its own categories and known spread. It logs the kill matrix.
func checkLibrary(t *testing.T, game string) {
	if testing.Short() {
		t.Skip("builds and grades mutants of the library: full mode only")
	}
	t.Parallel()
	lib := mutants.Library(game)
	names := map[string]bool{}
	for _, m := range lib {
		if names[m.Name] {
			t.Fatalf("mutant %q twice", m.Name)
		}
		names[m.Name] = true
	}
	root, err := mutants.ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	all := os.Getenv(MutantsVar) == "all"
	var cases []grade.Case
	if !all {
		cases = suiteCases(t, game)
	}
	var mu sync.Mutex
	var outs []mutants.Outcome
	t.Run("mutants", func(t *testing.T) {
		for _, m := range selectMutants(lib) {
			t.Run(m.Name, func(t *testing.T) {
				t.Parallel()
				filter := mutants.Filter(game, m.Prog)
				if !all {
					var err error
					if filter, err = mutants.OwnCases(m, cases, filter); err != nil {
						t.Fatal(err)
					}
				}
				dir := mutantSubmission(t, m, root)
				args := []string{"-no-build", "-j", "6", "-run", filter}
				if d := os.Getenv(SuiteVar); d != "" {
					args = append(args, "-suite", d)
				}
				_, rep, text := gradeRun(t, game, append(args, dir)...)
				o := mutants.Judge(m, rep)
				mu.Lock()
				outs = append(outs, o)
				mu.Unlock()
				for _, p := range o.Problems() {
					t.Error(p)
				}
				if t.Failed() {
					t.Logf("report:\n%s", text)
				}
			})
		}
	})
	t.Log(mutants.Matrix(game, outs))
}

// suiteCases are the cases the mutants of game are graded with: SuiteVar's, or the game's
// built-in suite (its registration's, or testscripts').
func suiteCases(t *testing.T, game string) []grade.Case {
	t.Helper()
	g, ok := programs.GradeGame(game)
	if !ok {
		t.Fatalf("no grade table for %s", game)
	}
	var fsys fs.FS = testscripts.FS
	dir := game
	if d := os.Getenv(SuiteVar); d != "" {
		fsys, dir = os.DirFS(d), "."
	} else if s, ok := programs.Suite(game); ok {
		fsys, dir = s, "."
	}
	cases, err := grade.LoadCases(fsys, dir, g.ProgramVars())
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestAdequacy grades the mutants of every game's library (see selectMutants), a subtest
// per game: the libraries come with the games' registrations. Among them, a tic-tac-toe
// referee that sees wins along rows only, which the suite's column and diagonal wins fail.
func TestAdequacy(t *testing.T) {
	games := mutants.Games()
	if len(games) == 0 {
		t.Fatal("no game registered a mutant library")
	}
	for _, game := range games {
		t.Run(game, func(t *testing.T) { checkLibrary(t, game) })
	}
}

// A dealer that takes a lost player for the end of the game (D-eof-exit-0), graded on the
// case where player 1 quits right after the path: the report shows what the dealer sent
// the quitting mock player and the reference player 0, and what they answered, in order,
// from the harness's record, and the JSON report has it.
func TestDealerMutantReportShowsTheSentLines(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a mutant dealer: full mode only")
	}
	t.Parallel()
	var m mutants.Mutant
	for _, x := range mutants.Library("dealer2310") {
		if x.Name == "D-eof-exit-0" {
			m = x
		}
	}
	root, err := mutants.ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := mutantSubmission(t, m, root)
	_, rep, text := gradeRun(t, "dealer2310", "-no-build", "-run", "^dealer_quit_after_handshake$", dir)
	// Each player's lines are in its own order; the two players' lines interleave by the
	// time each was seen, which varies: each is checked apart.
	for who, want := range map[string]string{
		"player 1": "hub -> player 1 | 7;::-Mo1V11V22Mo1Mo1::-\nplayer 1: fault (script line 1): after 1 exit 0\n",
		"player 0": "hub -> player 0 | YT\nplayer 0 -> hub | DO1\nhub -> player 0 | HAP0,1,0,3,0\nhub -> player 0 | EARLY\n",
	} {
		var own strings.Builder
		for _, l := range strings.Split(text, "\n") {
			if l = strings.TrimSpace(l); strings.HasPrefix(l, who+" ") || strings.HasPrefix(l, who+":") || strings.HasPrefix(l, "hub -> "+who+" ") {
				own.WriteString(l + "\n")
			}
		}
		if !strings.Contains(own.String(), want) {
			t.Errorf("the report does not show %s's\n%s\nin:\n%s", who, want, text)
		}
	}
	for _, c := range rep.Cases {
		if c.Pairing == "their-hub+ref-players" && !strings.Contains(c.Conversation, "hub -> player 1 | 7;::-Mo1V11V22Mo1Mo1::-\n") {
			t.Errorf("%s: %s, conversation %q", c.Name(), c.Verdict, c.Conversation)
		}
	}
}

// mutantSubmission builds mutant m from the module at root and returns a submission folder
// that holds it alone, under its program's name.
func mutantSubmission(t *testing.T, m mutants.Mutant, root string) string {
	t.Helper()
	bin, err := mutants.Build(m, root, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := execfile.Write(filepath.Join(dir, m.Prog), data, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// sighupMutantVar names, in the rootless rerun of TestDealerLeavingItsPlayersToTheBoxFailsSIGHUP,
// the submission folder the root run built the mutant into (the unprivileged user cannot
// build it: the module cache is root's).
const sighupMutantVar = "GAUNTLET_TEST_SIGHUP_MUTANT"

// A dealer whose SIGHUP handler kills an uninitialised pid, 0, which ends its whole process
// group, itself with its players (D-sighup-kills-pid-0, issue 57), leaves the dead players
// to the box's init, which reaps them as the dealer should have: nothing is left running
// and no zombie is seen, so only the box's count of what the dealer left it (sandbox's
// ProcResult.Orphans) fails it in the SIGHUP cases that ask for the players killed and
// reaped (run -reaped). Root and rootless: rootless, the killed players, the witness's
// execute-only stand-ins, are not dumpable, and the box's /proc hid them from its init,
// which counted none of those still exiting when the dealer ended (the mutant passed the
// three cases there) until the init counted in a /proc of its own (execrole's initProcs).
func TestDealerLeavingItsPlayersToTheBoxFailsSIGHUP(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a mutant dealer and grades it, root and rootless: full mode only")
	}
	dir, rerun := os.Getenv(sighupMutantVar), os.Getenv(sighupMutantVar) != ""
	if !rerun {
		var m mutants.Mutant
		for _, x := range mutants.Library("dealer2310") {
			if x.Name == "D-sighup-kills-pid-0" {
				m = x
			}
		}
		root, err := mutants.ModuleRoot(".")
		if err != nil {
			t.Fatal(err)
		}
		dir = mutantSubmission(t, m, root)
	}
	_, rep, text := gradeRun(t, "dealer2310", "-no-build", "-run", "^dealer_sighup_(during_handshake|four_players|mid_game)$", dir)
	ids := map[string]bool{}
	for _, c := range rep.Cases {
		if c.Pairing != "their-hub+ref-players" {
			continue // the players' pairings: the submission has none
		}
		ids[c.ID] = true
		if c.Verdict.Passed() || !strings.Contains(c.Detail, "without reaping") {
			t.Errorf("%s: %s (%s), want a failure for the players left to the box", c.Name(), c.Verdict, c.Detail)
		}
	}
	if len(ids) != 3 {
		t.Errorf("graded %d cases, want the 3 SIGHUP cases that ask for the players reaped:\n%s", len(ids), text)
	}
	if !rerun && os.Geteuid() == 0 {
		// Again by a grader that is not root (rootless boxes).
		buildtest.SearchableByOthers(t, dir)
		buildtest.AsUnprivilegedWith(t, []string{sighupMutantVar + "=" + dir}, "^TestDealerLeavingItsPlayersToTheBoxFailsSIGHUP$", "gauntlet/cmd/gauntlet")
	}
}
