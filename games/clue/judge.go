package clue

import (
	"fmt"
	"strconv"

	"gauntlet/games/judge"
)

// DefaultRounds bounds a game: after this many rounds without a right accusation it ends
// without a winner.
const DefaultRounds = 200

// ServerOptions set up the server's side of a game.
type ServerOptions struct {
	Seed   uint64 // the deal and the dice
	Rounds int    // the round limit (0: DefaultRounds)
	// EndOnViolation ends the game at the first broken rule (a mock server judging one
	// client). Without it, the judge stays where it was, still awaiting the same seat, so
	// that the server can hand the seat to a bot.
	EndOnViolation bool
	// Deal, when set, is played instead of the seed's, and Dice, when set, throws instead
	// of the seed's dice: a checker that watched another server's game (mock clients that
	// saw every hand and every roll) follows it with these.
	Deal *Dealing
	Dice func() int
}

// Dealing is a solution and the six hands.
type Dealing struct {
	Solution Triple
	Hands    [Tokens][]Card
}

type phase int

const (
	phaseCommand phase = iota
	phaseDestination
	phaseSuggestion
	phaseDisproof
	phaseAccusation
	phaseOver
)

// NewServer returns the server's side of a game between six seats, one per token, in the
// shape every game offers (games/judge): a hello to each seat, then each turn's messages,
// each awaited line checked against the rules. Its Log lines (the server's output) say
// what happened each turn and, at the end, the winner and the solution. Seats are tokens:
// seat 0 plays Scarlet.
func NewServer(o ServerOptions) *Server {
	if o.Rounds <= 0 {
		o.Rounds = DefaultRounds
	}
	g := NewGame(o.Seed)
	if o.Deal != nil {
		g.Solution, g.Hands = o.Deal.Solution, o.Deal.Hands
	}
	g.roll = o.Dice
	return &Server{o: o, g: g, awaiting: -1}
}

// Server is the server's side of a game (a judge.Judge).
type Server struct {
	o        ServerOptions
	g        *Game
	phase    phase
	roll     int
	sug      Triple
	awaiting int
	started  bool
	dropped  [Tokens]bool
}

// Game is the game the server plays (read only).
func (j *Server) Game() *Game { return j.g }

func (j *Server) Seats() int    { return Tokens }
func (j *Server) Awaiting() int { return j.awaiting }
func (j *Server) Over() bool    { return j.phase == phaseOver }
func (j *Server) Abort() []judge.Out {
	j.phase, j.awaiting = phaseOver, -1
	return nil
}

func msg(to int, name, data string) []judge.Out {
	return []judge.Out{{To: to, Line: name}, {To: to, Line: data}}
}

func logf(format string, args ...any) judge.Out {
	return judge.Out{To: judge.Log, Line: fmt.Sprintf(format, args...)}
}

// Welcome is the hello with the seat's token and cards.
func (j *Server) Welcome(s int) []judge.Out {
	return msg(s, MsgHello, Hello{Token: s, Cards: j.g.Hands[s]}.String())
}

// Start sends Scarlet its first turn.
func (j *Server) Start() []judge.Out {
	j.started = true
	return j.turn()
}

func (j *Server) turn() []judge.Out {
	j.phase, j.awaiting = phaseCommand, j.g.Turn
	return msg(j.g.Turn, MsgTurn, j.g.Board.String())
}

// AwaitsTurn reports whether the awaited seat is at the start of its turn (its answer is
// roll, no-roll or accuse).
func (j *Server) AwaitsTurn() bool { return j.phase == phaseCommand && j.awaiting >= 0 }

// Allowed says what the awaited seat may send now.
func (j *Server) Allowed() string {
	switch j.phase {
	case phaseCommand:
		if j.g.Board[j.g.Turn].InRoom() {
			return "roll, no-roll or accuse"
		}
		return "roll or accuse (no-roll only in a room)"
	case phaseDestination:
		return fmt.Sprintf("a destination reachable with %d: one of %v", j.roll, j.g.Board.Destinations(j.g.Turn, j.roll))
	case phaseSuggestion:
		return fmt.Sprintf("a suggestion (SUSPECT WEAPON %c)", j.g.Board[j.g.Turn].Room)
	case phaseDisproof:
		var cs []string
		for _, c := range j.sug.Cards() {
			if j.g.Holds(j.awaiting, c) {
				cs = append(cs, c.String())
			}
		}
		return fmt.Sprintf("one of the cards %v", cs)
	case phaseAccusation:
		return "an accusation (SUSPECT WEAPON ROOM)"
	}
	return "nothing: the game is over"
}

// Take checks the awaited seat's line and says what follows.
func (j *Server) Take(line string) ([]judge.Out, *judge.Violation) {
	if j.awaiting < 0 {
		panic("clue: Take while nothing is awaited")
	}
	outs, rule := j.take(line)
	if rule == "" {
		return outs, nil
	}
	v := &judge.Violation{Seat: j.awaiting, Line: line, Rule: rule}
	if j.o.EndOnViolation {
		j.phase, j.awaiting = phaseOver, -1
	}
	return nil, v
}

func (j *Server) take(line string) ([]judge.Out, string) {
	g, t := j.g, j.g.Turn
	name := Suspects[t]
	switch j.phase {
	case phaseCommand:
		switch line {
		case CmdRoll:
			j.roll = g.Roll()
		case CmdNoRoll:
			if !g.Board[t].InRoom() {
				return nil, "no-roll is for a token in a room"
			}
			j.roll = 0
		case CmdAccuse:
			j.phase = phaseAccusation
			return msg(t, MsgAccuse, "?"), ""
		default:
			return nil, "a turn is answered with roll, no-roll or accuse"
		}
		j.phase = phaseDestination
		return msg(t, MsgRolled, strconv.Itoa(j.roll)), ""
	case phaseDestination:
		dest, err := ParseDestination(line)
		if err != nil {
			return nil, "a destination is (ROW COLUMN) or (ROOM V): " + err.Error()
		}
		suggest, err := g.Move(j.roll, dest)
		if err != nil {
			return nil, err.Error()
		}
		outs := []judge.Out{logf("%s rolled %d: %v", name, j.roll, dest)}
		if j.roll == 0 {
			outs[0] = logf("%s did not roll: %v", name, dest)
		}
		if suggest {
			j.phase = phaseSuggestion
			return append(outs, msg(t, MsgSuggest, "?")...), ""
		}
		outs = append(outs, j.tellOthers(Moved{Board: g.Board, Mover: t, Disprover: -1}, -1)...)
		return append(outs, j.next()...), ""
	case phaseSuggestion:
		tr, err := ParseTriple(line)
		if err != nil {
			return nil, "a suggestion is (SUSPECT WEAPON ROOM): " + err.Error()
		}
		d, err := g.Suggest(tr)
		if err != nil {
			return nil, err.Error()
		}
		j.sug = tr
		if d < 0 {
			outs := []judge.Out{logf("%s suggested %v: not disproved", name, tr)}
			outs = append(outs, msg(t, MsgCounter, Counter{Disprover: -1}.String())...)
			outs = append(outs, j.tellOthers(Moved{Board: g.Board, Mover: t, Suggestion: &tr, Disprover: -1}, -1)...)
			return append(outs, j.next()...), ""
		}
		j.phase, j.awaiting = phaseDisproof, d
		if j.dropped[d] {
			return j.disprove(j.firstCard(d)), ""
		}
		return msg(d, MsgMoved, Moved{Board: g.Board, Mover: t, Suggestion: &tr, Disprover: d}.String()), ""
	case phaseDisproof:
		d := j.awaiting
		c, err := ParseCard(line)
		if err == nil {
			err = g.CheckDisproof(d, j.sug, c)
		}
		if err != nil {
			return nil, "a disproof is one of the suggestion's cards that the disprover holds: " + err.Error()
		}
		return j.disprove(c), ""
	case phaseAccusation:
		tr, err := ParseTriple(line)
		if err != nil {
			return nil, "an accusation is (SUSPECT WEAPON ROOM): " + err.Error()
		}
		if g.Accuse(tr) {
			j.phase, j.awaiting = phaseOver, -1
			return []judge.Out{logf("%s accused %v: right", name, tr), logf("winner %s", name),
				logf("solution %v", g.Solution)}, ""
		}
		outs := []judge.Out{logf("%s accused %v: wrong", name, tr)}
		outs = append(outs, msg(t, MsgWrong, "!")...)
		outs = append(outs, j.tellOthers(Moved{Board: g.Board, Mover: t, Disprover: -1}, -1)...)
		return append(outs, j.next()...), ""
	}
	panic("clue: Take in no phase")
}

// disprove ends a suggestion that the awaited seat disproved with c.
func (j *Server) disprove(c Card) []judge.Out {
	g, t, d := j.g, j.g.Turn, j.awaiting
	outs := []judge.Out{logf("%s suggested %v: disproved by %s with %v", Suspects[t], j.sug, Suspects[d], c)}
	outs = append(outs, msg(t, MsgCounter, Counter{Card: c, Disprover: d}.String())...)
	outs = append(outs, j.tellOthers(Moved{Board: g.Board, Mover: t, Suggestion: &j.sug, Disprover: d}, d)...)
	return append(outs, j.next()...)
}

// firstCard is the first card of the suggestion that seat d holds.
func (j *Server) firstCard(d int) Card {
	for _, c := range j.sug.Cards() {
		if j.g.Holds(d, c) {
			return c
		}
	}
	panic("clue: the disprover holds none of the suggestion")
}

// Drop takes seat s out of the game (its client broke a rule, was too slow or went
// away): it takes no more turns, as if it had accused wrongly, and the server disproves
// for it with the first card of a suggestion it holds. A turn it was in the middle of ends
// there (the others are told it moved where it now is); a disproof it owed is made. The
// lines returned are what follows, as from Take.
func (j *Server) Drop(s int) []judge.Out {
	if j.dropped[s] || j.phase == phaseOver {
		return nil
	}
	j.dropped[s] = true
	j.g.Out[s] = true
	outs := []judge.Out{logf("%s is out of the game", Suspects[s])}
	switch {
	case j.awaiting != s:
		return outs
	case j.phase == phaseDisproof:
		return append(outs, j.disprove(j.firstCard(s))...)
	}
	outs = append(outs, j.tellOthers(Moved{Board: j.g.Board, Mover: s, Disprover: -1}, -1)...)
	return append(outs, j.next()...)
}

// Dropped reports whether seat s was dropped.
func (j *Server) Dropped(s int) bool { return j.dropped[s] }

// Accepts reports whether the awaited seat's line would be taken without breaking a rule,
// leaving the game as it is (for a fuzzer that wants only lines a server must refuse).
func (j *Server) Accepts(line string) bool {
	if j.awaiting < 0 {
		return false
	}
	c := *j
	g := *j.g
	c.g = &g
	_, rule := c.take(line)
	return rule == ""
}

// tellOthers sends m to every seat but the mover and skip, in turn order after the mover.
func (j *Server) tellOthers(m Moved, skip int) []judge.Out {
	var outs []judge.Out
	for i := 1; i < Tokens; i++ {
		if s := (m.Mover + i) % Tokens; s != skip {
			outs = append(outs, msg(s, MsgMoved, m.String())...)
		}
	}
	return outs
}

// next gives the turn to the next token still in the game, or ends the game.
func (j *Server) next() []judge.Out {
	if !j.g.Next() || j.g.Round > j.o.Rounds {
		j.phase, j.awaiting = phaseOver, -1
		why := "every token accused wrongly"
		if j.g.Active() {
			why = fmt.Sprintf("%d rounds played", j.o.Rounds)
		}
		return []judge.Out{logf("no winner: %s", why), logf("solution %v", j.g.Solution)}
	}
	return j.turn()
}
