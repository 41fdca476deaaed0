package strategohub

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gauntlet/games/stratego"
	"gauntlet/harness/buildtest"
	"gauntlet/harness/execfile"
	"gauntlet/players/strategoplayers"
)

// The golden games (fixtures/stratego/golden, docs/stratego.md): fixed-seed games of the
// example AIs whose move logs and result lines were checked against the rules by an
// independent replay. The manager must print them byte for byte (-o stdout: every
// confirmation, then the result line), with the AIs given as paths ./KIND-SEED; the .red
// and .blue files are the setups those AIs make, which the replay started from.
func TestGoldenGames(t *testing.T) {
	dir := buildtest.Programs(t, "gauntlet/cmd/stratego-random", "gauntlet/cmd/stratego-hunter")
	games := []struct {
		name       string
		red, blue  string // KIND-SEED
		limit      string
		moves      int
		resultLine string
	}{
		{"flag-random1-random2", "random-1", "random-2", "5000", 10, "./random-2 BLUE VICTORY 5 144 148"},
		{"limit-random3-random4", "random-3", "random-4", "20", 38, "./random-4 BLUE DRAW_DEFAULT 20 144 142"},
		{"attrition-hunter3-random4", "hunter-3", "random-4", "5000", 272, "./hunter-3 RED VICTORY 136 76 0"},
		{"hunter-random5-hunter6", "random-5", "hunter-6", "5000", 434, "./hunter-6 BLUE VICTORY 217 0 67"},
	}
	fixtures, err := filepath.Abs(filepath.Join("..", "..", "fixtures", "stratego", "golden"))
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	for _, g := range games {
		for _, prog := range []string{g.red, g.blue} {
			kind, seed, _ := strings.Cut(prog, "-")
			body := "#!/bin/sh\nexec " + filepath.Join(dir, "stratego-"+kind) + " " + seed + "\n"
			if err := execfile.Write(filepath.Join(work, prog), []byte(body), 0o755); err != nil && !os.IsExist(err) {
				t.Fatal(err)
			}
		}
	}
	t.Chdir(work)
	for _, g := range games {
		golden := filepath.Join(fixtures, g.name)
		want, err := os.ReadFile(filepath.Join(golden + ".log"))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(want), "\n"), "\n")
		if len(lines) != g.moves+1 || lines[g.moves] != g.resultLine {
			t.Errorf("%s: the fixture has %d lines ending %q, want %d moves and %q", g.name, len(lines), lines[len(lines)-1], g.moves, g.resultLine)
		}
		var setups [2][]string
		for i, side := range []struct {
			ai     string
			colour stratego.Colour
			file   string
		}{{g.red, stratego.Red, ".red"}, {g.blue, stratego.Blue, ".blue"}} {
			kind, seed, _ := strings.Cut(side.ai, "-")
			n := uint64(seed[0] - '0')
			brain := strategoplayers.NewRandom(n)
			if kind == "hunter" {
				brain = strategoplayers.NewHunter(n)
			}
			setup, err := os.ReadFile(golden + side.file)
			setups[i] = strings.Fields(string(setup))
			if got := strings.Join(brain.Setup(side.colour).Lines(), "\n") + "\n"; err != nil || got != string(setup) {
				t.Errorf("%s: side %d's setup is\n%s, the fixture has\n%s (%v)", g.name, i, got, setup, err)
			}
		}
		limit, _ := strconv.Atoi(g.limit)
		if got, err := replay(setups[0], setups[1], lines[:len(lines)-1], limit, [2]string{"./" + g.red, "./" + g.blue}); err != nil || got != g.resultLine {
			t.Errorf("%s: the independent replay gives %q, %v; want %q", g.name, got, err, g.resultLine)
		}
		var out, errb bytes.Buffer
		status := Run([]string{"-m", g.limit, "-o", "stdout", "./" + g.red, "./" + g.blue}, strings.NewReader(""), &out, &errb)
		if status != 0 || out.String() != string(want) {
			t.Errorf("%s: exit %d, stdout differs from the golden log (first difference at line %d)\n%s", g.name, status, firstDiff(out.String(), string(want)), errb.String())
		}
	}
}

// firstDiff is the number (from 1) of the first line where a and b differ.
func firstDiff(a, b string) int {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return i + 1
		}
	}
	return min(len(la), len(lb)) + 1
}

// replay checks a golden log against the rules without the engine (games/stratego): an
// independent reading of docs/stratego.md, so that the golden files do not rest on the
// code they test. It starts from the two setups, checks that each line is a legal move of
// the side to move with the outcome the rules give, that the game ends exactly at the last
// line, and returns the result line the rules give for it.
func replay(red, blue []string, log []string, limit int, names [2]string) (string, error) {
	type sq struct {
		p    byte
		side int // 0 RED, 1 BLUE
	}
	rank := func(p byte) int {
		if p == 's' {
			return 10
		}
		return int(p - '0')
	}
	value := func(p byte) int {
		switch {
		case p == 's':
			return 1
		case p >= '1' && p <= '9':
			return 11 - int(p-'0')
		}
		return 0
	}
	board := map[[2]int]sq{}
	for i := range 4 {
		for x := range 10 {
			board[[2]int{x, i}] = sq{red[i][x], 0}
			board[[2]int{x, 6 + i}] = sq{blue[i][x], 1}
		}
	}
	lake := func(x, y int) bool { return (y == 4 || y == 5) && (x == 2 || x == 3 || x == 6 || x == 7) }
	movable := func(side int) bool {
		for _, s := range board {
			if s.side == side && s.p != 'B' && s.p != 'F' {
				return true
			}
		}
		return false
	}
	dirs := map[string][2]int{"UP": {0, -1}, "DOWN": {0, 1}, "LEFT": {-1, 0}, "RIGHT": {1, 0}}
	turn, moves := 0, 0
	var outcome string
	named, turns := 0, 0
	for _, line := range log {
		if outcome != "" {
			return "", fmt.Errorf("a move after the end: %q", line)
		}
		if line == "SURRENDER" {
			// The side to move gives up: the game ends in the turn of that move.
			outcome, named, turns = "SURRENDER", turn, moves/2+1
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 {
			return "", fmt.Errorf("not a move: %q", line)
		}
		x, errX := strconv.Atoi(f[0])
		y, errY := strconv.Atoi(f[1])
		if errX != nil || errY != nil {
			return "", fmt.Errorf("not a move: %q", line)
		}
		d, ok := dirs[f[2]]
		rest := f[3:]
		n := 1
		if k, err := strconv.Atoi(rest[0]); err == nil {
			n, rest = k, rest[1:]
		}
		from, there := board[[2]int{x, y}]
		if !ok || !there || from.side != turn || from.p == 'B' || from.p == 'F' || (n > 1 && from.p != '9') {
			return "", fmt.Errorf("illegal: %q", line)
		}
		tx, ty := x, y
		for step := 1; step <= n; step++ {
			tx, ty = tx+d[0], ty+d[1]
			_, full := board[[2]int{tx, ty}]
			if tx < 0 || tx > 9 || ty < 0 || ty > 9 || lake(tx, ty) || (step < n && full) {
				return "", fmt.Errorf("illegal path: %q", line)
			}
		}
		to, fight := board[[2]int{tx, ty}]
		delete(board, [2]int{x, y})
		thisTurn := moves/2 + 1
		moves++
		var want string
		a := string(from.p) + " " + string(to.p)
		switch {
		case !fight:
			want, board[[2]int{tx, ty}] = "OK", from
		case to.side == turn:
			return "", fmt.Errorf("onto its own piece: %q", line)
		case to.p == 'F':
			want, board[[2]int{tx, ty}] = "VICTORY_FLAG", from
			outcome, named, turns = "VICTORY", turn, thisTurn
		case to.p == 'B' && from.p == '8', to.p != 'B' && from.p == 's' && to.p == '1',
			to.p != 'B' && rank(from.p) < rank(to.p):
			want, board[[2]int{tx, ty}] = "KILLS "+a, from
		case to.p != 'B' && rank(from.p) == rank(to.p):
			want = "BOTHDIE " + a
			delete(board, [2]int{tx, ty})
		default:
			want = "DIES " + a
		}
		if got := strings.Join(rest, " "); got != want {
			return "", fmt.Errorf("%q: the rules give %q", line, want)
		}
		if outcome == "" {
			switch {
			case !movable(0) && !movable(1):
				outcome, named, turns = "DRAW", turn, thisTurn
			case !movable(1 - turn):
				outcome, named, turns = "VICTORY", turn, thisTurn
			case !movable(turn):
				outcome, named, turns = "VICTORY", 1-turn, thisTurn
			case moves >= 2*(limit-1):
				outcome, named, turns = "DRAW_DEFAULT", turn, moves/2+1
			}
		}
		turn = 1 - turn
	}
	if outcome == "" {
		return "", fmt.Errorf("the log ends before the game does")
	}
	var values [2]int
	for _, s := range board {
		values[s.side] += value(s.p)
	}
	return fmt.Sprintf("%s %s %s %d %d %d", names[named], [2]string{"RED", "BLUE"}[named], outcome, turns, values[0], values[1]), nil
}
