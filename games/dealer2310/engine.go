package dealer2310

import (
	"errors"
	"strconv"
)

// StartMoney is the money every player starts with.
const StartMoney = 7

// MoEarnings is the money a Mo site gives.
const MoEarnings = 3

// PlayerState is what the game knows of one player.
type PlayerState struct {
	Site   int               // the site it stands on
	Money  int               // money in hand
	Points int               // points earned on Do sites (V1, V2 and items count at the end)
	V1, V2 int               // V1 and V2 sites visited
	Cards  [NumCardKinds]int // cards held: Cards[0] A ... Cards[4] E
	order  int               // when it arrived on its site: larger is more recent
}

// CardCount is the number of item cards the player holds.
func (s PlayerState) CardCount() int {
	n := 0
	for _, c := range s.Cards {
		n += c
	}
	return n
}

// Game is the state of one game: where everyone stands, what each holds, and how far the
// deck has been drawn. It is a plain value without I/O. The path and deck are shared and
// never changed; Clone copies the rest, so a clone can be played on independently.
//
// The dealer's game has the deck and makes moves with Move; a player's game (NewView) has
// no deck and follows the dealer's HAP messages with ApplyHAP. Both derive turn order,
// display and scores the same way.
type Game struct {
	path    Path
	deck    Deck
	drawn   int // cards drawn so far; the next card is deck[drawn%len(deck)]
	players []PlayerState
	clock   int // arrivals so far; stamps PlayerState.order
}

// ErrNoPlayers is returned by New for a game without players.
var ErrNoPlayers = errors.New("dealer2310: a game needs at least one player")

// ErrBadPath is returned by New for a path that ParsePath would refuse.
var ErrBadPath = errors.New("dealer2310: the path must have at least two sites and end in barriers")

// ErrNoDeck is returned by Move when a player lands on a Ri site of a game without a deck
// (a player's view, which learns cards from HAP messages instead).
var ErrNoDeck = errors.New("dealer2310: this game has no deck to draw from")

// New returns a game at its start: n players on site 0, each with StartMoney, the highest
// id having arrived first and player 0 last (so player 0 moves first).
func New(path Path, deck Deck, n int) (Game, error) {
	if n < 1 {
		return Game{}, ErrNoPlayers
	}
	if len(path) < MinPath || path[0].Type != Barrier || path[len(path)-1].Type != Barrier {
		return Game{}, ErrBadPath
	}
	g := Game{path: path, deck: deck, players: make([]PlayerState, n), clock: n}
	for i := range g.players {
		g.players[i] = PlayerState{Money: StartMoney, order: n - 1 - i}
	}
	return g, nil
}

// NewView returns a player's view of a game at its start: New without a deck.
func NewView(path Path, n int) (Game, error) { return New(path, nil, n) }

// Clone returns an independent copy of the game.
func (g Game) Clone() Game {
	g.players = append([]PlayerState(nil), g.players...)
	return g
}

// Path returns the path (shared: do not modify it).
func (g *Game) Path() Path { return g.path }

// Deck returns the deck (shared: do not modify it); nil in a player's view.
func (g *Game) Deck() Deck { return g.deck }

// NumPlayers is the number of players.
func (g *Game) NumPlayers() int { return len(g.players) }

// Player returns the state of player p.
func (g *Game) Player(p int) PlayerState { return g.players[p] }

// Occupied is the number of players on site s.
func (g *Game) Occupied(s int) int {
	n := 0
	for i := range g.players {
		if g.players[i].Site == s {
			n++
		}
	}
	return n
}

// HasRoom reports whether site s can take one more player.
func (g *Game) HasRoom(s int) bool {
	return g.path[s].HasRoom(g.Occupied(s))
}

// OnSite returns the players on site s in order of arrival, earliest first.
func (g *Game) OnSite(s int) []int {
	var ids []int
	for i := range g.players {
		if g.players[i].Site == s {
			ids = append(ids, i)
		}
	}
	// Insertion sort: sites hold few players.
	for i := 1; i < len(ids); i++ {
		for j := i; j > 0 && g.players[ids[j]].order < g.players[ids[j-1]].order; j-- {
			ids[j], ids[j-1] = ids[j-1], ids[j]
		}
	}
	return ids
}

// Over reports whether every player has reached the final barrier.
func (g *Game) Over() bool {
	last := len(g.path) - 1
	for i := range g.players {
		if g.players[i].Site != last {
			return false
		}
	}
	return true
}

// Next returns the player who moves next: the one furthest back and, among players on
// that site, the most recent arrival. It returns -1 when the game is over.
func (g *Game) Next() int {
	last := len(g.path) - 1
	best := -1
	for i := range g.players {
		p := &g.players[i]
		if p.Site == last {
			continue
		}
		if best < 0 || p.Site < g.players[best].Site ||
			(p.Site == g.players[best].Site && p.order > g.players[best].order) {
			best = i
		}
	}
	return best
}

// CheckMove reports whether player p may move to site s: nil if it may, else a *MoveError
// naming the rule broken. Rules are checked in this order: the site exists, it is ahead of
// the player, no barrier lies between them, and it has room.
func (g *Game) CheckMove(p, s int) error {
	fail := func(rule string) error { return &MoveError{Player: p, Site: s, Rule: rule} }
	if s < 0 || s >= len(g.path) {
		return fail(RuleMoveSite)
	}
	from := g.players[p].Site
	if s <= from {
		return fail(RuleMoveForward)
	}
	if s > g.path.NextBarrier(from) {
		return fail(RuleMoveBarrier)
	}
	if !g.HasRoom(s) {
		return fail(RuleMoveFull)
	}
	return nil
}

// Move moves the next player (Next) to site s, drawing a card on a Ri site, and returns
// the HAP message describing the move for the dealer to send to every player. An illegal
// move returns a *MoveError and leaves the game unchanged.
func (g *Game) Move(s int) (HAP, error) {
	p := g.Next()
	if p < 0 {
		return HAP{}, &MoveError{Player: -1, Site: s, Rule: RuleMoveOver}
	}
	if err := g.CheckMove(p, s); err != nil {
		return HAP{}, err
	}
	h := HAP{Player: p, Site: s}
	ps := &g.players[p]
	switch g.path[s].Type {
	case Mo:
		h.Money = MoEarnings
	case Do:
		h.Points = ps.Money / 2
		h.Money = -ps.Money
	case Ri:
		if len(g.deck) == 0 {
			return HAP{}, ErrNoDeck
		}
		h.Card = g.deck[g.drawn%len(g.deck)]
		g.drawn++
	}
	g.apply(h)
	return h, nil
}

// CheckHAP reports whether a HAP message names an existing player and site: the checks the
// spec asks of players (a *HAPError otherwise). Other semantic oddities are not checked.
func (g *Game) CheckHAP(h HAP) error {
	if h.Player < 0 || h.Player >= len(g.players) {
		return &HAPError{HAP: h, Rule: RuleHAPPlayer}
	}
	if h.Site < 0 || h.Site >= len(g.path) {
		return &HAPError{HAP: h, Rule: RuleHAPSite}
	}
	return nil
}

// ApplyHAP updates a player's view of the game with a HAP message from the dealer: the
// player moves (arriving last on its new site), its points, money and cards change as the
// message says, and a V1 or V2 site counts as visited.
func (g *Game) ApplyHAP(h HAP) error {
	if err := g.CheckHAP(h); err != nil {
		return err
	}
	g.apply(h)
	return nil
}

func (g *Game) apply(h HAP) {
	ps := &g.players[h.Player]
	ps.Site = h.Site
	ps.order = g.clock
	g.clock++
	ps.Points += h.Points
	ps.Money += h.Money
	if h.Card >= CardA && h.Card <= CardE {
		ps.Cards[h.Card-1]++
	}
	switch g.path[h.Site].Type {
	case V1:
		ps.V1++
	case V2:
		ps.V2++
	}
}

// StatusLine returns the line printed after player p moves, without '\n', e.g.
// "Player 0 Money=10 V1=0 V2=0 Points=0 A=0 B=0 C=0 D=0 E=0".
func (g *Game) StatusLine(p int) string {
	s := &g.players[p]
	b := make([]byte, 0, 64)
	b = append(b, "Player "...)
	b = strconv.AppendInt(b, int64(p), 10)
	b = append(b, " Money="...)
	b = strconv.AppendInt(b, int64(s.Money), 10)
	b = append(b, " V1="...)
	b = strconv.AppendInt(b, int64(s.V1), 10)
	b = append(b, " V2="...)
	b = strconv.AppendInt(b, int64(s.V2), 10)
	b = append(b, " Points="...)
	b = strconv.AppendInt(b, int64(s.Points), 10)
	for k := 0; k < NumCardKinds; k++ {
		b = append(b, ' ', 'A'+byte(k), '=')
		b = strconv.AppendInt(b, int64(s.Cards[k]), 10)
	}
	return string(b)
}
