package referee

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// Rules are an example game's rules, as its referee applies them.
type Rules interface {
	// Features are what the referee announces.
	Features() Features
	// Move applies player's move if it is legal now, and says whether it was.
	Move(player int, move string) bool
	// Over says whether the game has ended, and the scores then.
	Over() (bool, []int)
	// Show returns the lines to write to players (write_lines) at the start and after each
	// legal move: the player to move next sees the board.
	Show() [][2]string
}

// Referee is a referee program's side of the protocol around an example game's rules.
type Referee struct {
	rules   Rules
	players int // 0 until the count arrives
	names   int // names still to read
	started bool
}

// NewReferee returns the referee of rules.
func NewReferee(r Rules) *Referee { return &Referee{rules: r} }

// Hello is what the referee writes first: its features.
func (r *Referee) Hello() []string { return r.rules.Features().Lines() }

// React is the referee's answer to one line from the runner.
func (r *Referee) React(line string) []string {
	switch {
	case r.players == 0:
		n, err := strconv.Atoi(line)
		if err != nil || n != 2 {
			return nil
		}
		r.players, r.names = n, n
		return nil
	case r.names > 0:
		r.names--
		if r.names == 0 {
			r.started = true
			return r.block(nil)
		}
		return nil
	}
	p, move, ok := ParseMoveLine(line)
	if !ok || !r.rules.Move(p, move) {
		return r.block([]string{Invalid.String()})
	}
	if over, scores := r.rules.Over(); over {
		return append(r.block([]string{ValidEnd.String()}), FormatScores(scores))
	}
	return r.block([]string{Valid.String()})
}

// block adds the write_lines block after out, when the referee has that feature.
func (r *Referee) block(out []string) []string {
	if !r.rules.Features().WriteLines {
		return out
	}
	for _, w := range r.rules.Show() {
		out = append(out, w[0]+" "+w[1])
	}
	return append(out, WriteEnd)
}

// TicTacToe is plain tic-tac-toe: player 0 is X and moves first; a move is "ROW COL", each
// 0-2, onto an empty cell, in turn. A line of three wins (scores 2 0 or 0 2); a full board
// is a draw (1 1).
type TicTacToe struct {
	Cells [9]byte // 0 empty, 'X', 'O'
	Turn  int
	moves int
}

func (t *TicTacToe) Features() Features { return Features{} }
func (t *TicTacToe) Show() [][2]string  { return nil }
func (t *TicTacToe) Move(p int, m string) bool {
	i, ok := tttCell(m)
	if !ok || p != t.Turn || t.Cells[i] != 0 || t.winner() >= 0 {
		return false
	}
	t.Cells[i] = "XO"[p]
	t.Turn, t.moves = 1-p, t.moves+1
	return true
}

// tttCell reads "ROW COL".
func tttCell(m string) (int, bool) {
	if len(m) != 3 || m[1] != ' ' || m[0] < '0' || m[0] > '2' || m[2] < '0' || m[2] > '2' {
		return 0, false
	}
	return int(m[0]-'0')*3 + int(m[2]-'0'), true
}

var tttLines = [8][3]int{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6}, {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6}}

// winner is 0 or 1, or -1 when no one has three in a line.
func (t *TicTacToe) winner() int {
	for _, l := range tttLines {
		if c := t.Cells[l[0]]; c != 0 && c == t.Cells[l[1]] && c == t.Cells[l[2]] {
			return strings.IndexByte("XO", c)
		}
	}
	return -1
}

func (t *TicTacToe) Over() (bool, []int) {
	switch w := t.winner(); {
	case w == 0:
		return true, []int{2, 0}
	case w == 1:
		return true, []int{0, 2}
	case t.moves == 9:
		return true, []int{1, 1}
	}
	return false, nil
}

// TTTPlayer is a tic-tac-toe player: it tracks the board from the last moves it is given
// ("Start", or the opponent's move) and answers with its choice. Perfect plays minimax (it
// never loses); otherwise it plays a random empty cell.
type TTTPlayer struct {
	Perfect bool
	R       *rand.Rand
	board   TicTacToe
	me      int
	started bool
}

// React is the player's answer to the runner's line (the last move).
func (p *TTTPlayer) React(line string) string {
	if !p.started {
		p.started = true
		if line == StartMove {
			p.me = 0
		} else {
			p.me = 1
			p.board.Turn = 0
		}
	}
	if line != StartMove {
		p.board.Move(1-p.me, line)
	}
	i := p.choose()
	m := strconv.Itoa(i/3) + " " + strconv.Itoa(i%3)
	p.board.Move(p.me, m)
	return m
}

func (p *TTTPlayer) choose() int {
	var empty []int
	for i, c := range p.board.Cells {
		if c == 0 {
			empty = append(empty, i)
		}
	}
	if len(empty) == 0 {
		return 0
	}
	if !p.Perfect {
		return empty[p.R.IntN(len(empty))]
	}
	best, bestScore := empty[0], -2
	for _, i := range empty {
		b := p.board
		b.Move(p.me, strconv.Itoa(i/3)+" "+strconv.Itoa(i%3))
		if s := -negamax(b, 1-p.me); s > bestScore {
			best, bestScore = i, s
		}
	}
	return best
}

// negamax is the value of the board for the player to move: 1 a win, 0 a draw, -1 a loss.
func negamax(b TicTacToe, me int) int {
	if w := b.winner(); w >= 0 {
		if w == me {
			return 1
		}
		return -1
	}
	if b.moves == 9 {
		return 0
	}
	best := -2
	for i, c := range b.Cells {
		if c == 0 {
			n := b
			n.Move(me, strconv.Itoa(i/3)+" "+strconv.Itoa(i%3))
			best = max(best, -negamax(n, 1-me))
		}
	}
	return best
}

// ConnectFour is connect four on 7 columns of 6 rows with the write_lines and no_last_move
// features: the players never get the last move; instead the referee writes the board (6
// rows, top first: '.', 'X' for player 0, 'O' for player 1) to the player to move, at the
// start and after each legal move. A move is a column number 0-6 that is not full. Four in
// a row (across, down or diagonal) wins (2 0 or 0 2); a full board is a draw (1 1).
type ConnectFour struct {
	Cells [6][7]byte
	Turn  int
	moves int
	won   int // -1 none
}

// NewConnectFour returns an empty game.
func NewConnectFour() *ConnectFour { return &ConnectFour{won: -1} }

func (c *ConnectFour) Features() Features { return Features{WriteLines: true, NoLastMove: true} }

func (c *ConnectFour) Rows() []string {
	rows := make([]string, 6)
	for r := range c.Cells {
		b := []byte(".......")
		for col, v := range c.Cells[r] {
			if v != 0 {
				b[col] = v
			}
		}
		rows[r] = string(b)
	}
	return rows
}

func (c *ConnectFour) Show() [][2]string {
	if over, _ := c.Over(); over {
		return nil
	}
	var out [][2]string
	for _, r := range c.Rows() {
		out = append(out, [2]string{strconv.Itoa(c.Turn), r})
	}
	return out
}

func (c *ConnectFour) Move(p int, m string) bool {
	col, err := strconv.Atoi(m)
	if err != nil || m != strconv.Itoa(col) || col < 0 || col > 6 || p != c.Turn || c.won >= 0 || c.Cells[0][col] != 0 {
		return false
	}
	r := 5
	for c.Cells[r][col] != 0 {
		r--
	}
	c.Cells[r][col] = "XO"[p]
	c.moves++
	if c.fours(r, col) {
		c.won = p
	}
	c.Turn = 1 - p
	return true
}

// fours says whether the piece at (r, col) completes four in a row.
func (c *ConnectFour) fours(r, col int) bool {
	v := c.Cells[r][col]
	for _, d := range [][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}} {
		n := 1
		for _, s := range []int{1, -1} {
			for k := 1; k < 4; k++ {
				rr, cc := r+s*k*d[0], col+s*k*d[1]
				if rr < 0 || rr > 5 || cc < 0 || cc > 6 || c.Cells[rr][cc] != v {
					break
				}
				n++
			}
		}
		if n >= 4 {
			return true
		}
	}
	return false
}

func (c *ConnectFour) Over() (bool, []int) {
	switch {
	case c.won == 0:
		return true, []int{2, 0}
	case c.won == 1:
		return true, []int{0, 2}
	case c.moves == 42:
		return true, []int{1, 1}
	}
	return false, nil
}

// C4Player is a connect-four player: it reads the 6 rows of the board the referee writes
// it and answers with a random column that is not full.
type C4Player struct {
	R    *rand.Rand
	rows []string
}

// React takes one line; after the sixth row it returns its move (ok true).
func (p *C4Player) React(line string) (move string, ok bool) {
	p.rows = append(p.rows, line)
	if len(p.rows) < 6 {
		return "", false
	}
	top := p.rows[0]
	p.rows = nil
	var open []int
	for col := 0; col < 7 && col < len(top); col++ {
		if top[col] == '.' {
			open = append(open, col)
		}
	}
	if len(open) == 0 {
		return "0", true
	}
	return strconv.Itoa(open[p.R.IntN(len(open))]), true
}
