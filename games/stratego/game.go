package stratego

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// DefaultTurnLimit is the manager's default turn limit, counted in turns as the result line
// counts them (a turn is a move of each side): the game is drawn when turn 5000 would
// begin, after 4999 turns (9,998 moves).
const DefaultTurnLimit = 5000

// NoTurnLimit, as a turn limit, lets a game go on for ever (the manager's -m inf).
const NoTurnLimit = -1

// NeitherName is the result line's name when it names both sides.
const NeitherName = "neither"

// Outcome is how a game ended, as the result line says it.
type Outcome string

// The outcomes. The result line names one side: the winner for VICTORY, the side that
// surrendered, made the illegal move or the bad setup for SURRENDER, ILLEGAL and BAD_SETUP
// (Both when both sides set up badly), and the side that made the last move for DRAW and
// DRAW_DEFAULT (the side on whose turn the game ended: BLUE for DRAW_DEFAULT, but RED
// for a limit of 1, which ends the game before RED's first move).
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
	// VictoryFlag replaces "KILLS a F" in the confirmation of the move that takes the flag,
	// as the 2012 manager's last move line differs there (docs/stratego.md).
	VictoryFlag Combat = "VICTORY_FLAG"
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
	moves   int // moves made, the passes of -i included
	turns   int // the result line's TURNS, set when the game ends
	limit   int
	over    bool
	outcome Outcome
	about   Colour // the side the outcome names
	reason  string
	byFlag  bool // a VICTORY by taking the flag (the -o log says so)
}

// New starts a game from both setups; RED moves first. limit is the turn limit in turns
// (0: DefaultTurnLimit; below 0, NoTurnLimit: none): the game is drawn (DRAW_DEFAULT) once
// limit-1 turns, each a move of RED then one of BLUE, are over; a limit of 1 draws it
// before any move.
func New(red, blue Setup, limit int) *Game {
	switch {
	case limit == 0:
		limit = DefaultTurnLimit
	case limit < 0:
		limit = math.MaxInt / 4 // never reached: 2*(limit-1) moves would outlast the machine
	}
	g := &Game{limit: limit}
	for i := range SetupRows {
		for x := range Size {
			g.board[rowOf(Red, i)][x] = Square{red[i][x], Red}
			g.board[rowOf(Blue, i)][x] = Square{blue[i][x], Blue}
		}
	}
	if limit == 1 {
		g.end(DrawDefault, Red) // no turn began: the 2012 manager names RED, whose turn it was
	}
	return g
}

// Begin starts a game from the two sides' setup answers (the rows each sent, fewer than 4
// when it fell silent), as the 2012 manager did: both sides are asked, whatever the first
// answered; the pieces of a setup are placed up to its first error (ParseSetup) and stay;
// and a bad setup ends the game as BAD_SETUP before any move, naming that side, or Both
// ("neither BOTH") when both are bad. errs says what was wrong with each answer.
func Begin(answers [2][]string, limit int) (g *Game, errs [2]error) {
	var setups [2]Setup
	for c := range answers {
		setups[c], errs[c] = ParseSetup(answers[c])
	}
	g = New(setups[Red], setups[Blue], limit)
	switch {
	case errs[Red] != nil && errs[Blue] != nil:
		g.Forfeit(Both, BadSetup, SetupReason(Red, answers[Red], errs[Red])+"; "+SetupReason(Blue, answers[Blue], errs[Blue]))
	case errs[Red] != nil:
		g.Forfeit(Red, BadSetup, SetupReason(Red, answers[Red], errs[Red]))
	case errs[Blue] != nil:
		g.Forfeit(Blue, BadSetup, SetupReason(Blue, answers[Blue], errs[Blue]))
	}
	return g, errs
}

// Board returns the board (read it only).
func (g *Game) Board() *Board { return &g.board }

// Turn is the side to move.
func (g *Game) Turn() Colour { return g.turn }

// Moves is the number of moves made (the passes of -i included).
func (g *Game) Moves() int { return g.moves }

// Turns is the result line's TURNS, counted as the 2012 manager counted them: the turn the
// game ended in, a turn being a move of RED then one of BLUE, from 1 (so a game won by
// BLUE's 138th move ends in turn 138, and an illegal first move in turn 1); 0 for a game
// that ended at the setup; the limit itself for DRAW_DEFAULT. While the game goes on, it
// is the turn of the next move.
func (g *Game) Turns() int {
	if g.over {
		return g.turns
	}
	return g.turn1()
}

// turn1 is the turn the next move belongs to.
func (g *Game) turn1() int { return g.moves/2 + 1 }

// Reason says why the game ended as it did, for ILLEGAL, BAD_SETUP and INTERNAL_ERROR (as
// Forfeit was told), else "".
func (g *Game) Reason() string { return g.reason }

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

// String is the confirmation line: "X Y DIR [N] OK", or "... KILLS a d" and the like, and
// "... VICTORY_FLAG" for the move that takes the flag.
func (c Confirmation) String() string {
	s := c.Move.String() + " " + string(c.Combat)
	if c.Combat != OK && c.Combat != VictoryFlag {
		s += " " + c.Att.String() + " " + c.Def.String()
	}
	return s
}

// Play makes a legal move (see Check) of the side to move. A surrender ends the game; a
// move that takes the flag wins it; after a move, a side left without a piece that may
// move loses (a draw if neither has one), and the turn limit draws the game. As in 2012, a
// BLUE move that leaves BLUE itself without a movable piece ends the game in the next turn
// (RED's VICTORY in turn N+1), or as the limit's DRAW_DEFAULT when that turn is the limit.
// The game must not be over.
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
	turn := g.turn1()
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
	g.moves++
	mover := g.turn
	g.turn = mover.Other()
	switch {
	case c.Combat == Kills && def.Piece == Flag:
		c.Combat = VictoryFlag
		g.endIn(turn, Victory, mover)
		g.byFlag = true
	case !g.board.CanMove(Red) && !g.board.CanMove(Blue):
		g.endIn(turn, Draw, mover)
	case !g.board.CanMove(g.turn):
		g.endIn(turn, Victory, mover)
	case !g.board.CanMove(mover) && mover == Red:
		g.endIn(turn, Victory, Blue)
	case !g.board.CanMove(mover):
		// BLUE's own move left it no piece that may move: as in 2012, the game ends when
		// the next turn begins (RED wins in turn N+1), unless the turn limit ends it there
		// first (BLUE DRAW_DEFAULT).
		if !g.checkLimit() {
			g.endIn(turn+1, Victory, Red)
		}
	default:
		g.checkLimit()
	}
	return c, nil
}

// checkLimit draws the game when the turn limit is reached: after BLUE's move (or pass)
// that ends turn limit-1, the result line counting the limit. It reports whether it did.
func (g *Game) checkLimit() bool {
	if g.moves >= 2*(g.limit-1) {
		g.end(DrawDefault, g.turn.Other())
		return true
	}
	return false
}

// Pass gives the turn to the other side without a move (the manager's -i: an illegal move
// is not made, and its side loses the turn). It counts as a turn, so the turn limit still
// ends a game of nothing but illegal moves.
func (g *Game) Pass() {
	if g.over {
		return
	}
	g.moves++
	g.turn = g.turn.Other()
	g.checkLimit()
}

// Forfeit ends the game for side c (Both: a bad setup of each) for the reason given: an
// illegal move, a malformed line, silence (ILLEGAL), a bad setup (BAD_SETUP, in turn 0),
// or the manager's own failure (INTERNAL_ERROR).
func (g *Game) Forfeit(c Colour, o Outcome, reason string) {
	turn := g.turn1()
	if o == BadSetup {
		turn = 0
	}
	g.endIn(turn, o, c)
	g.reason = reason
}

// end ends the game in the turn of the next move.
func (g *Game) end(o Outcome, about Colour) { g.endIn(g.turn1(), o, about) }

func (g *Game) endIn(turn int, o Outcome, about Colour) {
	g.over, g.turns, g.outcome, g.about = true, turn, o, about
}

// Result is the manager's result line: "NAME COLOUR OUTCOME TURNS RED_VALUE BLUE_VALUE",
// with the name and colour of the side the outcome names (names is indexed by Colour;
// "neither BOTH" for both sides).
func (g *Game) Result(names [2]string) string {
	name := NeitherName
	if g.about != Both {
		name = names[g.about]
	}
	return name + " " + g.about.String() + " " + string(g.outcome) + " " +
		strconv.Itoa(g.Turns()) + " " + strconv.Itoa(g.board.Value(Red)) + " " + strconv.Itoa(g.board.Value(Blue))
}

// Why is the account of an ILLEGAL, BAD_SETUP or INTERNAL_ERROR end: "COLOUR OUTCOME:
// reason" (the manager writes it on its stderr and in its -o log); "" for other ends.
func (g *Game) Why() string {
	switch g.outcome {
	case Illegal, BadSetup, Internal:
		return g.about.String() + " " + string(g.outcome) + ": " + g.reason
	}
	return ""
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
		if c == g.about || g.about == Both {
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

// ParseResult reads a result line back: the named side's colour (Both for "BOTH"), the
// outcome and the turns.
func ParseResult(line string) (named Colour, o Outcome, turns int, err error) {
	f := strings.Fields(line)
	if len(f) != 6 {
		return 0, "", 0, fmt.Errorf("stratego: result line %q has not 6 words", line)
	}
	if f[1] == Both.String() {
		named = Both
	} else if named, err = ParseColour(f[1]); err != nil {
		return 0, "", 0, err
	}
	if turns, err = strconv.Atoi(f[3]); err != nil {
		return 0, "", 0, fmt.Errorf("stratego: result line %q: turns", line)
	}
	return named, Outcome(f[2]), turns, nil
}
