package clue

import (
	"math/rand/v2"
	"sync"
)

// Brain is a client's decisions, pure. The responder (NewClient) calls it for each message
// that needs an answer and tells it what the server reports.
type Brain interface {
	// Start gives the brain its token and cards.
	Start(h Hello)
	// Command answers a turn: roll, no-roll (in a room) or accuse.
	Command(board State) string
	// Destination picks where to go with roll (0: no roll).
	Destination(board State, roll int) Pos
	// Suggestion makes a suggestion in the room the token is in.
	Suggestion(board State) Triple
	// Accusation is the accusation, after the brain answered accuse.
	Accusation() Triple
	// Disprove picks the card to show among options (the brain's cards in the suggestion).
	Disprove(m Moved, options []Card) Card
	// Counter is the answer to the brain's own suggestion.
	Counter(s Triple, c Counter)
	// Observe is every moved message.
	Observe(m Moved)
}

// BrainNames are the reference clients' strategies, as the programs and the server's
// -bots flag name them.
var BrainNames = []string{"random", "sensible", "leech", "strong"}

// NewBrain returns the strategy named name (one of BrainNames) drawing from r, or nil.
func NewBrain(name string, r *rand.Rand) Brain {
	switch name {
	case "random":
		return &basic{r: r, wander: true}
	case "sensible":
		return &basic{r: r}
	case "leech":
		return &leech{basic: basic{r: r, wander: true}}
	case "strong":
		return &basic{r: r, deduce: true}
	}
	return nil
}

// basic is the random, sensible and strong clients: each keeps a notebook. The random one
// wanders (any destination) and the others head for the nearest room worth a suggestion;
// the sensible one records only cards shown to it and never names its own cards; the
// strong one deduces from every disproof seen and names its own cards for what it knows.
type basic struct {
	r      *rand.Rand
	me     int
	nb     *Notebook
	wander bool // move anywhere at random
	deduce bool // use every moved message and bluff with its own cards
}

func (b *basic) Start(h Hello) { b.me, b.nb = h.Token, NewNotebook(h.Token, h.Cards) }

func (b *basic) Command(board State) string {
	if _, ok := b.nb.Solved(); ok {
		return CmdAccuse
	}
	here := board[b.me]
	if here.InRoom() && !b.wander {
		// Take the passage, or stay after a suggestion moved us here, when that room is worth it.
		if o, ok := Passages[here.Room]; ok && b.worth(o) {
			return CmdNoRoll
		}
		if here.Mark == 'S' && b.worth(here.Room) {
			return CmdNoRoll
		}
	}
	return CmdRoll
}

// worth reports whether a suggestion in room is worth making: it may be the solution's,
// or (for the strong client) the room is known and other kinds are not.
func (b *basic) worth(room byte) bool {
	return b.nb.Possible(RoomCard(room)) || b.deduce && b.nb.Known(RoomCard(room))
}

func (b *basic) Destination(board State, roll int) Pos {
	opts := board.Destinations(b.me, roll)
	if b.wander {
		return opts[b.r.IntN(len(opts))]
	}
	here := board[b.me]
	if roll == 0 {
		if o, ok := Passages[here.Room]; ok && b.worth(o) {
			return InRoom(o, 'V')
		}
		return InRoom(here.Room, 'V')
	}
	best, bestD := opts[0], 1<<30
	for _, p := range opts {
		d := 1 << 20
		for _, room := range Rooms {
			if room != here.Room && b.worth(room) {
				d = min(d, distance(p, room))
			}
		}
		if p.InRoom() && p.Room == here.Room {
			d = 1 << 20 // staying gives no suggestion
		}
		if d < bestD || d == bestD && b.r.IntN(2) == 0 {
			best, bestD = p, d
		}
	}
	return best
}

func (b *basic) Suggestion(board State) Triple {
	room := board[b.me].Room
	return Triple{Suspect: int(b.pick(Suspect)), Weapon: int(b.pick(Weapon)) - Tokens, Room: room}
}

// pick names a card of kind k for a suggestion: an unknown candidate; the strong client,
// when the kind is solved, names its own card (nobody else can disprove it) or the
// solution's.
func (b *basic) pick(k Kind) Card {
	cands := b.nb.Candidates(k)
	if b.deduce && len(cands) == 1 {
		for _, c := range b.nb.Hand {
			if c.Kind() == k {
				return c
			}
		}
	}
	if len(cands) == 0 { // a contradiction (a lying server): any card of the kind
		for c := range Card(Cards) {
			if c.Kind() == k {
				cands = append(cands, c)
			}
		}
	}
	return cands[b.r.IntN(len(cands))]
}

func (b *basic) Accusation() Triple {
	if s, ok := b.nb.Solved(); ok {
		return s
	}
	return Triple{Suspect: int(b.pick(Suspect)), Weapon: int(b.pick(Weapon)) - Tokens, Room: b.pick(Room).Room()}
}

func (b *basic) Disprove(_ Moved, options []Card) Card { return options[b.r.IntN(len(options))] }

func (b *basic) Counter(s Triple, c Counter) {
	switch {
	case c.Disprover >= 0:
		b.nb.Shown(c.Disprover, c.Card)
	case !b.deduce:
		// Nobody else could disprove: every card of the suggestion not in hand is the solution's.
		for _, x := range s.Cards() {
			if b.nb.may[x] != 1<<b.me {
				b.nb.may[x] = 1 << solutionBit
			}
		}
		b.nb.deduce()
	default:
		b.nb.Observe(Moved{Mover: b.me, Suggestion: &s, Disprover: -1})
	}
}

func (b *basic) Observe(m Moved) {
	if b.deduce && m.Mover != b.me {
		b.nb.Observe(m)
	}
}

// leech keeps no notebook of its own: it accuses with the first suggestion nobody
// disproved, its own or another's, and otherwise wanders and suggests at random.
type leech struct {
	basic
	tip *Triple
}

func (l *leech) Command(State) string {
	if l.tip != nil {
		return CmdAccuse
	}
	return CmdRoll
}

func (l *leech) Suggestion(board State) Triple {
	return Triple{Suspect: l.r.IntN(Tokens), Weapon: l.r.IntN(len(Weapons)), Room: board[l.me].Room}
}

func (l *leech) Accusation() Triple {
	tip := *l.tip
	l.tip = nil
	return tip
}

func (l *leech) Counter(s Triple, c Counter) {
	if c.Disprover < 0 {
		l.tip = &s
	}
}

func (l *leech) Observe(m Moved) {
	if m.Suggestion != nil && m.Disprover < 0 && m.Mover != l.me {
		l.tip = m.Suggestion
	}
}

// roomDistance()[room][r][c] is the number of steps from cell (r, c) into room, ignoring
// other tokens (passages not counted).
var roomDistance = sync.OnceValue(func() map[byte]*[Size][Size]int {
	out := map[byte]*[Size][Size]int{}
	for _, room := range Rooms {
		var d [Size][Size]int
		for r := range d {
			for c := range d[r] {
				d[r][c] = 1 << 20
			}
		}
		var queue [][2]int
		for _, dr := range Doors(room) {
			d[dr[0]][dr[1]] = 1
			queue = append(queue, dr)
		}
		for len(queue) > 0 {
			r, c := queue[0][0], queue[0][1]
			queue = queue[1:]
			for _, n := range [][2]int{{r - 1, c}, {r + 1, c}, {r, c - 1}, {r, c + 1}} {
				if Walkable(n[0], n[1]) && d[n[0]][n[1]] > d[r][c]+1 {
					d[n[0]][n[1]] = d[r][c] + 1
					queue = append(queue, n)
				}
			}
		}
		out[room] = &d
	}
	return out
})

// distance is the steps from p into room: 0 in it, through its doors from another room.
func distance(p Pos, room byte) int {
	if !p.InRoom() {
		if !Walkable(p.Row, p.Col) { // a start square: from the cell next to it
			best := 1 << 20
			for _, n := range [][2]int{{p.Row - 1, p.Col}, {p.Row + 1, p.Col}, {p.Row, p.Col - 1}, {p.Row, p.Col + 1}} {
				if Walkable(n[0], n[1]) {
					best = min(best, roomDistance()[room][n[0]][n[1]]+1)
				}
			}
			return best
		}
		return roomDistance()[room][p.Row][p.Col]
	}
	if p.Room == room {
		return 0
	}
	best := 1 << 20
	for _, d := range Doors(p.Room) {
		best = min(best, roomDistance()[room][d[0]][d[1]]+1)
	}
	return best
}
