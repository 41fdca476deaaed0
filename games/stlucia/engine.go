package stlucia

import (
	"errors"
	"strconv"
)

// Game constants from the rules.
const (
	MaxHealth      = 10 // starting and largest health
	MaxRerolls     = 2  // rerolls allowed in a turn
	TokensPerPoint = 10 // tokens (P dice) traded for one point
	StartBonus     = 2  // points for starting a turn in StLucia
	ClaimBonus     = 1  // points for claiming StLucia
)

// Log is the Out.To of a line the hub prints on its own stderr.
const Log = -1

// Out is one thing the hub must do, in order: send Msg to player To, or, when To is Log,
// print Text (plus '\n') on its stderr.
type Out struct {
	To   int    // index of the receiving player, or Log
	Msg  Msg    // the message, when To >= 0
	Text string // the stderr line without '\n', when To == Log
}

// Line is what Out puts on its stream, without the '\n'.
func (o Out) Line() string {
	if o.To == Log {
		return o.Text
	}
	return o.Msg.String()
}

// Ends reports whether o is a winner, eliminated or shutdown message: the messages after
// which the spec gives players 2 seconds to exit.
func (o Out) Ends() bool {
	return o.To >= 0 && (o.Msg.Kind == MsgWinner || o.Msg.Kind == MsgEliminated || o.Msg.Kind == MsgShutdown)
}

// Ask says which reply the game waits for.
type Ask uint8

const (
	AskNone Ask = iota // no reply awaited: not started, or over
	AskDice            // "reroll ..." or "keepall", after turn or rerolled
	AskStay            // "stay" or "go", after stay?
)

// PlayerState is what the hub knows of one player.
type PlayerState struct {
	Score  int  // points so far
	Health int  // 0 to MaxHealth
	Tokens int  // P dice not yet traded for a point
	Gone   bool // eliminated
}

// Game is the hub's state machine: the whole game as a plain value. It does no I/O: each
// method returns the Outs the hub must carry out. Copying a Game (g2 := g) gives an
// independent game; only the roll stream, which is never written, is shared.
type Game struct {
	rolls    []Face
	pos      int // next die to draw from rolls
	win      int
	n        int
	players  [MaxPlayers]PlayerState
	left     int  // players not eliminated
	occupant int  // player in StLucia, or -1
	turn     int  // the current player
	ask      Ask  // the reply awaited from turn (AskDice) or occupant (AskStay)
	started  bool // Start was called
	over     bool
	winner   int // -1 unless a player won
	dice     Roll
	rerolls  int // rerolls made this turn
	bonus    int // StartBonus when the turn began in StLucia
	rules    Rules
}

// Rules holds the readings of the rules where the spec leaves more than one behaviour
// defensible. The zero value is the reference hub's reading. The suite accepts each
// alternative (docs/stlucia.md, "Accepted alternatives") and its tests check an
// alternative's expected output against the engine playing with these Rules.
type Rules struct {
	// NoClaimOnKill: an attacker from outside who kills the occupant does not claim
	// StLucia; the occupant's elimination leaves it empty. The reference: the attacker
	// claims it (rules section 4, the majority of the implementations compared).
	NoClaimOnKill bool
}

// SetRules makes the game follow r instead of the reference reading. Call it before Start.
func (g *Game) SetRules(r Rules) { g.rules = r }

// New returns a game of n players playing to winscore points and drawing dice from rolls
// (the dice of a roll file, in order; the stream wraps round). Call Start to begin.
func New(rolls []Face, winscore, n int) (Game, error) {
	switch {
	case len(rolls) == 0:
		return Game{}, errors.New("stlucia: no dice to roll")
	case winscore < 1:
		return Game{}, errors.New("stlucia: winscore must be positive")
	case n < MinPlayers || n > MaxPlayers:
		return Game{}, errors.New("stlucia: 2 to 26 players")
	}
	g := Game{rolls: rolls, win: winscore, n: n, left: n, occupant: -1, winner: -1}
	for i := 0; i < n; i++ {
		g.players[i].Health = MaxHealth
	}
	return g, nil
}

// N is the number of players the game started with.
func (g *Game) N() int { return g.n }

// Left is the number of players not eliminated.
func (g *Game) Left() int { return g.left }

// Player returns the state of player i.
func (g *Game) Player(i int) PlayerState { return g.players[i] }

// Occupant is the player in StLucia, or -1.
func (g *Game) Occupant() int { return g.occupant }

// Turn is the player whose turn it is.
func (g *Game) Turn() int { return g.turn }

// Dice are the current player's dice.
func (g *Game) Dice() Roll { return g.dice }

// Rerolls is how many rerolls the current player has made this turn.
func (g *Game) Rerolls() int { return g.rerolls }

// Pos is the index in the roll stream of the next die to be drawn.
func (g *Game) Pos() int { return g.pos }

// Over reports whether the game has ended, by a win or by Shutdown.
func (g *Game) Over() bool { return g.over }

// Winner is the player who won, or -1.
func (g *Game) Winner() int { return g.winner }

// Awaiting says whose reply the hub must read next and what kind it is; (-1, AskNone) when
// no reply is awaited.
func (g *Game) Awaiting() (int, Ask) {
	switch g.ask {
	case AskDice:
		return g.turn, AskDice
	case AskStay:
		return g.occupant, AskStay
	}
	return -1, AskNone
}

// Start begins the first turn (player A's) and returns what the hub does: send it its roll.
func (g *Game) Start() []Out {
	if g.started {
		panic("stlucia: Start called twice")
	}
	g.started = true
	return g.startTurn(nil, 0)
}

// Reply feeds the engine the line the awaited player sent (without '\n'). A line that is
// not a player message gives a *ReplyError with ExitMalformed; a well-formed message that is
// not legal now, or any line while no reply is awaited (before Start, after the end), gives
// ExitIllegal. The game is unchanged by a refused reply.
func (g *Game) Reply(line string) ([]Out, error) {
	p, ask := g.Awaiting()
	if ask == AskNone {
		// Refused like any illegal reply (as dealer2310's Move once the game is over):
		// the engine's caller is told, not crashed.
		return nil, &ReplyError{Player: -1, Line: line, Status: ExitIllegal, Rule: RuleAwaited}
	}
	r, err := ParseReply(line)
	if err != nil {
		var fe *FormatError
		errors.As(err, &fe)
		return nil, &ReplyError{Player: p, Line: line, Status: ExitMalformed, Rule: fe.Rule}
	}
	if err := g.Check(r); err != nil {
		err.(*ReplyError).Line = line
		return nil, err
	}
	return g.apply(r), nil
}

// Check says whether r is a legal reply from the awaited player now: nil, or a *ReplyError
// with ExitIllegal naming the rule (RuleAwaited when no reply is awaited).
func (g *Game) Check(r Reply) error {
	p, ask := g.Awaiting()
	illegal := func(rule string) error {
		return &ReplyError{Player: p, Line: r.String(), Status: ExitIllegal, Rule: rule}
	}
	switch ask {
	case AskDice:
		switch r.Kind {
		case ReplyKeepAll:
			return nil
		case ReplyReroll:
			if g.rerolls >= MaxRerolls {
				return illegal(RuleRerollLimit)
			}
			if len(r.Faces) > DiceCount || !g.dice.Contains(r.Dice()) {
				return illegal(RuleRerollHeld)
			}
			return nil
		}
		return illegal(RuleExpectDice)
	case AskStay:
		if r.Kind == ReplyStay || r.Kind == ReplyGo {
			return nil
		}
		return illegal(RuleExpectStay)
	}
	return &ReplyError{Player: -1, Line: r.String(), Status: ExitIllegal, Rule: RuleAwaited}
}

// Apply carries out a legal reply r (see Check) and returns what the hub does next.
func (g *Game) Apply(r Reply) ([]Out, error) {
	if err := g.Check(r); err != nil {
		return nil, err
	}
	return g.apply(r), nil
}

func (g *Game) apply(r Reply) []Out {
	switch r.Kind {
	case ReplyReroll:
		d := r.Dice()
		g.dice = g.dice.Minus(d).Plus(g.draw(len(r.Faces)))
		g.rerolls++
		return g.send(nil, g.turn, Msg{Kind: MsgRerolled, Dice: g.dice})
	case ReplyKeepAll:
		return g.finish(nil)
	case ReplyStay:
		g.ask = AskNone
		return g.endTurn(nil, false)
	default: // ReplyGo
		g.ask = AskNone
		return g.endTurn(nil, true)
	}
}

// Shutdown ends the game early (an error or a signal): it sends shutdown to every remaining
// player. It does nothing once the game is over.
func (g *Game) Shutdown() []Out {
	if g.over {
		return nil
	}
	g.over, g.ask = true, AskNone
	return g.sendAll(nil, Msg{Kind: MsgShutdown})
}

// draw takes k dice from the stream, wrapping round at its end.
func (g *Game) draw(k int) Roll {
	var r Roll
	for ; k > 0; k-- {
		r[g.rolls[g.pos]]++
		g.pos++
		if g.pos == len(g.rolls) {
			g.pos = 0
		}
	}
	return r
}

// startTurn gives player p a new roll.
func (g *Game) startTurn(outs []Out, p int) []Out {
	g.turn, g.rerolls, g.bonus = p, 0, 0
	if g.occupant == p {
		g.bonus = StartBonus
	}
	g.dice = g.draw(DiceCount)
	g.ask = AskDice
	return g.send(outs, p, Msg{Kind: MsgTurn, Dice: g.dice})
}

// finish carries out steps 1 to 3 of a turn once the dice are final (rules section 4), and
// goes on to the rest unless the occupant must first be asked stay?.
func (g *Game) finish(outs []Out) []Out {
	x, d := g.turn, g.dice
	g.ask = AskNone
	outs = g.log(outs, x, " rolled ", d.String())
	for y := 0; y < g.n; y++ {
		if y != x && !g.players[y].Gone {
			outs = g.send(outs, y, Msg{Kind: MsgRolled, Player: x, Dice: d})
		}
	}
	inside := g.occupant == x
	if h := d.Count(Heal); h > 0 && !inside {
		ps := &g.players[x]
		k := min(h, MaxHealth-ps.Health)
		ps.Health += k
		outs = g.log(outs, x, " healed ", strconv.Itoa(k), ", health is now ", strconv.Itoa(ps.Health))
	}
	a := d.Count(Attack)
	switch {
	case a == 0:
		return g.endTurn(outs, false)
	case inside:
		outs = g.sendAll(outs, Msg{Kind: MsgAttacks, Player: x, Value: a, Out: true})
		for y := 0; y < g.n; y++ {
			if y != x && !g.players[y].Gone {
				outs = g.damage(outs, y, a)
			}
		}
		return g.endTurn(outs, false)
	case g.occupant >= 0:
		y := g.occupant
		outs = g.damage(outs, y, a)
		outs = g.sendAll(outs, Msg{Kind: MsgAttacks, Player: x, Value: a})
		if g.players[y].Health == 0 {
			// A killed occupant is not asked; the attacker claims (rules section 4),
			// unless the game follows the other reading (Rules.NoClaimOnKill).
			return g.endTurn(outs, !g.rules.NoClaimOnKill)
		}
		g.ask = AskStay
		return g.send(outs, y, Msg{Kind: MsgStay})
	default:
		return g.endTurn(outs, true)
	}
}

// damage takes up to a health from player y and logs it.
func (g *Game) damage(outs []Out, y, a int) []Out {
	ps := &g.players[y]
	k := min(a, ps.Health)
	ps.Health -= k
	return g.log(outs, y, " took ", strconv.Itoa(k), " damage, health is now ", strconv.Itoa(ps.Health))
}

// endTurn carries out steps 4 to 8 of a turn: the claim (when claim is set), points,
// eliminations, game over, and the next player's turn.
func (g *Game) endTurn(outs []Out, claim bool) []Out {
	x := g.turn
	ps := &g.players[x]
	pts := g.bonus
	if claim {
		g.occupant = x
		pts += ClaimBonus
		outs = g.log(outs, x, " claimed StLucia")
		outs = g.sendAll(outs, Msg{Kind: MsgClaim, Player: x})
	}
	pts += DicePoints(g.dice)
	ps.Tokens += g.dice.Count(Point)
	if ps.Tokens >= TokensPerPoint {
		ps.Tokens -= TokensPerPoint
		pts++
	}
	if pts > 0 {
		ps.Score += pts
		outs = g.log(outs, x, " scored ", strconv.Itoa(pts), " for a total of ", strconv.Itoa(ps.Score))
		outs = g.sendAll(outs, Msg{Kind: MsgPoints, Player: x, Value: pts})
	}
	for y := 0; y < g.n; y++ {
		if q := &g.players[y]; !q.Gone && q.Health == 0 {
			outs = g.sendAll(outs, Msg{Kind: MsgEliminated, Player: y})
			q.Gone = true
			g.left--
			if g.occupant == y {
				g.occupant = -1
			}
		}
	}
	if ps.Score >= g.win || g.left == 1 {
		g.over, g.winner = true, x
		outs = g.log(outs, x, " wins")
		return g.sendAll(outs, Msg{Kind: MsgWinner, Player: x})
	}
	next := x
	for {
		next = (next + 1) % g.n
		if !g.players[next].Gone {
			break
		}
	}
	return g.startTurn(outs, next)
}

// DicePoints is what the number faces of final dice r score: n ones give n-2, n twos n-1
// and n threes n, for n >= 3.
func DicePoints(r Roll) int {
	p := 0
	if n := r.Count(One); n >= 3 {
		p += n - 2
	}
	if n := r.Count(Two); n >= 3 {
		p += n - 1
	}
	if n := r.Count(Three); n >= 3 {
		p += n
	}
	return p
}

func (g *Game) send(outs []Out, to int, m Msg) []Out {
	return append(outs, Out{To: to, Msg: m})
}

// sendAll sends m to every remaining player, in label order.
func (g *Game) sendAll(outs []Out, m Msg) []Out {
	for y := 0; y < g.n; y++ {
		if !g.players[y].Gone {
			outs = append(outs, Out{To: y, Msg: m})
		}
	}
	return outs
}

// log appends the stderr line "Player X" followed by parts.
func (g *Game) log(outs []Out, x int, parts ...string) []Out {
	n := 8
	for _, p := range parts {
		n += len(p)
	}
	b := make([]byte, 0, n)
	b = append(b, "Player "...)
	b = append(b, Label(x))
	for _, p := range parts {
		b = append(b, p...)
	}
	return append(outs, Out{To: Log, Text: string(b)})
}

// ExitLine is the hub's report of how player i ended, printed in label order at shutdown:
// "" for exit status 0, "Player X exited with status N", or, when signal is not 0,
// "Player X terminated due to signal N".
func ExitLine(i, status, signal int) string {
	switch {
	case signal != 0:
		return "Player " + string(Label(i)) + " terminated due to signal " + strconv.Itoa(signal)
	case status != 0:
		return "Player " + string(Label(i)) + " exited with status " + strconv.Itoa(status)
	}
	return ""
}
