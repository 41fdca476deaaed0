package stratego

import (
	"math/rand/v2"
	"strings"
)

// Hunter is the stronger AI. It remembers what each enemy piece has shown of itself: the
// rank revealed in a fight, and that a piece which has moved is no bomb and no flag. It
// attacks a piece it knows it beats (the most valuable first), probes unknown pieces that
// have moved with its scouts, never attacks a piece it knows beats it, and otherwise moves
// at random without attacking.
type Hunter struct {
	R *rand.Rand
	// known holds what is known of the enemy piece on each square: its character once
	// revealed, or 'm' for "has moved".
	known map[[2]int]byte
}

// NewHunter returns a Hunter drawing its choices from r.
func NewHunter(r *rand.Rand) *Hunter { return &Hunter{R: r, known: map[[2]int]byte{}} }

// Setup puts the flag on its back row's middle, with bombs beside and in front of it, and
// the other pieces at random.
func (h *Hunter) Setup(c Colour) Setup {
	s := RandomSetup(h.R)
	back, front := 0, 1 // RED's back row is its first (y=0)
	if c == Blue {
		back, front = SetupRows-1, SetupRows-2 // BLUE's is its last (y=9)
	}
	fixed := map[[2]int]bool{}
	put := func(want Piece, x, y int) {
		for yy := range SetupRows {
			for xx := range Size {
				if s[yy][xx] == want && !fixed[[2]int{xx, yy}] {
					s[yy][xx], s[y][x] = s[y][x], s[yy][xx]
					fixed[[2]int{x, y}] = true
					return
				}
			}
		}
	}
	put(Flag, 4, back)
	put(Bomb, 3, back)
	put(Bomb, 5, back)
	put(Bomb, 4, front)
	return s
}

// Observe learns from a confirmation line ("X Y DIR [N] OUTCOME [a d]"); mine says whether
// the move was this AI's own.
func (h *Hunter) Observe(line string, mine bool) {
	f := strings.Fields(line)
	if len(f) < 4 {
		return
	}
	m, err := ParseMove(strings.Join(f[:len(f)-confTail(f)], " "))
	if err != nil {
		return
	}
	tx, ty := m.To()
	from, to := [2]int{m.X, m.Y}, [2]int{tx, ty}
	outcome := f[len(f)-confTail(f)]
	if mine {
		// The defender, if it survived, showed itself.
		if outcome == string(Dies) {
			h.known[to] = f[len(f)-1][0]
		} else {
			delete(h.known, to)
		}
		return
	}
	k := h.known[from]
	delete(h.known, from)
	if k == 0 {
		k = 'm'
	}
	switch outcome {
	case string(OK):
		h.known[to] = k
	case string(Kills):
		h.known[to] = f[len(f)-2][0] // the attacker survived, shown
	default:
		delete(h.known, to) // the attacker died
	}
}

// confTail is how many words end a confirmation after the move: OUTCOME, or OUTCOME a d.
func confTail(f []string) int {
	if n := len(f); n >= 6 && (f[n-3] == string(Kills) || f[n-3] == string(Dies) || f[n-3] == string(BothDie)) {
		return 3
	}
	return 1
}

// Move chooses the move with the best score: an attack on a piece it knows it beats (the
// more valuable the better), then attacks by its strongest pieces on pieces that have
// moved (no bomb, no flag), a miner on a piece that never moved, a scout probing one, then
// quiet moves forward; never an attack on a piece it knows beats the attacker. Ties are
// broken at random.
func (h *Hunter) Move(view []string) Move {
	moves := ViewMoves(view)
	if len(moves) == 0 {
		return Move{Surrender: true}
	}
	forward := 1 // RED advances down the board
	if h.blue(view) {
		forward = -1
	}
	best, bestScore := 0, -1<<30
	for i, m := range moves {
		tx, ty := m.To()
		att := Piece(view[m.Y][m.X])
		score := 0
		switch k := h.known[[2]int{tx, ty}]; {
		case view[ty][tx] != ViewEnemy:
			score = 1
			if (ty-m.Y)*forward > 0 {
				score += 2
			}
		case k != 0 && k != 'm':
			switch Fight(att, Piece(k)) {
			case Kills:
				score = 100 + Piece(k).Value()
			case BothDie:
				score = -10
			default:
				score = -100
			}
		case k == 'm':
			score = 30 - 3*att.Rank()
		case att == Miner:
			score = 15
		case att == Scout:
			score = 8
		default:
			score = -5
		}
		score = score*4 + h.R.IntN(4)
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	return moves[best]
}

// blue reports whether the view is BLUE's: its own pieces stand on the lower half.
func (h *Hunter) blue(view []string) bool {
	own := func(y int) int {
		n := 0
		for _, c := range view[y] {
			if Piece(c).Valid() {
				n++
			}
		}
		return n
	}
	top, bottom := 0, 0
	for y := range Size / 2 {
		top += own(y)
		bottom += own(Size - 1 - y)
	}
	return bottom > top
}
