package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A round robin of the two reference AIs: a line per game, the table, a saved file that
// makes a second run play nothing, and the CSV.
func TestTournament(t *testing.T) {
	exe := gauntletBinary(t)
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
	code, stdout, stderr := gauntlet(args...)
	if code != 0 || strings.Count(stdout, "\n[") != 3 || !strings.Contains(stdout, "[4/4]") || !strings.Contains(stdout, "1    "+ais[0]) {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, _ = gauntlet(args...)
	if code != 0 || strings.Contains(stdout, "[") {
		t.Errorf("a second run with the same -save played games again:\n%s", stdout)
	}
	if b, err := os.ReadFile(csv); err != nil || !strings.HasPrefix(string(b), "rank,program,games") {
		t.Errorf("csv: %q %v", b, err)
	}
	if code, _, _ := gauntlet("tournament", "stratego", ais[0]); code != 2 {
		t.Errorf("one AI: exit %d, want 2", code)
	}
}
