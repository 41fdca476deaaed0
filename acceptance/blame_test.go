package acceptance

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"gauntlet/harness/grading/grade"
)

// A dealer that starts player 0's program for every player (a real student's bug: the
// index of the program list left at 0) plays the spec session with two copies of player 0,
// so player 1's relay, which records what player 1 was sent, never runs. Its record
// missing is the dealer's doing: the case fails in the dealer's category, with no
// HARNESS-ERROR (issue 57: the case was a HARNESS-ERROR, "open $WORK/p1.rec", left out of
// the marks). The same dealer without the bug passes the case, so the failure is the bug's.
// The dealer is fixtures/cgame's, graded with its 2310A.
func TestDealerStartingPlayerZeroEverywhereLosesMarks(t *testing.T) {
	if testing.Short() {
		t.Skip("two grades of C programs: full mode only")
	}
	t.Parallel()
	_, here, _, _ := runtime.Caller(0)
	fixtures := filepath.Join(filepath.Dir(here), "..", "fixtures", "cgame")
	dealer, err := os.ReadFile(filepath.Join(fixtures, "dealer2310.c"))
	if err != nil {
		t.Fatal(err)
	}
	player, err := os.ReadFile(filepath.Join(fixtures, "player2310a.c"))
	if err != nil {
		t.Fatal(err)
	}
	const right, wrong = "execlp(progs[p], progs[p], ", "execlp(progs[0], progs[0], "
	if !strings.Contains(string(dealer), right) {
		t.Fatalf("the fixture's dealer no longer starts its players with %q", right)
	}
	const category = "dealer/games with 2310A players"
	for _, bug := range []bool{false, true} {
		src := string(dealer)
		if bug {
			src = strings.Replace(src, right, wrong, 1)
		}
		dir := t.TempDir()
		for name, text := range map[string]string{"dealer.c": src, "player.c": string(player),
			"Makefile": "all:\n\tcc -std=gnu99 -o 2310dealer dealer.c\n\tcc -std=gnu99 -o 2310A player.c\n\tcp 2310A 2310B\n"} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		status, rep, text := gradeRun(t, "dealer2310", "-run", "^game_spec_example_messages$", dir)
		got := verdicts(rep)["game_spec_example_messages@their-hub+ref-players"]
		for _, c := range rep.Cases {
			if c.Verdict == grade.HarnessError {
				t.Errorf("bug %v: %s: HARNESS-ERROR (%s): the dealer's doing must be charged to it", bug, c.Name(), c.Detail)
			}
		}
		var cat grade.CategoryReport
		for _, c := range rep.Categories {
			if c.Name == category {
				cat = c
			}
		}
		switch {
		case !bug && (got != grade.Pass || status != 0 && status != 1):
			t.Errorf("the dealer without the bug: %s, exit %d; want PASS\n%s", got, status, text)
		case bug && (got.Passed() || got == grade.HarnessError || cat.Cases != 1 || cat.Marks != 0 || marks(t, rep) >= rep.MaxMarks):
			t.Errorf("the dealer with the bug: %s, %s %+v; want a failure that costs its marks\n%s", got, category, cat, text)
		case bug:
			t.Logf("the dealer with the bug: %s, %s", got, rep.Cases[0].Detail)
		}
	}
}
