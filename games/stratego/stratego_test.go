package stratego

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

// A setup in the order of the manual's table, read row by row.
var tableSetup = []string{
	"123344455s",
	"5566667777",
	"8888899999",
	"999BBBBBBF",
}

func mustSetup(t *testing.T, lines []string) Setup {
	t.Helper()
	s, err := ParseSetup(lines)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestParseSetup(t *testing.T) {
	s := mustSetup(t, tableSetup)
	if got := strings.Join(s.Lines(), "|"); got != strings.Join(tableSetup, "|") {
		t.Errorf("round trip %q", got)
	}
	swap := func(row int, from, to string) []string {
		l := append([]string(nil), tableSetup...)
		l[row] = strings.Replace(l[row], from, to, 1)
		return l
	}
	tests := []struct {
		name  string
		lines []string
		rule  string
	}{
		{"three rows", tableSetup[:3], RuleSetupRows},
		{"five rows", append(append([]string(nil), tableSetup...), "BBBBBBBBBB"), RuleSetupRows},
		{"short row", swap(0, "s", ""), RuleSetupWidth},
		{"long row", swap(0, "s", "ss"), RuleSetupWidth},
		{"unknown piece", swap(0, "s", "S"), RuleSetupPiece},
		{"lake character", swap(0, "s", "+"), RuleSetupPiece},
		{"no flag, two bombs more", swap(3, "F", "B"), RuleSetupCounts},
		{"two marshals", swap(0, "2", "1"), RuleSetupCounts},
		{"carriage return", swap(3, "F", "F\r"), RuleSetupWidth},
	}
	for _, tc := range tests {
		_, err := ParseSetup(tc.lines)
		var fe *FormatError
		if !errors.As(err, &fe) || fe.Rule != tc.rule {
			t.Errorf("%s: %v, want rule %q", tc.name, err, tc.rule)
		}
	}
}

func TestFight(t *testing.T) {
	tests := []struct {
		att, def Piece
		want     Combat
	}{
		{'5', Flag, Kills}, {Spy, Flag, Kills},
		{Miner, Bomb, Kills}, {'1', Bomb, Dies}, {Scout, Bomb, Dies},
		{Spy, Marshal, Kills}, {Marshal, Spy, Kills}, {'2', Spy, Kills}, {Spy, '2', Dies},
		{Spy, Spy, BothDie}, {'4', '4', BothDie},
		{'3', '7', Kills}, {'7', '3', Dies}, {Scout, Miner, Dies},
	}
	for _, tc := range tests {
		if got := Fight(tc.att, tc.def); got != tc.want {
			t.Errorf("%s attacks %s: %s, want %s", tc.att, tc.def, got, tc.want)
		}
	}
}

func TestParseMove(t *testing.T) {
	good := map[string]Move{
		"0 3 DOWN":    {X: 0, Y: 3, Dir: Down, N: 1},
		"9 6 UP 3":    {X: 9, Y: 6, Dir: Up, N: 3, HasN: true},
		"4 3 LEFT 1":  {X: 4, Y: 3, Dir: Left, N: 1, HasN: true},
		"SURRENDER":   {Surrender: true},
		"12 40 RIGHT": {X: 12, Y: 40, Dir: Right, N: 1},
	}
	for line, want := range good {
		m, err := ParseMove(line)
		if err != nil || m != want || m.String() != line {
			t.Errorf("%q: %+v %v (String %q), want %+v", line, m, err, m.String(), want)
		}
	}
	bad := map[string]string{
		"0 3":          RuleMoveWords,
		"0 3 DOWN 2 1": RuleMoveWords,
		"0  3 DOWN":    RuleMoveWords,
		"0 3 down":     RuleMoveDir,
		"0 3 NORTH":    RuleMoveDir,
		"-1 3 UP":      RuleMoveNumber,
		"01 3 UP":      RuleMoveNumber,
		"0 3 UP 0":     RuleMoveNumber,
		"0 3 UP\r":     RuleMoveDir,
		"surrender":    RuleMoveWords,
		"":             RuleMoveWords,
	}
	for line, rule := range bad {
		_, err := ParseMove(line)
		var fe *FormatError
		if !errors.As(err, &fe) || fe.Rule != rule {
			t.Errorf("%q: %v, want rule %q", line, err, rule)
		}
	}
}

// newGame places the table setup for both sides: RED's rows y=0..3 as given, BLUE's rows
// y=6..9 as given (so BLUE's flag is at (9,9), its scouts on y=8 and y=9).
func newGame(t *testing.T) *Game {
	s := mustSetup(t, tableSetup)
	return New(s, s, 0)
}

func TestViewAndPlacement(t *testing.T) {
	g := newGame(t)
	want := strings.Join(append(append(append([]string(nil), tableSetup...),
		"..++..++..", "..++..++.."), "##########", "##########", "##########", "##########"), "\n")
	if got := strings.Join(g.View(Red), "\n"); got != want {
		t.Errorf("RED's view:\n%s\nwant\n%s", got, want)
	}
	if got := g.View(Blue); got[0] != "##########" || got[9] != tableSetup[3] || got[4] != "..++..++.." {
		t.Errorf("BLUE's view: %q", got)
	}
	// 1x10+1x9+2x8+3x7+4x6+4x5+4x4+5x3+8x2+1 = 148 for each side.
	if r, b := g.Board().Value(Red), g.Board().Value(Blue); r != 148 || b != 148 {
		t.Errorf("values %d %d, want 148 148", r, b)
	}
}

func TestCheckMove(t *testing.T) {
	// RED's rows: y=0 "123344455s", y=1 "5566667777", y=2 "8888899999", y=3 "999BBBBBBF".
	tests := []struct {
		move string
		rule string // "" for a legal move
	}{
		{"0 3 DOWN", ""},                  // a scout steps forward
		{"0 3 DOWN 2", ""},                // and may go further
		{"0 2 DOWN 2", RuleMoveScoutOnly}, // a miner may not
		{"5 2 DOWN 2", RuleMoveBlocked},   // a scout behind its own bomb
		{"0 2 DOWN", RuleMoveOntoOwn},     // a miner onto its own scout
		{"9 3 DOWN", RuleMoveMovable},     // the flag
		{"3 3 DOWN", RuleMoveMovable},     // a bomb
		{"2 3 DOWN", RuleMoveLake},        // a scout into a lake
		{"0 0 UP", RuleMoveOnBoard},
		{"4 4 DOWN", RuleMoveOwn}, // an empty square
		{"0 6 UP", RuleMoveOwn},   // BLUE's piece
		{"12 3 UP", RuleMoveOwn},  // off the board
	}
	g := newGame(t)
	for _, tc := range tests {
		m, err := ParseMove(tc.move)
		if err != nil {
			t.Fatal(err)
		}
		err = g.Check(m)
		var me *MoveError
		switch {
		case tc.rule == "" && err != nil:
			t.Errorf("%s: %v, want legal", tc.move, err)
		case tc.rule != "" && (!errors.As(err, &me) || me.Rule != tc.rule):
			t.Errorf("%s: %v, want rule %q", tc.move, err, tc.rule)
		}
	}
}

// A board with a few pieces where they are needed, for movement and combat.
func sparse(t *testing.T, red, blue map[[2]int]Piece, turn Colour) *Game {
	t.Helper()
	g := &Game{limit: DefaultTurnLimit, turn: turn}
	for at, p := range red {
		g.board[at[1]][at[0]] = Square{p, Red}
	}
	for at, p := range blue {
		g.board[at[1]][at[0]] = Square{p, Blue}
	}
	return g
}

func TestScoutsAndLakes(t *testing.T) {
	g := sparse(t, map[[2]int]Piece{{0, 3}: Scout, {2, 3}: Scout, {9, 0}: Flag, {5, 0}: Bomb},
		map[[2]int]Piece{{0, 8}: '5', {9, 9}: Flag}, Red)
	tests := []struct {
		move, rule string
	}{
		{"0 3 DOWN 5", ""},              // to (0,8): attacks the captain
		{"0 3 DOWN 6", RuleMoveBlocked}, // through the captain
		{"0 3 DOWN 7", RuleMoveBlocked},
		{"2 3 DOWN", RuleMoveLake},
		{"2 3 RIGHT 7", ""},
		{"2 3 RIGHT 8", RuleMoveOnBoard},
		{"2 3 LEFT 2", RuleMoveOntoOwn},
	}
	for _, tc := range tests {
		m, _ := ParseMove(tc.move)
		err := g.Check(m)
		var me *MoveError
		if (tc.rule == "" && err != nil) || (tc.rule != "" && (!errors.As(err, &me) || me.Rule != tc.rule)) {
			t.Errorf("%s: %v, want %q", tc.move, err, tc.rule)
		}
	}
	c, err := g.Play(Move{X: 0, Y: 3, Dir: Down, N: 5, HasN: true})
	if err != nil || c.String() != "0 3 DOWN 5 DIES 9 5" {
		t.Errorf("scout attacks captain: %q %v", c.String(), err)
	}
	if sq := g.board[8][0]; sq.Piece != '5' || sq.Colour != Blue || !g.board[3][0].Empty() {
		t.Errorf("after the scout died: (0,8) holds %+v, (0,3) %+v", sq, g.board[3][0])
	}
}

func TestEnds(t *testing.T) {
	names := [2]string{"red-ai", "blue-ai"}
	// Taking the flag wins; its confirmation says VICTORY_FLAG, not KILLS 7 F.
	g := sparse(t, map[[2]int]Piece{{0, 5}: '7', {9, 0}: Flag}, map[[2]int]Piece{{0, 6}: Flag, {5, 9}: '3'}, Red)
	c, err := g.Play(Move{X: 0, Y: 5, Dir: Down, N: 1})
	if err != nil || c.String() != "0 5 DOWN VICTORY_FLAG" {
		t.Fatalf("%q %v", c.String(), err)
	}
	if over, o, about := g.Over(); !over || o != Victory || about != Red {
		t.Errorf("after taking the flag: %v %s %s", over, o, about)
	}
	if got := g.Result(names); got != "red-ai RED VICTORY 1 4 8" {
		t.Errorf("result %q", got)
	}
	if g.EndWord(Red) != "VICTORY" || g.EndWord(Blue) != "DEFEAT" {
		t.Errorf("end words %s %s", g.EndWord(Red), g.EndWord(Blue))
	}
	// Killing the last movable enemy piece wins; the loser's bombs and flag remain.
	g = sparse(t, map[[2]int]Piece{{0, 5}: '2', {9, 0}: Flag}, map[[2]int]Piece{{0, 6}: '3', {9, 9}: Flag, {8, 9}: Bomb}, Red)
	if c, _ := g.Play(Move{X: 0, Y: 5, Dir: Down, N: 1}); c.String() != "0 5 DOWN KILLS 2 3" {
		t.Errorf("the last kill: %q", c.String())
	}
	if over, o, about := g.Over(); !over || o != Victory || about != Red {
		t.Errorf("after the last movable enemy died: %v %s %s", over, o, about)
	}
	// Both last movable pieces die together: a draw, naming the side that moved last.
	g = sparse(t, map[[2]int]Piece{{0, 5}: '3', {9, 0}: Flag}, map[[2]int]Piece{{0, 6}: '3', {9, 9}: Flag}, Red)
	g.Play(Move{X: 0, Y: 5, Dir: Down, N: 1})
	if over, o, about := g.Over(); !over || o != Draw || about != Red || g.Result(names) != "red-ai RED DRAW 1 0 0" {
		t.Errorf("both die: %v %s %s %q", over, o, about, g.Result(names))
	}
	// RED's last movable piece dies attacking: BLUE wins in the same turn.
	g = sparse(t, map[[2]int]Piece{{0, 4}: '5', {9, 0}: Flag}, map[[2]int]Piece{{0, 5}: '3', {9, 9}: Flag}, Red)
	if c, _ := g.Play(Move{X: 0, Y: 4, Dir: Down, N: 1}); c.String() != "0 4 DOWN DIES 5 3" || g.Result(names) != "blue-ai BLUE VICTORY 1 0 8" {
		t.Errorf("RED's last movable piece dies: %q, %q", c.String(), g.Result(names))
	}
	// BLUE's last movable piece dies attacking in turn 1: as in 2012, the game ends when
	// turn 2 begins, RED winning in turn 2 ("./hunter-3 RED VICTORY 137 76 0" where BLUE's
	// last marshal died with the 272nd move), or drawn there when turn 2 is the limit
	// ("./random-88 BLUE DRAW_DEFAULT 694 54 0" at -m 694 where RED won in turn 694).
	for limit, want := range map[int]string{0: "red-ai RED VICTORY 2 15 0", 3: "red-ai RED VICTORY 2 15 0", 2: "blue-ai BLUE DRAW_DEFAULT 2 15 0"} {
		g = sparse(t, map[[2]int]Piece{{0, 3}: '3', {5, 0}: '4', {9, 0}: Flag}, map[[2]int]Piece{{0, 4}: '5', {9, 9}: Flag}, Red)
		if limit > 0 {
			g.limit = limit
		}
		g.Play(Move{X: 5, Y: 0, Dir: Left, N: 1})
		if c, _ := g.Play(Move{X: 0, Y: 4, Dir: Up, N: 1}); c.String() != "0 4 UP DIES 5 3" || g.Result(names) != want {
			t.Errorf("limit %d: BLUE's last movable piece dies: %q, %q, want %q", limit, c.String(), g.Result(names), want)
		}
	}
	// The turn limit, counted in turns of two moves: with a limit of 3 the game is drawn
	// after BLUE's move of turn 2, the result line counting 3 and naming BLUE.
	g = sparse(t, map[[2]int]Piece{{0, 0}: '3', {9, 0}: Flag}, map[[2]int]Piece{{0, 9}: '3', {9, 9}: Flag}, Red)
	g.limit = 3
	for i, m := range []Move{{X: 0, Y: 0, Dir: Down, N: 1}, {X: 0, Y: 9, Dir: Up, N: 1}, {X: 0, Y: 1, Dir: Up, N: 1}, {X: 0, Y: 8, Dir: Down, N: 1}} {
		if over, _, _ := g.Over(); over {
			t.Fatalf("over before move %d", i+1)
		}
		if want := i/2 + 1; g.Turns() != want {
			t.Errorf("move %d is in turn %d, want %d", i+1, g.Turns(), want)
		}
		g.Play(m)
	}
	if over, o, _ := g.Over(); !over || o != DrawDefault || g.Result(names) != "blue-ai BLUE DRAW_DEFAULT 3 8 8" || g.Moves() != 4 {
		t.Errorf("turn limit: %v %s %q after %d moves", over, o, g.Result(names), g.Moves())
	}
	// A limit of 1 draws before any move, naming RED, whose turn it was (the 2012 manager's
	// "random-1 RED DRAW_DEFAULT 1 148 148" at -m 1).
	if g := New(Setup{}, Setup{}, 1); g.Result(names) != "red-ai RED DRAW_DEFAULT 1 0 0" {
		t.Errorf("limit 1: %q", g.Result(names))
	}
	// BLUE takes the flag with its 138th move, the 276th of the game: turn 138.
	g = sparse(t, map[[2]int]Piece{{0, 0}: '3', {9, 5}: Flag}, map[[2]int]Piece{{0, 9}: '3', {9, 6}: '7', {5, 9}: Flag}, Red)
	for i := range 275 {
		m := Move{X: 0, Y: 0, Dir: Down, N: 1}
		switch i % 4 {
		case 1:
			m = Move{X: 0, Y: 9, Dir: Up, N: 1}
		case 2:
			m = Move{X: 0, Y: 1, Dir: Up, N: 1}
		case 3:
			m = Move{X: 0, Y: 8, Dir: Down, N: 1}
		}
		if _, err := g.Play(m); err != nil {
			t.Fatalf("move %d: %v", i+1, err)
		}
	}
	if c, _ := g.Play(Move{X: 9, Y: 6, Dir: Up, N: 1}); c.String() != "9 6 UP VICTORY_FLAG" || g.Result(names) != "blue-ai BLUE VICTORY 138 8 12" {
		t.Errorf("the 276th move: %q, %q", c.String(), g.Result(names))
	}
	// Surrender, and an illegal move, before any move: turn 1.
	g = newGame(t)
	g.Play(Move{Surrender: true})
	if g.Result(names) != "red-ai RED SURRENDER 1 148 148" || g.EndWord(Blue) != "VICTORY" {
		t.Errorf("surrender: %q", g.Result(names))
	}
	g = newGame(t)
	g.Forfeit(Red, Illegal, `"3 3 DOWN": bombs and the flag do not move`)
	if g.Result(names) != "red-ai RED ILLEGAL 1 148 148" || g.EndWord(Red) != "ILLEGAL" || g.EndWord(Blue) != "DEFAULT" ||
		g.Why() != `RED ILLEGAL: "3 3 DOWN": bombs and the flag do not move` {
		t.Errorf("illegal: %q, %q", g.Result(names), g.Why())
	}
	// BLUE's illegal answer to its first query is in turn 1 too.
	g = newGame(t)
	g.Play(Move{X: 0, Y: 3, Dir: Down, N: 1})
	g.Forfeit(Blue, Illegal, "no line within 2s")
	if g.Result(names) != "blue-ai BLUE ILLEGAL 1 148 148" {
		t.Errorf("illegal: %q", g.Result(names))
	}
}

// Begin asks both sides for their setups, keeps the pieces a bad setup placed before its
// first error, and ends the game at once as BAD_SETUP, naming both sides when both are bad.
func TestBeginBadSetups(t *testing.T) {
	names := [2]string{"red-ai", "blue-ai"}
	swap := func(row int, from, to string) []string {
		l := append([]string(nil), tableSetup...)
		l[row] = strings.Replace(l[row], from, to, 1)
		return l
	}
	tests := []struct {
		name      string
		red, blue []string
		result    string
		words     [2]string
		why       string
	}{
		{"both good", tableSetup, tableSetup, "", [2]string{}, ""},
		{"RED: no piece", swap(0, "123344455s", "XXXXXXXXXX"), tableSetup, "red-ai RED BAD_SETUP 0 0 148", [2]string{"ILLEGAL", "DEFAULT"},
			`RED BAD_SETUP: RED: "XXXXXXXXXX|5566667777|8888899999|999BBBBBBF": ` + RuleSetupPiece},
		// The marshal before the second one stays (10).
		{"RED: two marshals", swap(0, "2", "1"), tableSetup, "red-ai RED BAD_SETUP 0 10 148", [2]string{"ILLEGAL", "DEFAULT"}, ""},
		// Rows before a row of the wrong length stay: BLUE's rows 0 and 1 (69 + 48).
		{"BLUE: a short row", tableSetup, swap(2, "9", ""), "blue-ai BLUE BAD_SETUP 0 148 117", [2]string{"DEFAULT", "ILLEGAL"}, ""},
		// A '.' is an empty square (2012): the pieces after it are placed, the setup lacking
		// only the piece it replaced (the 2012 manager's values, measured).
		{"BLUE: '.' for the marshal", tableSetup, swap(0, "1", "."), "blue-ai BLUE BAD_SETUP 0 148 138", [2]string{"DEFAULT", "ILLEGAL"},
			`BLUE BAD_SETUP: BLUE: ".23344455s|5566667777|8888899999|999BBBBBBF": ` + RuleSetupCounts},
		{"BLUE: '.' for the spy", tableSetup, swap(0, "s", "."), "blue-ai BLUE BAD_SETUP 0 148 147", [2]string{"DEFAULT", "ILLEGAL"}, ""},
		{"BLUE: '.' for the flag", tableSetup, swap(3, "F", "."), "blue-ai BLUE BAD_SETUP 0 148 148", [2]string{"DEFAULT", "ILLEGAL"}, ""},
		{"BLUE: '.' for a colonel", tableSetup, swap(0, "3", "."), "blue-ai BLUE BAD_SETUP 0 148 140", [2]string{"DEFAULT", "ILLEGAL"}, ""},
		{"BLUE: silent", tableSetup, tableSetup[:2], "blue-ai BLUE BAD_SETUP 0 148 0", [2]string{"DEFAULT", "ILLEGAL"}, "BLUE BAD_SETUP: BLUE: 2 setup rows of 4"},
		{"both silent", nil, nil, "neither BOTH BAD_SETUP 0 0 0", [2]string{"ILLEGAL", "ILLEGAL"}, "BOTH BAD_SETUP: RED: 0 setup rows of 4; BLUE: 0 setup rows of 4"},
	}
	for _, tc := range tests {
		g, errs := Begin([2][]string{tc.red, tc.blue}, 0)
		over, _, _ := g.Over()
		if tc.result == "" {
			if over || errs[Red] != nil || errs[Blue] != nil {
				t.Errorf("%s: over %v, %v", tc.name, over, errs)
			}
			continue
		}
		if !over || g.Result(names) != tc.result || g.EndWord(Red) != tc.words[0] || g.EndWord(Blue) != tc.words[1] {
			t.Errorf("%s: %q, %s %s; want %q, %v", tc.name, g.Result(names), g.EndWord(Red), g.EndWord(Blue), tc.result, tc.words)
		}
		if tc.why != "" && g.Why() != tc.why {
			t.Errorf("%s: why %q, want %q", tc.name, g.Why(), tc.why)
		}
	}
}

// Two random AIs play whole games from random setups: every move they choose from their
// own view is legal, and every game ends.
func TestRandomGamesEnd(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20; i++ {
		g := New(RandomSetup(r), RandomSetup(r), 2000)
		for {
			over, _, _ := g.Over()
			if over {
				break
			}
			m := RandomMove(g.View(g.Turn()), r)
			if _, err := g.Play(m); err != nil {
				t.Fatalf("game %d, turn %d: %s from\n%s\n%v", i, g.Turns(), m, strings.Join(g.View(g.Turn()), "\n"), err)
			}
		}
		if _, o, _ := g.Over(); o == Illegal || o == Internal {
			t.Errorf("game %d ended %s", i, o)
		}
	}
}

// BenchmarkRandomGame plays a whole game of two random AIs in process.
func BenchmarkRandomGame(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	for b.Loop() {
		g := New(RandomSetup(r), RandomSetup(r), DefaultTurnLimit)
		for {
			if over, _, _ := g.Over(); over {
				break
			}
			g.Play(RandomMove(g.View(g.Turn()), r))
		}
	}
}
