package stratego

import (
	"fmt"
	"strconv"
	"strings"
)

// DefaultTurnLimit is the manager's default turn limit: the game is drawn after it.
const DefaultTurnLimit = 5000

// Outcome is how a game ended, as the result line says it.
type Outcome string

// The outcomes. The result line names one side: the winner for VICTORY, the side that
// surrendered, made the illegal move or the bad setup for SURRENDER, ILLEGAL and BAD_SETUP,
// and the side whose turn it was for DRAW and DRAW_DEFAULT.
const (
	Victory     Outcome = "VICTORY"
	Surrender   Outcome = "SURRENDER"
	Draw        Outcome = "DRAW"         // neither side has a piece that may move
	DrawDefault Outcome = "DRAW_DEFAULT" // the turn limit was reached
	Illegal     Outcome = "ILLEGAL"      // an illegal move, a malformed line, or silence
	BadSetup    Outcome = "BAD_SETUP"
	Internal    Outcome = "INTERNAL_ERROR"
)

// Combat is what a move did.
type Combat string

// The confirmations' outcome words.
const (
	OK      Combat = "OK"
	Kills   Combat = "KILLS"
	Dies    Combat = "DIES"
	BothDie Combat = "BOTHDIE"
)

// Fight says what happens when att attacks def: the flag is taken; a miner defuses a bomb
// and any other attacker dies on it (the bomb stays); the spy kills the marshal when it
// attacks; equal ranks both die; otherwise the lower rank number wins.
func Fight(att, def Piece) Combat {
	switch {
	case def == Flag:
		return Kills
	case def == Bomb:
		if att == Miner {
			return Kills
		}
		return Dies
	case att == Spy && def == Marshal:
		return Kills
	case att.Rank() == def.Rank():
		return BothDie
	case att.Rank() < def.Rank():
		return Kills
	}
	return Dies
}

// Game is a game between RED and BLUE.
type Game struct {
	board   Board
	turn    Colour
	turns   int
	limit   int
	over    bool
	outcome Outcome
	about   Colour // the side the outcome names
}

// New starts a game from both setups; RED moves first. limit is the turn limit (0:
// DefaultTurnLimit).
func New(red, blue Setup, limit int) *Game {
	if limit <= 0 {
		limit = DefaultTurnLimit
	}
	g := &Game{limit: limit}
	for i := range SetupRows {
		for x := range Size {
			g.board[rowOf(Red, i)][x] = Square{red[i][x], Red}
			g.board[rowOf(Blue, i)][x] = Square{blue[i][x], Blue}
		}
	}
	return g
}

// Board returns the board (read it only).
func (g *Game) Board() *Board { return &g.board }

// Turn is the side to move.
func (g *Game) Turn() Colour { return g.turn }

// Turns is the number of moves made.
func (g *Game) Turns() int { return g.turns }

// Over reports whether the game has ended, and how, and which side the outcome names.
func (g *Game) Over() (over bool, o Outcome, about Colour) { return g.over, g.outcome, g.about }

// View is the board as side c sees it (Board.View).
func (g *Game) View(c Colour) []string { return g.board.View(c) }

// Check says whether the side to move may make m: nil, or a *MoveError naming the rule.
func (g *Game) Check(m Move) error {
	if m.Surrender {
		return nil
	}
	bad := func(rule string) error { return &MoveError{Move: m, Rule: rule} }
	if !OnBoard(m.X, m.Y) {
		return bad(RuleMoveOwn)
	}
	sq := g.board[m.Y][m.X]
	switch {
	case sq.Empty() || sq.Colour != g.turn:
		return bad(RuleMoveOwn)
	case !sq.Piece.Movable():
		return bad(RuleMoveMovable)
	case m.N > 1 && sq.Piece != Scout:
		return bad(RuleMoveScoutOnly)
	}
	dx, dy := m.Dir.Delta()
	x, y := m.X, m.Y
	for step := 1; step <= m.N; step++ {
		x, y = x+dx, y+dy
		switch {
		case !OnBoard(x, y):
			return bad(RuleMoveOnBoard)
		case Lake(x, y):
			return bad(RuleMoveLake)
		}
		there := g.board[y][x]
		if step < m.N && !there.Empty() {
			return bad(RuleMoveBlocked)
		}
		if step == m.N && !there.Empty() && there.Colour == g.turn {
			return bad(RuleMoveOntoOwn)
		}
	}
	return nil
}

// Confirmation is what both AIs get after a legal move: the mover's line and what it did.
type Confirmation struct {
	Move     Move
	Combat   Combat
	Att, Def Piece // the pieces that met (Combat other than OK)
}

// String is the confirmation line: "X Y DIR [N] OK", or "... KILLS a d" and the like.
func (c Confirmation) String() string {
	s := c.Move.String() + " " + string(c.Combat)
	if c.Combat != OK {
		s += " " + c.Att.String() + " " + c.Def.String()
	}
	return s
}

// Play makes a legal move (see Check) of the side to move. A surrender ends the game; a
// move that takes the flag wins it; after a move, a side left without a piece that may
// move loses (a draw if neither has one), and the turn limit draws the game. The game must
// not be over.
func (g *Game) Play(m Move) (Confirmation, error) {
	if g.over {
		return Confirmation{}, fmt.Errorf("stratego: the game is over")
	}
	if err := g.Check(m); err != nil {
		return Confirmation{}, err
	}
	if m.Surrender {
		g.end(Surrender, g.turn)
		return Confirmation{Move: m}, nil
	}
	tx, ty := m.To()
	att := g.board[m.Y][m.X]
	def := g.board[ty][tx]
	g.board[m.Y][m.X] = Square{}
	c := Confirmation{Move: m, Combat: OK}
	switch {
	case def.Empty():
		g.board[ty][tx] = att
	default:
		c.Combat, c.Att, c.Def = Fight(att.Piece, def.Piece), att.Piece, def.Piece
		switch c.Combat {
		case Kills:
			g.board[ty][tx] = att
		case BothDie:
			g.board[ty][tx] = Square{}
		}
	}
	g.turns++
	mover := g.turn
	g.turn = mover.Other()
	switch {
	case c.Combat == Kills && def.Piece == Flag:
		g.end(Victory, mover)
	case !g.board.CanMove(Red) && !g.board.CanMove(Blue):
		g.end(Draw, g.turn)
	case !g.board.CanMove(g.turn):
		g.end(Victory, mover)
	case !g.board.CanMove(mover):
		g.end(Victory, g.turn)
	case g.turns >= g.limit:
		g.end(DrawDefault, g.turn)
	}
	return c, nil
}

// Pass gives the turn to the other side without a move (the manager's -i: an illegal move
// is not made, and its side loses the turn). It counts as a turn, so the turn limit still
// ends a game of nothing but illegal moves.
func (g *Game) Pass() {
	if g.over {
		return
	}
	g.turns++
	g.turn = g.turn.Other()
	if g.turns >= g.limit {
		g.end(DrawDefault, g.turn)
	}
}

// Forfeit ends the game for side c: an illegal move, a malformed line, silence (ILLEGAL),
// or a bad setup (BAD_SETUP).
func (g *Game) Forfeit(c Colour, o Outcome) { g.end(o, c) }

func (g *Game) end(o Outcome, about Colour) {
	g.over, g.outcome, g.about = true, o, about
}

// Result is the manager's result line: "NAME COLOUR OUTCOME TURNS RED_VALUE BLUE_VALUE",
// with the name and colour of the side the outcome names (names is indexed by Colour).
func (g *Game) Result(names [2]string) string {
	return names[g.about] + " " + g.about.String() + " " + string(g.outcome) + " " +
		strconv.Itoa(g.turns) + " " + strconv.Itoa(g.board.Value(Red)) + " " + strconv.Itoa(g.board.Value(Blue))
}

// EndWord is what side c is told at the end, after QUIT: VICTORY or DEFEAT, ILLEGAL for
// the side that broke the rules and DEFAULT for its opponent, DRAW for both in a draw.
func (g *Game) EndWord(c Colour) string {
	switch g.outcome {
	case Victory:
		if c == g.about {
			return "VICTORY"
		}
		return "DEFEAT"
	case Surrender:
		if c == g.about {
			return "DEFEAT"
		}
		return "VICTORY"
	case Illegal, BadSetup:
		if c == g.about {
			return "ILLEGAL"
		}
		return "DEFAULT"
	}
	return "DRAW"
}

// Points is what the competition's scoring gave a side for a game that ended with outcome
// o: named says whether the side is the one the outcome names (the result line's). VICTORY
// 0.3 / 0.1, SURRENDER 0 / 0.3, DRAW 0.2 / 0.2, DRAW_DEFAULT 0.1 / 0.1, ILLEGAL (and
// BAD_SETUP) -0.1 / +0.2, INTERNAL_ERROR 0 / 0.
func Points(o Outcome, named bool) float64 {
	pick := func(a, b float64) float64 {
		if named {
			return a
		}
		return b
	}
	switch o {
	case Victory:
		return pick(0.3, 0.1)
	case Surrender:
		return pick(0, 0.3)
	case Draw:
		return 0.2
	case DrawDefault:
		return 0.1
	case Illegal, BadSetup:
		return pick(-0.1, 0.2)
	}
	return 0
}

// ParseResult reads a result line back: the named side's colour, the outcome and the turns.
func ParseResult(line string) (named Colour, o Outcome, turns int, err error) {
	f := strings.Fields(line)
	if len(f) != 6 {
		return 0, "", 0, fmt.Errorf("stratego: result line %q has not 6 words", line)
	}
	if named, err = ParseColour(f[1]); err != nil {
		return 0, "", 0, err
	}
	if turns, err = strconv.Atoi(f[3]); err != nil {
		return 0, "", 0, fmt.Errorf("stratego: result line %q: turns", line)
	}
	return named, Outcome(f[2]), turns, nil
}
