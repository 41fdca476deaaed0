package strategohub

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gauntlet/harness/box/execfile"
	"gauntlet/internal/buildtest"
)

// The golden games (fixtures/stratego/golden, docs/stratego.md "Golden games"): games of
// the example AIs with fixed seeds, and AIs that send fixed setups, each NAME.log being the
// -o log the 2012 manager wrote for it (its setup blocks, a line a move, the line saying
// why the game ended, the result line), run on the real 2012 manager. The manager must
// write the same log byte for byte and print its last line; the independent replay below
// (apart from the engine) agrees with every played game's moves and end. The AIs are given
// as the paths ./KIND-SEED (a script running stratego-KIND SEED) or ./rows-NAME (a script
// sending goldenRows[NAME]), as they were to the 2012 manager.
var goldenGames = []struct {
	name      string
	red, blue string
	limit     string
}{
	{"flag-random1-random2", "random-1", "random-2", "5000"},             // BLUE takes the flag in turn 5
	{"flag-random7-random8", "random-7", "random-8", "5000"},             // RED takes the flag
	{"limit-random3-random4", "random-3", "random-4", "20"},              // DRAW_DEFAULT at the limit, BLUE named
	{"attrition-hunter3-random4", "hunter-3", "random-4", "5000"},        // BLUE's own move (turn 136) leaves it no movable piece: RED wins in turn 137
	{"attrition-random87-random88", "random-87", "random-88", "5000"},    // the same, turn 693: RED wins in turn 694
	{"limit-random87-random88", "random-87", "random-88", "694"},         // the same game when turn 694 is the limit: BLUE DRAW_DEFAULT
	{"hunter-random5-hunter6", "random-5", "hunter-6", "5000"},           // BLUE kills RED's last movable piece
	{"attrition-hunter29-random30", "hunter-29", "random-30", "5000"},    // RED kills BLUE's last movable piece
	{"attrition-random15-hunter16", "random-15", "hunter-16", "5000"},    // RED's own move loses its last movable piece: BLUE wins in that turn
	{"surrender-hunter33-random34", "hunter-33", "random-34", "5000"},    // BLUE surrenders
	{"draw-hunter301-random302", "hunter-301", "random-302", "5000"},     // BLUE's move leaves neither side a movable piece: DRAW, BLUE named
	{"draw-random1157-random1158", "random-1157", "random-1158", "5000"}, // RED's move does: DRAW, RED named
	{"limit1-random1-random2", "random-1", "random-2", "1"},              // -m 1: DRAW_DEFAULT before any move, RED named
	{"limit2-random1-random2", "random-1", "random-2", "2"},              // -m 2: BLUE named
	{"limit0-random1-random2", "random-1", "random-2", "0"},              // -m 0: as -m 1
	{"dot-end-random2", "rows-dotend", "random-2", "5000"},               // '.' ends RED's first row: the rest is placed (0 145 148)
	{"dot-start-random2", "rows-dotstart", "random-2", "5000"},           // '.' starts it (0 143 148)
	{"random1-dot-marshal", "random-1", "rows-dotmarshal", "5000"},       // BLUE's '.' for its marshal (0 148 138)
	{"badboth", "rows-junk", "rows-junk", "5000"},                        // both bad: neither BOTH, BOTH's line before the blocks
	{"marshals-random2", "rows-marshals", "random-2", "5000"},            // ten marshals: the first stays (0 10 148)
}

// goldenRows are the setups of the ./rows-NAME AIs.
var goldenRows = map[string]string{
	"dotend":     "6139B5769. 5B8B4696B9 8B52s797B9 395789844F",
	"dotstart":   ".139B57698 5B8B4696B9 8B52s797B9 395789844F",
	"dotmarshal": ".23344455s 5566667777 8888899999 999BBBBBBF",
	"junk":       "XXXXXXXXXX XXXXXXXXXX XXXXXXXXXX XXXXXXXXXX",
	"marshals":   "1111111111 5566667777 8888899999 999BBBBBBF",
}

func TestGoldenGames(t *testing.T) {
	dir := buildtest.Programs(t, "gauntlet/cmd/stratego-random", "gauntlet/cmd/stratego-hunter")
	fixtures, err := filepath.Abs(filepath.Join("..", "..", "fixtures", "stratego", "golden"))
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	for _, g := range goldenGames {
		for _, prog := range []string{g.red, g.blue} {
			kind, arg, _ := strings.Cut(prog, "-")
			body := "exec " + filepath.Join(dir, "stratego-"+kind) + " " + arg + "\n"
			if kind == "rows" {
				// The rows, then QUIT awaited: these setups all end the game.
				body = "read q; for r in " + goldenRows[arg] + "; do echo \"$r\"; done; while read l; do case \"$l\" in QUIT*) exit 0;; esac; done\n"
			}
			if err := execfile.Write(filepath.Join(work, prog), []byte("#!/bin/sh\n"+body), 0o755); err != nil && !os.IsExist(err) {
				t.Fatal(err)
			}
		}
	}
	t.Chdir(work) // the AIs' paths are ./KIND-SEED, as given to the 2012 manager
	for _, g := range goldenGames {
		t.Run(g.name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(fixtures, g.name+".log"))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(string(want), "\n"), "\n")
			result := lines[len(lines)-1]
			names := [2]string{"./" + g.red, "./" + g.blue}
			if !strings.HasPrefix(g.red, "rows-") && !strings.HasPrefix(g.blue, "rows-") {
				limit, _ := strconv.Atoi(g.limit)
				if got, err := replay(lines[:len(lines)-1], limit, names); err != nil || got != result {
					t.Errorf("the independent replay gives %q, %v; the 2012 manager printed %q", got, err, result)
				}
			}
			logFile := filepath.Join(t.TempDir(), "log")
			var out, errb bytes.Buffer
			status := Run([]string{"-m", g.limit, "-o", logFile, names[0], names[1]}, strings.NewReader(""), &out, &errb)
			got, err := os.ReadFile(logFile)
			if status != 0 || err != nil || string(got) != string(want) || out.String() != result+"\n" {
				t.Errorf("exit %d, stdout %q, the log differs from the 2012 manager's at line %d (%v)\n%s", status, out.String(), firstDiff(string(got), string(want)), err, errb.String())
			}
		})
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

// replay checks a game's -o log (without its result line) against the rules without the
// engine (games/stratego): an independent reading of docs/stratego.md, so that the golden
// files do not rest on the code they test. It reads the two setup blocks ("NAME RED
// SETUP" and four rows, then BLUE's), checks that each move line is "N RED: " or "N BLU: "
// for the turn and side to move, then a legal move with the outcome the rules give, that
// the game ends exactly at the last move, and that the last line says on whose turn and
// why; it returns the result line the rules give.
func replay(log []string, limit int, names [2]string) (string, error) {
	log = strings.Split(strings.Join(log, "\n"), "\n") // the record's entries may hold several lines
	if len(log) < 11 || log[0] != names[0]+" RED SETUP" || log[5] != names[1]+" BLUE SETUP" {
		return "", fmt.Errorf("no setup blocks: %q", log[:min(len(log), 11)])
	}
	red, blue := log[1:5], log[6:10]
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
		if len(red[i]) != 10 || len(blue[i]) != 10 {
			return "", fmt.Errorf("setup rows %q %q", red, blue)
		}
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
	sides := [2]string{"RED", "BLUE"}
	turn, moves := 0, 0
	var outcome, why string
	named, turns := 0, 0
	if limit <= 1 { // drawn before RED's first move
		outcome, named, turns, why = "DRAW_DEFAULT", 0, 1, "Game declared a draw after 1 turns"
	}
	moveLines, end := log[10:len(log)-1], log[len(log)-1]
	for _, entry := range moveLines {
		if outcome != "" {
			return "", fmt.Errorf("a move after the end: %q", entry)
		}
		thisTurn := moves/2 + 1
		head := fmt.Sprintf("%d %s: ", thisTurn, [2]string{"RED", "BLU"}[turn])
		line, ok := strings.CutPrefix(entry, head)
		if !ok {
			return "", fmt.Errorf("%q: not a line of %q", entry, head)
		}
		if line == "SURRENDER OK" {
			// The side to move gives up: the game ends in the turn of that move.
			outcome, named, turns, why = "SURRENDER", turn, thisTurn, "This player has surrendered!"
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
			outcome, named, turns, why = "VICTORY", turn, thisTurn, "Captured the flag"
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
			const attrition = "Destroyed all mobile enemy pieces"
			switch {
			case !movable(0) && !movable(1):
				outcome, named, turns, why = "DRAW", turn, thisTurn, "Game declared a draw because neither player has mobile pieces"
			case !movable(1 - turn):
				outcome, named, turns, why = "VICTORY", turn, thisTurn, attrition
			case !movable(turn) && turn == 0:
				outcome, named, turns, why = "VICTORY", 1, thisTurn, attrition
			case moves >= 2*(limit-1):
				// The limit: when the turn after BLUE's move is the limit, BLUE is named, even
				// if that move left BLUE without a movable piece.
				outcome, named, turns, why = "DRAW_DEFAULT", turn, moves/2+1, fmt.Sprintf("Game declared a draw after %d turns", moves/2+1)
			case !movable(turn):
				// BLUE's move left BLUE itself without one: RED wins as the next turn begins.
				outcome, named, turns, why = "VICTORY", 0, thisTurn+1, attrition
			}
		}
		turn = 1 - turn
	}
	if outcome == "" {
		return "", fmt.Errorf("the log ends before the game does")
	}
	if want := "Game ends on " + sides[named] + "'s turn - REASON: " + why; end != want {
		return "", fmt.Errorf("the log ends %q, the rules give %q", end, want)
	}
	var values [2]int
	for _, s := range board {
		values[s.side] += value(s.p)
	}
	return fmt.Sprintf("%s %s %s %d %d %d", names[named], sides[named], outcome, turns, values[0], values[1]), nil
}
