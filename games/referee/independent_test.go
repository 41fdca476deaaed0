package referee

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"gauntlet/games/judge"
)

// An independent reading of the two example games (docs/referee.md), written without the
// engine's code: a board as a map of cells, a win found by looking at every window of
// three (tic-tac-toe) or four (connect four) cells in a straight line anywhere on the
// board, and the move grammar read from the docs. It decides every move of a sequence
// (valid or not) and the result line the runner prints, so that the expectations of the
// referee games do not rest on the engine they test.
type indepGame struct {
	rows, cols, need int
	gravity          bool // connect four: a move names a column, the piece falls
	cells            map[[2]int]int
	turn, moves      int
	winner           int // -1 none
}

func newIndep(c4 bool) *indepGame {
	if c4 {
		return &indepGame{rows: 6, cols: 7, need: 4, gravity: true, cells: map[[2]int]int{}, winner: -1}
	}
	return &indepGame{rows: 3, cols: 3, need: 3, cells: map[[2]int]int{}, winner: -1}
}

// cell reads a move: "R C" (digits 0-2, one space) or a column "0".."6", nothing else.
func (g *indepGame) cell(m string) ([2]int, bool) {
	digit := func(s string, max int) (int, bool) {
		if len(s) != 1 || s[0] < '0' || int(s[0]-'0') > max {
			return 0, false
		}
		return int(s[0] - '0'), true
	}
	if !g.gravity {
		f := strings.Split(m, " ")
		if len(f) != 2 {
			return [2]int{}, false
		}
		r, ok1 := digit(f[0], 2)
		c, ok2 := digit(f[1], 2)
		return [2]int{r, c}, ok1 && ok2
	}
	c, ok := digit(m, 6)
	if !ok {
		return [2]int{}, false
	}
	for r := g.rows - 1; r >= 0; r-- {
		if _, full := g.cells[[2]int{r, c}]; !full {
			return [2]int{r, c}, true
		}
	}
	return [2]int{}, false // the column is full
}

// play makes player p's move if it is valid, and says whether it was.
func (g *indepGame) play(p int, m string) bool {
	at, ok := g.cell(m)
	if _, taken := g.cells[at]; !ok || taken || p != g.turn || g.over() {
		return false
	}
	g.cells[at] = p
	g.moves++
	g.turn = 1 - p
	// Every window of g.need cells in a line, anywhere.
	for r := 0; r < g.rows; r++ {
		for c := 0; c < g.cols; c++ {
			for _, d := range [][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}} {
				n := 0
				for k := 0; k < g.need; k++ {
					if v, ok := g.cells[[2]int{r + k*d[0], c + k*d[1]}]; ok && v == p {
						n++
					}
				}
				if n == g.need {
					g.winner = p
				}
			}
		}
	}
	return true
}

func (g *indepGame) over() bool { return g.winner >= 0 || g.moves == g.rows*g.cols }

// result is the runner's line once the game is over.
func (g *indepGame) result() string {
	switch g.winner {
	case 0:
		return "2 0 end"
	case 1:
		return "0 2 end"
	}
	return "1 1 end"
}

// rows is the connect-four board as the referee writes it, top row first.
func (g *indepGame) rowsText() []string {
	var out []string
	for r := 0; r < g.rows; r++ {
		var b strings.Builder
		for c := 0; c < g.cols; c++ {
			v, ok := g.cells[[2]int{r, c}]
			switch {
			case !ok:
				b.WriteByte('.')
			case v == 0:
				b.WriteByte('X')
			default:
				b.WriteByte('O')
			}
		}
		out = append(out, b.String())
	}
	return out
}

// scripted is a player that sends the moves a random source draws: mostly a free cell or
// column (from what it was told), sometimes one at random (taken or full, maybe) or a
// malformed line.
type scripted struct {
	r     *rand.Rand
	c4    bool
	got   []string
	taken map[string]bool // tic-tac-toe: the cells played, as far as it knows
}

var junk = []string{"", "1", "1 1 ", " 1 1", "3 0", "0 3", "1  1", "a b", "-0", "07", "7", "+1", "1 1\r", "x"}

func (s *scripted) Greeting() string     { return "" }
func (s *scripted) Lost() judge.Reaction { return judge.Reaction{Done: true} }
func (s *scripted) React(line string) judge.Reaction {
	if s.c4 {
		// Six rows of the board, then a move.
		s.got = append(s.got, line)
		if len(s.got)%6 != 0 {
			return judge.Reaction{}
		}
	}
	if s.taken == nil {
		s.taken = map[string]bool{}
	}
	s.taken[line] = true // the opponent's last move (tic-tac-toe)
	var free []string
	if s.c4 {
		for c, v := range s.got[len(s.got)-6] {
			if v == '.' {
				free = append(free, fmt.Sprint(c))
			}
		}
	} else {
		for i := range 9 {
			if m := fmt.Sprintf("%d %d", i/3, i%3); !s.taken[m] {
				free = append(free, m)
			}
		}
	}
	m := ""
	switch k := s.r.IntN(40); {
	case k == 0:
		m = junk[s.r.IntN(len(junk))]
	case k == 1 && s.c4:
		m = fmt.Sprint(s.r.IntN(7))
	case k == 1:
		m = fmt.Sprintf("%d %d", s.r.IntN(3), s.r.IntN(3))
	case len(free) > 0:
		m = free[s.r.IntN(len(free))]
	}
	s.taken[m] = true
	return judge.Reaction{Replies: []string{m}}
}

// On 400 seeded games of each example game, made of random moves (taken cells, full
// columns, malformed lines among them), the engine's match (NewMatchJudge over the
// referee's rules) ends with the result line the independent reading gives for the same
// moves, and every connect-four board the referee writes is the one it gives.
func TestIndependentRefereeOutcomes(t *testing.T) {
	for _, c4 := range []bool{false, true} {
		ends := map[string]int{}
		for seed := uint64(0); seed < 400; seed++ {
			var rules Rules = &TicTacToe{}
			if c4 {
				rules = NewConnectFour()
			}
			r := rand.New(rand.NewPCG(seed, 41))
			players := []judge.Responder{&scripted{r: r, c4: c4}, &scripted{r: r, c4: c4}}
			g, err := judge.Play(NewMatchJudge(rules), players, 200)
			if err != nil {
				t.Fatalf("c4 %v seed %d: %v", c4, seed, err)
			}
			ind := newIndep(c4)
			want, last, rows := "", "Start", 0
			greeted := map[int]bool{}
			for _, e := range g.Events {
				switch {
				case e.From == judge.Log && e.To >= 0 && c4:
					// A row of the board, written to the player to move.
					if row := ind.rowsText()[rows%6]; e.Line != row || e.To != ind.turn {
						t.Fatalf("seed %d: the referee writes %q to %d, the independent board has %q for %d", seed, e.Line, e.To, row, ind.turn)
					}
					rows++
				case e.From == judge.Log && e.To >= 0:
					// The last move, given to the player to move.
					if e.Line != last || e.To != ind.turn {
						t.Fatalf("seed %d: player %d is given %q, the independent reading gives %d %q", seed, e.To, e.Line, ind.turn, last)
					}
				case e.From >= 0 && !greeted[e.From]:
					greeted[e.From] = true // the greeting (none in this protocol)
				case e.From >= 0:
					if want != "" {
						t.Fatalf("c4 %v seed %d: a move after the end", c4, seed)
					}
					if !ind.play(e.From, e.Line) {
						want = [2]string{"0 1 invalid 0", "1 0 invalid 1"}[e.From]
					} else if ind.over() {
						want = ind.result()
					}
					last = e.Line
				}
			}
			if log := g.Log(); len(log) != 1 || log[0] != want {
				t.Fatalf("c4 %v seed %d: the match ends %q, the independent reading %q (moves %q, %q)", c4, seed, log, want, g.Sent(0), g.Sent(1))
			}
			ends[strings.Fields(want)[0]+" "+strings.Fields(want)[2]]++
		}
		// The seeds reach wins of each side, draws and invalid moves of each side.
		if len(ends) < 4 {
			t.Errorf("c4 %v: only these endings were reached: %v", c4, ends)
		}
		t.Logf("c4 %v: endings %v", c4, ends)
	}
}
