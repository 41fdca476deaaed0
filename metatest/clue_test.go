package metatest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gauntlet/harness/grade"
)

// The Clue suites fail a client mutant whose board lets it walk through walls (PROTOCOL,
// the move named as unreachable), and a server mutant that skips the first player who could
// disprove a suggestion.
func TestClueSuitesFailMutants(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mutants and grades them: full mode only")
	}
	tests := []struct {
		name, pkg, prog, file, old, new, cases, category, detail string
	}{
		{"client walks through walls", "gauntlet/cmd/clue-strong", "clue-client", "games/clue/board.go",
			"return b == '.' || b >= 'a' && b <= 'z'", "return b == '.' || b == '#' || b >= 'a' && b <= 'z'",
			"^client_game", "client/play", "cannot be reached"},
		{"server skips a disprover", "gauntlet/cmd/clue-server", "clue-server", "games/clue/game.go",
			"for i := 1; i < Tokens; i++ {\n\t\td := (t + i) % Tokens", "for i := 2; i < Tokens; i++ {\n\t\td := (t + i) % Tokens",
			"^server_game", "server/games", "FAIL at step"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bin := mutant(t, tc.pkg, tc.file, tc.old, tc.new)
			dir := t.TempDir()
			data, _ := os.ReadFile(bin)
			os.WriteFile(filepath.Join(dir, "prog.bin"), data, 0o755)
			os.WriteFile(filepath.Join(dir, "Makefile"), []byte("all:\n\tcp prog.bin "+tc.prog+"\n"), 0o644)
			_, rep, text := gradeRun(t, "clue", "-run", tc.cases, dir)
			failed := 0
			for _, c := range rep.Cases {
				if c.Category != tc.category {
					continue
				}
				if !c.Verdict.Passed() {
					failed++
					if c.Verdict != grade.Protocol || !strings.Contains(c.Detail, tc.detail) {
						t.Errorf("%s: %s (%s), want PROTOCOL mentioning %q", c.ID, c.Verdict, c.Detail, tc.detail)
					}
				}
			}
			if failed == 0 {
				t.Errorf("the mutant passed every %s case", tc.category)
			}
			t.Logf("%s: %d cases of %s failed", tc.name, failed, tc.category)
			if t.Failed() {
				t.Logf("report:\n%s", text)
			}
		})
	}
}
