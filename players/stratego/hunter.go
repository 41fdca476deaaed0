package stratego

import (
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	game "gauntlet/games/stratego"
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
func (h *Hunter) Setup(c game.Colour) game.Setup {
	s := game.RandomSetup(h.R)
	back, front := 0, 1 // RED's back row is its first (y=0)
	if c == game.Blue {
		back, front = game.SetupRows-1, game.SetupRows-2 // BLUE's is its last (y=9)
	}
	fixed := map[[2]int]bool{}
	put := func(want game.Piece, x, y int) {
		for yy := range game.SetupRows {
			for xx := range game.Size {
				if s[yy][xx] == want && !fixed[[2]int{xx, yy}] {
					s[yy][xx], s[y][x] = s[y][x], s[yy][xx]
					fixed[[2]int{x, y}] = true
					return
				}
			}
		}
	}
	put(game.Flag, 4, back)
	put(game.Bomb, 3, back)
	put(game.Bomb, 5, back)
	put(game.Bomb, 4, front)
	return s
}

// Observe learns from a confirmation line ("X Y DIR [N] OUTCOME [a d]"); mine says whether
// the move was this AI's own.
func (h *Hunter) Observe(line string, mine bool) {
	f := strings.Fields(line)
	if len(f) < 4 {
		return
	}
	m, err := game.ParseMove(strings.Join(f[:len(f)-confTail(f)], " "))
	if err != nil {
		return
	}
	tx, ty := m.To()
	from, to := [2]int{m.X, m.Y}, [2]int{tx, ty}
	outcome := f[len(f)-confTail(f)]
	if mine {
		// The defender, if it survived, showed itself.
		if outcome == string(game.Dies) {
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
	case string(game.OK):
		h.known[to] = k
	case string(game.Kills):
		h.known[to] = f[len(f)-2][0] // the attacker survived, shown
	default:
		delete(h.known, to) // the attacker died
	}
}

// confTail is how many words end a confirmation after the move: OUTCOME, or OUTCOME a d.
func confTail(f []string) int {
	if n := len(f); n >= 6 && (f[n-3] == string(game.Kills) || f[n-3] == string(game.Dies) || f[n-3] == string(game.BothDie)) {
		return 3
	}
	return 1
}

// Move chooses the move with the best score: an attack on a piece it knows it beats (the
// more valuable the better), then attacks by its strongest pieces on pieces that have
// moved (no bomb, no flag), a miner on a piece that never moved, a scout probing one, then
// quiet moves forward; never an attack on a piece it knows beats the attacker. Ties are
// broken at random.
func (h *Hunter) Move(view []string) game.Move {
	moves := game.ViewMoves(view)
	if len(moves) == 0 {
		return game.Move{Surrender: true}
	}
	forward := 1 // RED advances down the board
	if h.blue(view) {
		forward = -1
	}
	best, bestScore := 0, -1<<30
	for i, m := range moves {
		tx, ty := m.To()
		att := game.Piece(view[m.Y][m.X])
		score := 0
		switch k := h.known[[2]int{tx, ty}]; {
		case view[ty][tx] != game.ViewEnemy:
			score = 1
			if (ty-m.Y)*forward > 0 {
				score += 2
			}
		case k != 0 && k != 'm':
			switch game.Fight(att, game.Piece(k)) {
			case game.Kills:
				score = 100 + game.Piece(k).Value()
			case game.BothDie:
				score = -10
			default:
				score = -100
			}
		case k == 'm':
			score = 30 - 3*att.Rank()
		case att == game.Miner:
			score = 15
		case att == game.Scout:
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
			if game.Piece(c).Valid() {
				n++
			}
		}
		return n
	}
	top, bottom := 0, 0
	for y := range game.Size / 2 {
		top += own(y)
		bottom += own(game.Size - 1 - y)
	}
	return bottom > top
}

// MainHunter is the stratego-hunter program: the seed is its first argument (default: from
// the clock).
func MainHunter() int {
	seed := uint64(rand.Int64())
	if len(os.Args) > 1 {
		if n, err := strconv.ParseUint(os.Args[1], 10, 64); err == nil {
			seed = n
		}
	}
	return Run(NewHunter(rand.New(rand.NewPCG(seed, seed^0xbeef))), os.Stdin, os.Stdout)
}
