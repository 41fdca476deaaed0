package metatest

import (
	"os"
	"path/filepath"
	"testing"

	"gauntlet/harness/grade"
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
