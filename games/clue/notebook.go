package clue

// owners is a set of possible holders of a card: bits 0-5 the tokens, bit 6 the solution.
type owners uint8

const solutionBit = Tokens

// clause says a token holds at least one of three cards (it disproved a suggestion
// without our seeing the card).
type clause struct {
	token int
	cards [3]Card
}

// Notebook is what a client can work out about the cards: for each card, who may hold it
// (a token or the solution), from its own hand, cards shown to it, who could not disprove
// a suggestion, and who disproved without showing it the card. Deduce propagates those
// facts with the hand sizes and one solution card per kind.
type Notebook struct {
	Me      int
	Hand    []Card
	may     [Cards]owners
	clauses []clause
}

// NewNotebook starts a notebook for token me with its hand.
func NewNotebook(me int, hand []Card) *Notebook {
	n := &Notebook{Me: me, Hand: hand}
	all := owners(1<<(Tokens+1) - 1)
	for c := range n.may {
		n.may[c] = all &^ (1 << me)
	}
	for _, c := range hand {
		n.may[c] = 1 << me
	}
	n.deduce()
	return n
}

// Shown records that token t showed card c.
func (n *Notebook) Shown(t int, c Card) {
	n.may[c] = 1 << t
	n.deduce()
}

// Lacks records that token t holds none of tr's cards.
func (n *Notebook) Lacks(t int, tr Triple) {
	for _, c := range tr.Cards() {
		if n.may[c] != 1<<t {
			n.may[c] &^= 1 << t
		}
	}
	n.deduce()
}

// HoldsOneOf records that token t holds at least one of tr's cards.
func (n *Notebook) HoldsOneOf(t int, tr Triple) {
	n.clauses = append(n.clauses, clause{t, tr.Cards()})
	n.deduce()
}

// Observe records what a moved message tells: the tokens between the mover and the
// disprover (all others, if nobody disproved) hold none of the suggestion's cards, and the
// disprover holds one.
func (n *Notebook) Observe(m Moved) {
	if m.Suggestion == nil {
		return
	}
	for i := 1; i < Tokens; i++ {
		t := (m.Mover + i) % Tokens
		if t == m.Disprover {
			if t != n.Me {
				n.HoldsOneOf(t, *m.Suggestion)
			}
			return
		}
		if t != n.Me {
			n.Lacks(t, *m.Suggestion)
		}
	}
}

// Possible reports whether c may be in the solution.
func (n *Notebook) Possible(c Card) bool { return n.may[c]&(1<<solutionBit) != 0 }

// Known reports whether c is known to be in the solution.
func (n *Notebook) Known(c Card) bool { return n.may[c] == 1<<solutionBit }

// Candidates are the cards of kind k that may be in the solution.
func (n *Notebook) Candidates(k Kind) []Card {
	var out []Card
	for c := range Card(Cards) {
		if c.Kind() == k && n.Possible(c) {
			out = append(out, c)
		}
	}
	return out
}

// Solved is the solution, once one candidate is left of each kind.
func (n *Notebook) Solved() (Triple, bool) {
	s, w, r := n.Candidates(Suspect), n.Candidates(Weapon), n.Candidates(Room)
	if len(s) != 1 || len(w) != 1 || len(r) != 1 {
		return Triple{}, false
	}
	return Triple{Suspect: int(s[0]), Weapon: int(w[0]) - Tokens, Room: r[0].Room()}, true
}

// deduce propagates the facts until nothing changes: a card with one possible holder is
// that holder's; a token with all its cards known holds nothing else, and one with only
// HandSize possible cards holds them all; one solution card per kind; a clause with one
// card left possible for its token is that token's.
func (n *Notebook) deduce() {
	for changed := true; changed; {
		changed = false
		set := func(c Card, o owners) {
			if o != n.may[c] && o != 0 {
				n.may[c], changed = o, true
			}
		}
		for t := range Tokens {
			held, possible := 0, 0
			for c := range Card(Cards) {
				if n.may[c] == 1<<t {
					held++
				}
				if n.may[c]&(1<<t) != 0 {
					possible++
				}
			}
			for c := range Card(Cards) {
				switch {
				case held == HandSize && n.may[c] != 1<<t:
					set(c, n.may[c]&^(1<<t))
				case possible == HandSize && n.may[c]&(1<<t) != 0:
					set(c, 1<<t)
				}
			}
		}
		for _, k := range []Kind{Suspect, Weapon, Room} {
			var maybe []Card
			known := false
			for c := range Card(Cards) {
				if c.Kind() == k && n.Possible(c) {
					maybe = append(maybe, c)
					known = known || n.Known(c)
				}
			}
			if len(maybe) == 1 {
				set(maybe[0], 1<<solutionBit)
			}
			if known {
				for _, c := range maybe {
					if !n.Known(c) {
						set(c, n.may[c]&^(1<<solutionBit))
					}
				}
			}
		}
		for _, cl := range n.clauses {
			var left []Card
			for _, c := range cl.cards {
				if n.may[c]&(1<<cl.token) != 0 {
					left = append(left, c)
				}
			}
			if len(left) == 1 {
				set(left[0], 1<<cl.token)
			}
		}
	}
}
