package blackbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gauntlet/internal/buildtest"
)

// cPlayer compiles fixtures/cgame/player2310a.c, a 2310A written in C for these tests, with
// the given macros defined (each PLANT_* one plants one bug, see the file's comment), once
// per checkout (buildtest.CProgram), and returns a copy of it named name.
func cPlayer(t *testing.T, name string, macros ...string) string {
	t.Helper()
	flags := []string{"-std=gnu99", "-O2"}
	for _, m := range macros {
		flags = append(flags, "-D"+m)
	}
	out := filepath.Join(t.TempDir(), name)
	if err := buildtest.CProgramAt(out, filepath.Join("..", "..", "fixtures", "cgame", "player2310a.c"), flags...); err != nil {
		t.Fatalf("these tests need the C player: %v", err)
	}
	return out
}

// fuzzC fuzzes one C player as a 2310A with every mutation, from a fixed seed: a campaign is
// deterministic, so the findings are the same at every run.
func fuzzC(t *testing.T, prog string, runs int) *Summary {
	t.Helper()
	sum, err := Run(Options{
		Game: game(t, "dealer2310"), Vars: vars(game(t, "dealer2310")), Role: RolePlayer, RefDir: refDir(t),
		Subjects: []Subject{{Path: prog, Ref: "2310A"}},
		Seed:     3, Runs: runs, Out: t.TempDir(),
		Minimise: Budget{Tries: 30, Time: 20 * time.Second},
		Verify:   true,
	})
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// A correct C player gives no finding: no difference from the reference comes from the
// oracle's platform (Go) rather than from the spec.
func TestCorrectCPlayer(t *testing.T) {
	t.Parallel()
	runs := 300
	if testing.Short() {
		runs = 20
	}
	sum := fuzzC(t, cPlayer(t, "correct"), runs)
	for _, gr := range sum.Groups {
		fd := sum.Findings[gr.Shortest]
		t.Errorf("rule [%s] %s: %s (%s)", gr.Rule.ID, gr.Rule.Words, fd.Sig, fd.Minimised)
	}
	// A case the reference cannot finish is skipped (on a loaded machine, one may be); most
	// must have been compared for "no finding" to mean anything.
	if sum.Runs != runs || sum.Skipped > runs/10 {
		t.Errorf("%d runs, %d skipped; want %d runs, almost none skipped", sum.Runs, sum.Skipped, runs)
	}
}

// Each C player with one planted bug gives exactly one group, the rule its bug breaks,
// however many runs hit it, and a verified regression file for it.
func TestPlantedBugsOneGroupEach(t *testing.T) {
	if testing.Short() {
		t.Skip("three fuzzing campaigns of seconds each: full mode only")
	}
	for _, tc := range []struct{ macro, rule string }{
		{"PLANT_EARLY_STATUS", "player/exit-5"},
		{"PLANT_ID_STATUS", "player/exit-3"},
		{"PLANT_STATUS_SPACE", "player/stderr/status"},
	} {
		t.Run(tc.macro, func(t *testing.T) {
			t.Parallel()
			sum := fuzzC(t, cPlayer(t, tc.macro, tc.macro), 150)
			if len(sum.Groups) != 1 {
				for _, gr := range sum.Groups {
					t.Logf("rule [%s] %s", gr.Rule.ID, gr.Rule.Words)
				}
				t.Fatalf("%d groups, want 1 (%s)", len(sum.Groups), tc.rule)
			}
			gr := sum.Groups[0]
			if gr.Rule.ID != tc.rule {
				t.Errorf("rule [%s] %s, want [%s]", gr.Rule.ID, gr.Rule.Words, tc.rule)
			}
			if gr.Runs < len(gr.Findings) || gr.Runs != len(sum.Findings)+sum.Duplicates {
				t.Errorf("the group counts %d runs, with %d findings and %d duplicates", gr.Runs, len(sum.Findings), sum.Duplicates)
			}
			if fd := sum.Findings[gr.Shortest]; fd.File == "" || fd.Verified != "" {
				t.Errorf("the smallest finding's regression file %q: %s", fd.File, fd.Verified)
			}
		})
	}
}

// A 2310A that never flushes its moves (the commonest student bug: a real game deadlocks)
// writes, by the end of each run, what the reference writes: the outputs alone would not
// tell. Its late replies are a finding of their own, the flush rule with its hint, from
// the first run; and since every run of it ends on a timeout, the summary says so.
func TestUnflushedPlayerBreaksTheFlushRule(t *testing.T) {
	buildtest.Long(t) // its runs wait out step timeouts
	t.Parallel()
	prog := cPlayer(t, "unflushed", "PLANT_NO_FLUSH")
	out := t.TempDir()
	var progress strings.Builder
	sum, err := Run(Options{
		Game: game(t, "dealer2310"), Vars: vars(game(t, "dealer2310")), Role: RolePlayer, RefDir: refDir(t),
		Subjects: []Subject{{Path: prog, Ref: "2310A"}},
		Seed:     3, Runs: 3, Out: out, StepTimeout: 500 * time.Millisecond, Verify: true,
		Progress: &progress,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Groups) != 1 || sum.Groups[0].Rule.ID != "player/flush" {
		for _, gr := range sum.Groups {
			t.Logf("rule [%s] %s", gr.Rule.ID, gr.Rule.Words)
		}
		t.Fatalf("%d rules broken, want the flush rule alone", len(sum.Groups))
	}
	fd := sum.Findings[0]
	if fd.Run != 0 || fd.Sig.Kind != KindLate || !strings.Contains(fd.Rule.Words, "fflush(stdout)") {
		t.Errorf("finding %+v", fd)
	}
	if fd.File == "" || fd.Verified != "" {
		t.Errorf("the regression file %q: %s", fd.File, fd.Verified)
	}
	// The runs whose case ends before the first move (bad arguments, a bad path) do not
	// wait; the others all time out.
	if 2*sum.TimedOut <= sum.Runs || !strings.Contains(sum.TimeoutNote(), fmt.Sprintf("most runs ended on a timeout (%d of %d)", sum.TimedOut, sum.Runs)) {
		t.Errorf("%d of %d runs timed out; note %q", sum.TimedOut, sum.Runs, sum.TimeoutNote())
	}
	if !strings.Contains(progress.String(), fmt.Sprintf("(most runs ended on a timeout: %d)", sum.TimedOut)) {
		t.Errorf("the progress line does not say most runs timed out: %q", progress.String())
	}
	text, err := os.ReadFile(filepath.Join(out, "summary.txt"))
	if err != nil || !strings.Contains(string(text), "note: most runs ended on a timeout") {
		t.Errorf("summary.txt (%v):\n%s", err, text)
	}
}
