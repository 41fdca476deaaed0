package dealer2310players_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"gauntlet/games/dealer2310"
	"gauntlet/internal/buildtest"
	"gauntlet/players/dealer2310players"
)

const fixtures = "../../fixtures/dealer2310"

var programs = []string{"2310A", "2310B"}

func bin(t testing.TB, name string) string {
	return filepath.Join(buildtest.Programs(t, "gauntlet/cmd/2310A", "gauntlet/cmd/2310B"), name)
}

type result struct {
	stdout, stderr string
	status         int
}

// run runs the built player prog with args and stdin (at most 20 s). Death by a signal
// fails the test.
func run(t *testing.T, prog string, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin(t, prog), args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer buildtest.KillAtBackstop(t, cmd.Process)()
	return finish(t, cmd.Wait(), out.String(), errb.String())
}

func finish(t *testing.T, err error, stdout, stderr string) result {
	t.Helper()
	r := result{stdout: stdout, stderr: stderr}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		if ws := ee.Sys().(syscall.WaitStatus); ws.Signaled() {
			t.Fatalf("player died by signal %v; stderr:\n%s", ws.Signal(), stderr)
		}
		r.status = ee.ExitCode()
	default:
		t.Fatal(err)
	}
	return r
}

func (r result) check(t *testing.T, stdout, stderr string, status int) {
	t.Helper()
	if r.status != status {
		t.Errorf("exit status %d, want %d", r.status, status)
	}
	if r.stdout != stdout {
		t.Errorf("stdout %q, want %q", r.stdout, stdout)
	}
	if r.stderr != stderr {
		t.Errorf("stderr:\n%s\nwant:\n%s", r.stderr, stderr)
	}
}

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtures, "spec", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const specPath = "7;::-Mo1V11V22Mo1Mo1::-"

// display0 is the spec path's display at the start of a 2-player game.
const display0 = ":: Mo V1 V2 Mo Mo :: \n1                    \n0                    \n"

// TestPlayerExits has cases for each row of the player's exit table, in the table's order,
// run against both built players: stdout, stderr and exit status exact.
func TestPlayerExits(t *testing.T) {
	usage := dealer2310.PlayerContract.Status(dealer2310.PlayerExitUsage).Stderr()
	count := dealer2310.PlayerContract.Status(dealer2310.PlayerExitCount).Stderr()
	id := dealer2310.PlayerContract.Status(dealer2310.PlayerExitID).Stderr()
	path := dealer2310.PlayerContract.Status(dealer2310.PlayerExitPath).Stderr()
	early := dealer2310.PlayerContract.Status(dealer2310.PlayerExitEarly).Stderr()
	comms := dealer2310.PlayerContract.Status(dealer2310.PlayerExitComms).Stderr()
	hap := "Player 1 Money=7 V1=1 V2=0 Points=0 A=0 B=0 C=0 D=0 E=0\n" +
		":: Mo V1 V2 Mo Mo :: \n0     1              \n"
	tests := []struct {
		name   string
		status int
		args   []string
		stdin  string
		stdout string
		stderr string
	}{
		{"DONE at once", dealer2310.PlayerExitOK, []string{"2", "0"}, specPath + "\nDONE\n", "^", display0 + "Scores: 0,0\n"},
		{"DONE without newline", dealer2310.PlayerExitOK, []string{"2", "0"}, specPath + "\nHAP1,2,0,0,0\nDONE", "^", display0 + hap + "Scores: 0,1\n"},
		{"no args", dealer2310.PlayerExitUsage, nil, "", "", usage},
		{"one arg", dealer2310.PlayerExitUsage, []string{"2"}, "", "", usage},
		{"three args", dealer2310.PlayerExitUsage, []string{"2", "0", "0"}, "", "", usage},
		{"count 0", dealer2310.PlayerExitCount, []string{"0", "0"}, "", "", count},
		{"count negative", dealer2310.PlayerExitCount, []string{"-1", "0"}, "", "", count},
		{"count letters", dealer2310.PlayerExitCount, []string{"two", "0"}, "", "", count},
		{"count trailing chars", dealer2310.PlayerExitCount, []string{"2x", "0"}, "", "", count},
		{"count empty", dealer2310.PlayerExitCount, []string{"", "0"}, "", "", count},
		{"count checked before id", dealer2310.PlayerExitCount, []string{"0", "x"}, "", "", count},
		{"id = count", dealer2310.PlayerExitID, []string{"2", "2"}, "", "", id},
		{"id negative", dealer2310.PlayerExitID, []string{"2", "-1"}, "", "", id},
		{"id letters", dealer2310.PlayerExitID, []string{"2", "a"}, "", "", id},
		{"id trailing chars", dealer2310.PlayerExitID, []string{"2", "1x"}, "", "", id},
		{"id empty", dealer2310.PlayerExitID, []string{"1", ""}, "", "", id},
		{"EOF before the path", dealer2310.PlayerExitPath, []string{"2", "0"}, "", "^", path},
		{"bad path", dealer2310.PlayerExitPath, []string{"2", "0"}, "7;::-Mo1V11V22Mo1Mo1\n", "^", path},
		{"path count wrong", dealer2310.PlayerExitPath, []string{"2", "0"}, "6;::-Mo1V11V22Mo1Mo1::-\n", "^", path},
		{"YT instead of the path", dealer2310.PlayerExitPath, []string{"2", "0"}, "YT\n", "^", path},
		{"EARLY", dealer2310.PlayerExitEarly, []string{"2", "0"}, specPath + "\nEARLY\n", "^", display0 + early},
		{"EARLY after a move", dealer2310.PlayerExitEarly, []string{"2", "0"}, specPath + "\nHAP1,2,0,0,0\nEARLY\n", "^", display0 + hap + early},
		{"EOF after the path", dealer2310.PlayerExitComms, []string{"2", "0"}, specPath + "\n", "^", display0 + comms},
		{"path without newline, then EOF", dealer2310.PlayerExitComms, []string{"2", "0"}, specPath, "^", display0 + comms},
		{"EOF after a move", dealer2310.PlayerExitComms, []string{"2", "0"}, specPath + "\nHAP1,2,0,0,0\n", "^", display0 + hap + comms},
		{"garbage", dealer2310.PlayerExitComms, []string{"2", "0"}, specPath + "\nhello\n", "^", display0 + comms},
		{"empty line", dealer2310.PlayerExitComms, []string{"2", "0"}, specPath + "\n\n", "^", display0 + comms},
		{"a player's message", dealer2310.PlayerExitComms, []string{"2", "0"}, specPath + "\nDO1\n", "^", display0 + comms},
		{"HAP malformed", dealer2310.PlayerExitComms, []string{"2", "0"}, specPath + "\nHAP1,2,0,0\n", "^", display0 + comms},
		{"HAP no such player", dealer2310.PlayerExitComms, []string{"2", "0"}, specPath + "\nHAP2,1,0,0,0\n", "^", display0 + comms},
		{"HAP no such site", dealer2310.PlayerExitComms, []string{"2", "0"}, specPath + "\nHAP1,7,0,0,0\n", "^", display0 + comms},
		{"EARLY with CRLF", dealer2310.PlayerExitComms, []string{"2", "0"}, specPath + "\nEARLY\r\n", "^", display0 + comms},
	}
	for i, tc := range tests {
		if i > 0 && tc.status < tests[i-1].status {
			t.Fatalf("case %q is out of the table's order", tc.name)
		}
		for _, prog := range programs {
			t.Run(prog+"/"+tc.name, func(t *testing.T) {
				run(t, prog, tc.stdin, tc.args...).check(t, tc.stdout, tc.stderr, tc.status)
			})
		}
	}
	for _, row := range dealer2310.PlayerContract {
		found := false
		for _, tc := range tests {
			found = found || tc.status == row.Status
		}
		if !found {
			t.Errorf("no case for row %d (%s)", row.Status, row.Condition)
		}
	}
}

// TestSpecPlayer0 feeds the built 2310A what the spec says player 0 received: it must send
// what the spec says it sent, and print on stderr what the dealer printed on stdout.
func TestSpecPlayer0(t *testing.T) {
	run(t, "2310A", fixture(t, "player0_stdin.golden"), "2", "0").
		check(t, fixture(t, "player0_stdout.golden"), fixture(t, "stdout.golden"), 0)
}

// TestGamesAsEachPlayer feeds every player of whole games (2310A and 2310B, 4 and 6
// players) what the dealer sends it, and checks what it sends and prints against the
// in-process model (whose moves are traced by hand in games/dealer2310).
func TestGamesAsEachPlayer(t *testing.T) {
	games := []struct {
		deck, path string
		players    []string
	}{
		{"5BCADE", "10;::-Mo2Do1V11::-::-Ri2V21Do2::-", []string{"2310A", "2310B", "2310A", "2310B"}},
		{"4BDCA", "8;::-Ri3Do2Mo2::-V23Ri2::-", []string{"2310A", "2310B", "2310B", "2310A", "2310B", "2310A"}},
		{"4ABCD", "5;::-Mo1Ri1V21::-", []string{"2310B"}},
	}
	for _, gm := range games {
		path, _ := dealer2310.ParsePath(gm.path)
		deck, _ := dealer2310.ParseDeck(gm.deck)
		var ss []dealer2310.Strategy
		for _, p := range gm.players {
			ss = append(ss, dealer2310.Strategies[p])
		}
		tr, err := dealer2310.Simulate(path, deck, ss)
		if err != nil {
			t.Fatal(err)
		}
		n := len(gm.players)
		for i, pt := range tr.Players {
			args := []string{strconv.Itoa(n), strconv.Itoa(i)}
			t.Run(gm.path+"/"+args[1], func(t *testing.T) {
				run(t, gm.players[i], pt.Stdin, args...).check(t, pt.Stdout, pt.Stderr, 0)
			})
		}
	}
}

// TestLostDealer: a player whose stdout is a closed pipe must not die of SIGPIPE; it
// notices the lost dealer by EOF and exits with a communications error.
func TestLostDealer(t *testing.T) {
	for _, prog := range programs {
		t.Run(prog, func(t *testing.T) {
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			pr.Close()
			cmd := exec.Command(bin(t, prog), "2", "0")
			cmd.Stdin = strings.NewReader(specPath + "\nYT\n")
			cmd.Stdout = pw
			var errb bytes.Buffer
			cmd.Stderr = &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pw.Close()
			finish(t, cmd.Wait(), "", errb.String()).check(t, "", display0+"Communications error\n", dealer2310.PlayerExitComms)
		})
	}
}

// TestRunInProcess checks the in-process form the mock player wraps.
func TestRunInProcess(t *testing.T) {
	var out, errb bytes.Buffer
	status := dealer2310players.Run(dealer2310.StrategyA, []string{"2", "0"}, strings.NewReader(fixture(t, "player0_stdin.golden")), &out, &errb)
	if status != 0 || out.String() != fixture(t, "player0_stdout.golden") || errb.String() != fixture(t, "stdout.golden") {
		t.Errorf("Run: status %d, stdout %q, stderr:\n%s", status, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	status = dealer2310players.Run(dealer2310.StrategyB, nil, strings.NewReader(""), &out, &errb)
	if status != 1 || out.Len() != 0 || errb.String() != "Usage: player pcount ID\n" {
		t.Errorf("Run without args: %d %q %q", status, out.String(), errb.String())
	}
}
