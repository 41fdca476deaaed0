package clue

import (
	"fmt"
	"math/rand/v2"
)

// HandSize is the number of cards each of the six seats is dealt: the 18 cards left once
// the solution is drawn.
const HandSize = (Cards - 3) / Tokens

// Deal draws the solution and the six hands from seed: the same seed, the same deal. The
// solution is one card of each kind drawn in turn; the other 18 are shuffled and dealt
// three to each seat in token order, each hand sorted by card number.
func Deal(seed uint64) (Triple, [Tokens][]Card) {
	r := rand.New(rand.NewPCG(seed, 0xc1e))
	sol := Triple{Suspect: r.IntN(Tokens), Weapon: r.IntN(len(Weapons)), Room: Rooms[r.IntN(len(Rooms))]}
	var rest []Card
	for c := range Card(Cards) {
		if c != SuspectCard(sol.Suspect) && c != WeaponCard(sol.Weapon) && c != RoomCard(sol.Room) {
			rest = append(rest, c)
		}
	}
	r.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
	var hands [Tokens][]Card
	for t := range hands {
		h := append([]Card(nil), rest[t*HandSize:(t+1)*HandSize]...)
		sortCards(h)
		hands[t] = h
	}
	return sol, hands
}

func sortCards(h []Card) {
	for i := 1; i < len(h); i++ {
		for j := i; j > 0 && h[j] < h[j-1]; j-- {
			h[j], h[j-1] = h[j-1], h[j]
		}
	}
}

// Game is a game's state as the server keeps it: the deal, the board, who has accused
// wrongly, whose turn it is and the dice.
type Game struct {
	Solution Triple
	Hands    [Tokens][]Card
	Board    State
	Out      [Tokens]bool // accused wrongly: no more turns, still disproves
	Turn     int          // the token whose turn it is
	Round    int          // 1 for the first round
	Winner   int          // the token that accused rightly, or -1
	dice     *rand.Rand
	roll     func() int // replaces dice when set
}

// NewGame deals from seed and puts every token on its start square; Scarlet (0) moves first.
func NewGame(seed uint64) *Game {
	g := &Game{Board: InitialState(), Winner: -1, Round: 1,
		dice: rand.New(rand.NewPCG(seed, 0xd1ce))}
	g.Solution, g.Hands = Deal(seed)
	return g
}

// Roll throws two dice: 2 to 12.
func (g *Game) Roll() int {
	if g.roll != nil {
		return g.roll()
	}
	return 2 + g.dice.IntN(6) + g.dice.IntN(6)
}

// Holds reports whether token t was dealt card c.
func (g *Game) Holds(t int, c Card) bool {
	for _, h := range g.Hands[t] {
		if h == c {
			return true
		}
	}
	return false
}

// Move moves the token whose turn it is to dest after a roll of steps (0: no roll), and
// reports whether it may now make a suggestion: it ended in a room that it entered this
// turn, or in which it stayed after a suggestion had moved it there.
func (g *Game) Move(steps int, dest Pos) (suggest bool, err error) {
	t := g.Turn
	if steps == 0 && !g.Board[t].InRoom() {
		return false, fmt.Errorf("only a token in a room may go without rolling")
	}
	if !g.Board.CanReach(t, steps, dest) {
		if steps == 0 {
			return false, fmt.Errorf("%v is neither the room %c nor its secret passage", dest, g.Board[t].Room)
		}
		return false, fmt.Errorf("%v cannot be reached from %v in %d steps", dest, g.Board[t], steps)
	}
	was := g.Board[t]
	g.Board[t] = dest
	if !dest.InRoom() {
		return false, nil
	}
	g.Board[t].Mark = 'V'
	return dest.Room != was.Room || was.Mark == 'S', nil
}

// Suggest makes the suggestion tr for the token whose turn it is, in the room it is in:
// the suggested suspect's token is moved into the room (marked S, unless it is the
// suggester's own), and the answer is the first token after the suggester in turn order
// holding one of the three cards, or -1.
func (g *Game) Suggest(tr Triple) (disprover int, err error) {
	t := g.Turn
	if !g.Board[t].InRoom() || g.Board[t].Room != tr.Room {
		return -1, fmt.Errorf("the room of a suggestion is the room the suggester is in (%v)", g.Board[t])
	}
	if tr.Suspect != t {
		g.Board[tr.Suspect] = InRoom(tr.Room, 'S')
	}
	for i := 1; i < Tokens; i++ {
		d := (t + i) % Tokens
		for _, c := range tr.Cards() {
			if g.Holds(d, c) {
				return d, nil
			}
		}
	}
	return -1, nil
}

// CheckDisproof reports whether token d may show card c against suggestion tr.
func (g *Game) CheckDisproof(d int, tr Triple, c Card) error {
	in := false
	for _, x := range tr.Cards() {
		in = in || x == c
	}
	if !in {
		return fmt.Errorf("%v is not one of the suggestion %v", c, tr)
	}
	if !g.Holds(d, c) {
		return fmt.Errorf("%v is not one of the cards dealt to %d", c, d)
	}
	return nil
}

// Accuse settles the accusation of the token whose turn it is: right, it wins; wrong, it
// takes no more turns.
func (g *Game) Accuse(tr Triple) bool {
	if tr == g.Solution {
		g.Winner = g.Turn
		return true
	}
	g.Out[g.Turn] = true
	return false
}

// Active reports whether some token may still take a turn.
func (g *Game) Active() bool {
	for _, o := range g.Out {
		if !o {
			return true
		}
	}
	return false
}

// Next passes the turn to the next token that has not accused wrongly, counting rounds.
// It returns false when there is none.
func (g *Game) Next() bool {
	for i := 1; i <= Tokens; i++ {
		n := (g.Turn + i) % Tokens
		if !g.Out[n] {
			if n <= g.Turn {
				g.Round++
			}
			g.Turn = n
			return true
		}
	}
	return false
}
