package stluciaplayers_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"gauntlet/games/stlucia"
	"gauntlet/internal/buildtest"
	"gauntlet/players/stluciaplayers"
)

const fixtures = "../../fixtures/stlucia"

var names = []string{"EAIT", "SCIENCE", "HABS", "HASS", "MABS"}

func bin(t testing.TB, name string) string {
	return filepath.Join(buildtest.Programs(t, "gauntlet/cmd/EAIT", "gauntlet/cmd/SCIENCE",
		"gauntlet/cmd/HABS", "gauntlet/cmd/HASS", "gauntlet/cmd/MABS"), name)
}

// run runs a player binary with args and stdin, and returns stdout, stderr and status.
func run(t *testing.T, prog string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return out.String(), errb.String(), 0
	case errors.As(err, &ee):
		if ws := ee.Sys().(syscall.WaitStatus); ws.Signaled() {
			t.Fatalf("%s died by signal %v", prog, ws.Signal())
		}
		return out.String(), errb.String(), ee.ExitCode()
	}
	t.Fatal(err)
	return "", "", 0
}

func row(st int) string { return stlucia.PlayerContract.Status(st).Stderr() }

// TestPlayerExitTable runs every row of the player's exit table against each of the five
// built players: exact stdout, stderr and status.
func TestPlayerExitTable(t *testing.T) {
	t.Parallel() // its subtests wait on their players: the package goes on meanwhile
	tests := []struct {
		name   string
		args   []string
		stdin  string
		stdout string
		stderr string
		status int
	}{
		{"0 winner", []string{"2", "A"}, "winner B\n", "!", "From StLucia:winner B\n", 0},
		{"0 shutdown", []string{"3", "C"}, "rolled A 123HAP\nshutdown\nturn 111111\n", "!",
			"From StLucia:rolled A 123HAP\nFrom StLucia:shutdown\n", 0},
		{"0 own eliminated", []string{"3", "B"}, "eliminated A\neliminated B\nwinner C\n", "!",
			"From StLucia:eliminated A\nFrom StLucia:eliminated B\n", 0},
		{"0 winner without newline", []string{"2", "B"}, "winner A", "!", "From StLucia:winner A\n", 0},
		{"1 no arguments", nil, "", "", row(1), 1},
		{"1 one argument", []string{"2"}, "", "", row(1), 1},
		{"1 three arguments", []string{"2", "A", "x"}, "", "", row(1), 1},
		{"2 count 1", []string{"1", "A"}, "", "", row(2), 2},
		{"2 count 27", []string{"27", "A"}, "", "", row(2), 2},
		{"2 count not a number", []string{"two", "A"}, "", "", row(2), 2},
		{"2 before a bad ID", []string{"x", "x"}, "", "", row(2), 2},
		{"3 ID beyond count", []string{"2", "C"}, "", "", row(3), 3},
		{"3 lowercase ID", []string{"2", "a"}, "", "", row(3), 3},
		{"3 long ID", []string{"26", "AB"}, "", "", row(3), 3},
		{"4 EOF at once", []string{"2", "A"}, "", "!", row(4), 4},
		{"4 EOF mid-game", []string{"2", "B"}, "rolled A 111HAP\npoints A 1\n", "!",
			"From StLucia:rolled A 111HAP\nFrom StLucia:points A 1\n" + row(4), 4},
		{"4 others' eliminated is not the end", []string{"3", "B"}, "eliminated C\n", "!",
			"From StLucia:eliminated C\n" + row(4), 4},
		{"5 garbage", []string{"2", "A"}, "hello\n", "!", "From StLucia:hello\n" + row(5), 5},
		{"5 unsorted dice", []string{"2", "A"}, "turn 1H2AAP\n", "!", "From StLucia:turn 1H2AAP\n" + row(5), 5},
		{"5 empty line", []string{"2", "A"}, "\n", "!", "From StLucia:\n" + row(5), 5},
		{"5 label outside the game", []string{"2", "A"}, "claim C\n", "!", "From StLucia:claim C\n" + row(5), 5},
		{"5 after good lines", []string{"2", "A"}, "claim B\npoints B 1\nattacks B 2 sideways\n", "!",
			"From StLucia:claim B\nFrom StLucia:points B 1\nFrom StLucia:attacks B 2 sideways\n" + row(5), 5},
		{"5 line too long", []string{"2", "A"}, strings.Repeat("x", 1<<20+1) + "\n", "!", row(5), 5},
	}
	for _, name := range names {
		for _, tc := range tests {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				out, errs, st := run(t, bin(t, name), tc.stdin, tc.args...)
				if out != tc.stdout || errs != tc.stderr || st != tc.status {
					t.Errorf("stdout %q stderr %q status %d; want %q %q %d", out, errs, st, tc.stdout, tc.stderr, tc.status)
				}
			})
		}
	}
}

// TestHandTracedConversation feeds the HABS binary player C's side of the hand-traced game
// (fixtures golden hand3_C_*) and checks its replies and its stderr echo.
func TestHandTracedConversation(t *testing.T) {
	in, err := os.ReadFile(filepath.Join(fixtures, "golden", "hand3_C_stdin.golden"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(fixtures, "golden", "hand3_C_stdout.golden"))
	if err != nil {
		t.Fatal(err)
	}
	out, errs, st := run(t, bin(t, "HABS"), string(in), "3", "C")
	var echo strings.Builder
	for _, l := range strings.SplitAfter(string(in), "\n") {
		if l != "" {
			echo.WriteString("From StLucia:" + l)
		}
	}
	if out != "!"+string(want) || errs != echo.String() || st != 0 {
		t.Errorf("stdout %q\nstderr %q\nstatus %d", out, errs, st)
	}
}

// TestStrategyReplies checks that each binary answers with its own strategy.
func TestStrategyReplies(t *testing.T) {
	// Player A of 3 at full health while B holds StLucia: its dice are 13HAPP three times,
	// then it is asked stay? (a player answers stay? whenever asked).
	in := "claim B\nturn 13HAPP\nrerolled 13HAPP\nrerolled 13HAPP\nstay?\nshutdown\n"
	want := map[string]string{
		"EAIT":    "!reroll 13HAPP\nreroll 13HAPP\nkeepall\nstay\n",
		"SCIENCE": "!reroll 13HPP\nreroll 13HPP\nkeepall\ngo\n",
		"HABS":    "!keepall\nkeepall\nkeepall\nstay\n",
		"HASS":    "!reroll 13HAPP\nreroll 13HAPP\nkeepall\nstay\n",
		"MABS":    "!reroll 1APP\nreroll 1APP\nkeepall\ngo\n",
	}
	for _, name := range names {
		out, _, st := run(t, bin(t, name), in, "3", "A")
		if out != want[name] || st != 0 {
			t.Errorf("%s: stdout %q status %d, want %q", name, out, st, want[name])
		}
	}
}

// TestPlayerSurvivesClosedStdout: a player whose replies cannot be written (the hub's end of
// the pipe is closed) must not die of SIGPIPE; it notices the loss at EOF (exit 4).
func TestPlayerSurvivesClosedStdout(t *testing.T) {
	for _, name := range names {
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		pr.Close()
		cmd := exec.Command(bin(t, name), "2", "A")
		cmd.Stdin = strings.NewReader("turn 123HAP\nrerolled 123HAP\n")
		cmd.Stdout = pw
		err = cmd.Run()
		pw.Close()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signaled() || ee.ExitCode() != 4 {
			t.Errorf("%s with a closed stdout: %v, want exit status 4", name, err)
		}
	}
}

// TestRunInProcess drives Run directly, as the CLI will.
func TestRunInProcess(t *testing.T) {
	var out, errs bytes.Buffer
	st := stluciaplayers.Run(stlucia.HASS, []string{"2", "B"}, strings.NewReader("claim A\nturn 1AAAPP\nwinner A\n"), &out, &errs)
	if st != 0 || out.String() != "!reroll 1AAAPP\n" ||
		errs.String() != "From StLucia:claim A\nFrom StLucia:turn 1AAAPP\nFrom StLucia:winner A\n" {
		t.Errorf("status %d stdout %q stderr %q", st, out.String(), errs.String())
	}
}
