package acceptance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gauntlet/fuzz/judgerun"
	"gauntlet/harness/box/execfile"
	"gauntlet/harness/grading/grade"
	"gauntlet/internal/buildtest"
	"gauntlet/judges/refereefuzz"
)

// The referee suite fails a tic-tac-toe referee that accepts a move onto an occupied cell
// (a mutant of the reference built with go build -overlay), and the player suite fails a
// connect-four player that ignores no_last_move (it reads a last move before each board).
func TestRefereeSuitesFailBadPrograms(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a mutant and grades: full mode only")
	}
	t.Parallel()
	t.Run("referee accepting an occupied cell", func(t *testing.T) {
		bin := mutant(t, "gauntlet/cmd/gauntlet", "games/referee/games.go",
			"if !ok || p != t.Turn || t.Cells[i] != 0 || t.winner() >= 0 {",
			"if !ok || p != t.Turn || t.winner() >= 0 {")
		dir := binarySubmission(t, bin, "ttt-referee")
		_, rep, text := gradeRun(t, "referee", "-run", "^ttt_referee_", dir)
		got := verdicts(rep)
		if v := got["ttt_referee_occupied"]; v.Passed() || v == grade.HarnessError || v == "" {
			t.Errorf("ttt_referee_occupied: %s, want a failure\n%s", v, text)
		}
		if v := got["ttt_referee_x_wins"]; !v.Passed() {
			t.Errorf("ttt_referee_x_wins: %s: the mutant's other verdicts are right\n%s", v, text)
		}
	})
	t.Run("player ignoring no_last_move", func(t *testing.T) {
		// It reads a "last move" line and then the 6 rows, so it is one line out of step
		// from its first turn: it waits for a seventh line that never comes.
		player := `#!/bin/sh
while read last; do
  i=0; while [ $i -lt 6 ]; do read row || exit 0; i=$((i+1)); done
  echo 3
done
`
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "p.sh"), []byte(player), 0o644)
		os.WriteFile(filepath.Join(dir, "Makefile"), []byte("all:\n\tcp p.sh c4-player && chmod 755 c4-player\n"), 0o644)
		_, rep, text := gradeRun(t, "referee", "-run", "^c4_player_", dir)
		for id, v := range verdicts(rep) {
			if v.Passed() || v == grade.HarnessError {
				t.Errorf("%s: %s, want a failure\n%s", id, v, text)
			}
		}
	})
}

// A referee of a game gauntlet does not know, written from docs/referee.md alone (the Nim
// referee of judges/refereejudges/testdata, a shell script), is graded with marks
// by category: full marks on the protocol/ cases. Three mutants of it each lose the marks
// of their own category only: one that accepts an illegal move the second time it is sent
// in the same position (it keeps a file per move in its working folder), one whose scores
// line is malformed, and one that never sends write_end.
func TestAnyRefereeIsGraded(t *testing.T) {
	if testing.Short() {
		t.Skip("grades submissions: full mode only")
	}
	t.Parallel()
	src, err := os.ReadFile("../judges/refereejudges/testdata/nim-referee/referee.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, old, new, category string
	}{
		{"Nim referee", "", "", ""},
		{"an illegal move accepted the second time", "\t\techo invalid; end_block; continue\n\tfi",
			"\t\tf=\"nim-seen-$PPID-$h0$h1$h2-$2-$3\"\n\t\tif [ -e \"$f\" ]; then left=$3; else : >\"$f\"; echo invalid; end_block; continue; fi\n\tfi",
			"protocol/consistency"},
		{"scores malformed", `echo "$s0 $s1"`, `echo "$s0,$s1"`, "protocol/scores"},
		{"no write_end", `end_block() { echo write_end; }`, `end_block() { :; }`, "protocol/blocks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			script := string(src)
			if tc.old != "" {
				if strings.Count(script, tc.old) != 1 {
					t.Fatalf("the text to change is not in the referee once: %q", tc.old)
				}
				script = strings.Replace(script, tc.old, tc.new, 1)
			}
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "referee.sh"), []byte(script), 0o644)
			os.WriteFile(filepath.Join(dir, "Makefile"), []byte("all:\n\tcp referee.sh referee && chmod 755 referee\n"), 0o644)
			_, rep, text := gradeRun(t, "referee", "-run", "^referee_protocol_", dir)
			graded := 0
			for _, c := range rep.Cases {
				graded++
				if want := c.Category != tc.category; c.Verdict.Passed() != want || c.Verdict == grade.HarnessError {
					t.Errorf("%s [%s]: %s (%s), want passed %v", c.ID, c.Category, c.Verdict, c.Detail, want)
				}
			}
			if graded != 6 {
				t.Errorf("%d cases graded, want the 6 protocol cases\n%s", graded, text)
			}
			if t.Failed() {
				t.Logf("report:\n%s", text)
			}
		})
	}
}

// gauntlet fuzz referee finds nothing in the Nim referee, and finds a mutant whose scores
// line is malformed, writing a case of the protocol/scores category.
func TestRefereeFuzzerFindsMutants(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzz campaigns: full mode only")
	}
	t.Parallel()
	gauntlet := buildtest.Path(t, "gauntlet/cmd/gauntlet")
	src, err := os.ReadFile("../judges/refereejudges/testdata/nim-referee/referee.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, script, category string
	}{
		{"Nim referee", string(src), ""},
		{"scores malformed", strings.Replace(string(src), `echo "$s0 $s1"`, `echo "$s0,$s1"`, 1), "protocol/scores"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			prog := filepath.Join(dir, "referee")
			if err := execfile.Write(prog, []byte(tc.script), 0o755); err != nil {
				t.Fatal(err)
			}
			os.Chmod(dir, 0o755)
			var log strings.Builder
			found, err := refereefuzz.Run(judgerun.Campaign{Program: prog, Seed: 3, Runs: 4, Out: t.TempDir(), Log: &log, Gauntlet: gauntlet})
			if err != nil {
				t.Fatalf("%v\n%s", err, log.String())
			}
			if (len(found) > 0) != (tc.category != "") {
				t.Fatalf("%d findings, want some: %v\n%s", len(found), tc.category != "", log.String())
			}
			for _, f := range found {
				text, err := os.ReadFile(f.File)
				if err != nil || !strings.Contains(string(text), "# category: "+tc.category+"\n") {
					t.Errorf("%s: not a case of %s (%v):\n%s", f.File, tc.category, err, text)
				}
			}
		})
	}
}
