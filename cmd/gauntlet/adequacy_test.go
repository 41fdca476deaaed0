package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gauntlet/harness/grading/mutants"
)

func TestAdequacyUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"adequacy"}, {"adequacy", "stratego"}, {"adequacy", "-run", "x"},
		{"adequacy", "stlucia", "extra"}, {"adequacy", "stlucia", "-j", "0"},
	} {
		if code, _, stderr := gauntlet(args...); code != 2 || !strings.Contains(stderr, "usage: gauntlet adequacy") {
			t.Errorf("%q: exit %d, stderr %q; want 2 and the usage", args, code, stderr)
		}
	}
	if code, _, stderr := gauntlet("adequacy", "stlucia", "-run", "^nothing$"); code != 2 || !strings.Contains(stderr, "matches no mutant") {
		t.Errorf("-run matching nothing: exit %d, %q", code, stderr)
	}
	if code, stdout, _ := gauntlet("help", "adequacy"); code != 0 || !strings.Contains(stdout, "kill matrix") {
		t.Errorf("help adequacy: exit %d, %q", code, stdout)
	}
}

// gauntlet adequacy grades mutants and prints the kill matrix: on the built-in suite the
// silent exit on EARLY (issue 14) costs only comms-error marks and an accepted alternative
// survives (exit 0); on a suite whose path-output case still marks how the player ends
// after EARLY, the same mutant costs marks there too, which is blast radius (exit 1).
func TestAdequacyCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mutants and grades them: full mode only")
	}
	gauntletBinary(t)
	root, err := mutants.ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	if err := os.Chdir(root); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := gauntlet("adequacy", "dealer2310", "-run", "^(A-early-silent-exit-0|D-count-leading-zero)$")
	for _, want := range []string{
		"A-early-silent-exit-0              [2310A/comms errors] killed: 2310A/comms errors 4\n",
		"D-count-leading-zero: accepted alternative: ",
		"2 mutants, 1 killed, 1 survive; largest blast radius outside the mutant's categories: 0.00 marks",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q", want)
		}
	}
	if code != 0 || t.Failed() {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}

	// The path-output case as it was before issue 14: EARLY's exit 5 and message marked.
	data, err := os.ReadFile(filepath.Join(root, "testscripts", "dealer2310", "player_A_path_output_spec.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	old := strings.NewReplacer("cmpprefix stderr", "cmp stderr", "send \"EARLY\"\nend\n", "send \"EARLY\"\neof\nexit 5\n").Replace(string(data)) + "Early game over\n"
	suite := t.TempDir()
	os.WriteFile(filepath.Join(suite, "player_A_path_output_spec.txtar"), []byte(old), 0o644)
	early, _ := os.ReadFile(filepath.Join(root, "testscripts", "dealer2310", "player_A_early_mid_game.txtar"))
	os.WriteFile(filepath.Join(suite, "player_A_early_mid_game.txtar"), early, 0o644)
	code, stdout, stderr = gauntlet("adequacy", "dealer2310", "-suite", suite, "-run", "^A-early-silent-exit-0$")
	if code != 1 || !strings.Contains(stdout, "blast radius 2.00 marks: 2310A/comms errors 1, 2310A/initial path output 1") ||
		!strings.Contains(stderr, "problem: blast radius 2.00 marks outside 2310A/comms errors") {
		t.Fatalf("exit %d, want 1 and the blast radius\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}
