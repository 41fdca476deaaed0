package blackbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gauntlet/harness/box/execfile"
	"gauntlet/internal/buildtest"
)

// gauntlet runs the built gauntlet binary and returns its stdout, stderr and exit status.
func gauntlet(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	status, stdout, stderr := buildtest.RunBuilt(t, "gauntlet/cmd/gauntlet", args...)
	return stdout, stderr, status
}

// TestCLIHelp: --help names every flag, every mutation and fault, and the exit statuses.
func TestCLIHelp(t *testing.T) {
	out, _, status := gauntlet(t, "fuzz", "--help")
	if status != 0 {
		t.Fatalf("--help exits %d", status)
	}
	words := []string{"-role", "-ref", "-seed", "-runs", "-time", "-out", "-mutate", "-step-timeout",
		"-timeout", "-min-tries", "-min-time", "-no-verify", "Exit status:\n0 when nothing failed, 10 + N when N rules were broken", "stlucia", "dealer2310"}
	words = append(words, PlayerMutations...)
	words = append(words, HubFaults...)
	for _, w := range words {
		if !strings.Contains(out, w) {
			t.Errorf("--help does not mention %q", w)
		}
	}
	if out2, _, _ := gauntlet(t, "fuzz", "stlucia", "-h"); out2 != out {
		t.Error("-h after the game differs from --help")
	}
	main, _, _ := gauntlet(t, "help")
	if !strings.Contains(main, "fuzz GAME -role hub|player") {
		t.Error("gauntlet help does not list fuzz")
	}
}

// TestCLIUsageErrors: every usage error exits 2 with a message.
func TestCLIUsageErrors(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "EAIT")
	if err := execfile.Write(prog, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "myplayer")
	if err := execfile.Write(other, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := [][]string{
		{"fuzz"},
		{"fuzz", "--role", "player", prog},
		{"fuzz", "nosuchgame", "--role", "player", prog},
		{"fuzz", "stlucia", "--role", "player"},
		{"fuzz", "stlucia", "--role", "both", prog},
		{"fuzz", "stlucia", prog},
		{"fuzz", "stlucia", "--role", "player", other},
		{"fuzz", "stlucia", "--role", "player", "--ref", "2310A", prog},
		{"fuzz", "stlucia", "--role", "player", "--mutate", "hang", prog},
		{"fuzz", "stlucia", "--role", "hub", prog, prog},
		{"fuzz", "stlucia", "--role", "player", "--runs", "-1", prog},
		{"fuzz", "stlucia", "--role", "player", "--bogus", prog},
		{"fuzz", "stlucia", "--role", "player", filepath.Join(dir, "missing")},
		{"fuzz", "stlucia", "--role", "player", prog, "--runs", "3"},
	}
	for _, args := range tests {
		out, errs, status := gauntlet(t, args...)
		if status != 2 || !strings.Contains(errs, "gauntlet fuzz: ") {
			t.Errorf("%q: status %d, stdout %q, stderr %q", args, status, out, errs)
		}
	}
}

// TestCLIRuns: a run on the reference finds nothing (exit 0) and one on a buggy player finds
// its bug, one broken rule (exit 11: 10 + the number of rules), both reproducible from the seed printed, with no progress line when
// stdout is not a terminal.
func TestCLIRuns(t *testing.T) {
	buildtest.Long(t)
	dir := t.TempDir()
	eait := filepath.Join(dir, "EAIT")
	if err := os.Symlink(buildtest.Path(t, "gauntlet/cmd/gauntlet"), eait); err != nil {
		t.Fatal(err)
	}
	out, errs, status := gauntlet(t, "fuzz", "stlucia", "--role", "player", "--seed", "3", "--runs", "10", "--out", filepath.Join(dir, "ok"), eait)
	if status != 0 || !strings.Contains(out, "-seed 3") || !strings.Contains(out, "10 runs in ") || strings.Contains(out, "\r") {
		t.Errorf("reference: status %d\n%s%s", status, out, errs)
	}
	buggy := buildtest.Path(t, "gauntlet/fuzz/testdata/buggyeait")
	found := filepath.Join(dir, "found")
	out, errs, status = gauntlet(t, "fuzz", "stlucia", "--role", "player", "--ref", "EAIT", "--seed", "1", "--runs", "30",
		"--mutate", "boundary", "--min-tries", "100", "--out", found, buggy)
	if status != 11 || !strings.Contains(out, "FAIL buggyeait (run ") || !strings.Contains(out, "): CRASH: subject killed by SIGSEGV") ||
		!strings.Contains(out, ": 1 rules broken (1 failures") || !strings.Contains(out, "rule 1 [player/exit-5/a-message-names-only-players-of] broken by buggyeait: Invalid message from stlucia: exit 5 with \"Bad message from StLucia\"; the line it refused breaks: a message names only players of the game") {
		t.Errorf("buggy: status %d\n%s%s", status, out, errs)
	}
	files, _ := filepath.Glob(filepath.Join(found, "*.txtar"))
	if len(files) != 1 || !strings.HasSuffix(files[0], "fuzz_player_eait_crash_1.txtar") {
		t.Errorf("regression files %q", files)
	}
	if _, err := os.Stat(filepath.Join(found, "summary.txt")); err != nil {
		t.Error(err)
	}
}
