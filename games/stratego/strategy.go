package stratego

import "math/rand/v2"

// ViewMoves lists every move the side whose view this is may make, from what it knows: its
// own pieces (by character), the enemy's ('#'), lakes and empty squares. A move onto '#'
// is an attack. Moves are in a fixed order: by square (top to bottom, left to right), then
// direction, then distance.
func ViewMoves(rows []string) []Move {
	at := func(x, y int) byte {
		if !OnBoard(x, y) || y >= len(rows) || x >= len(rows[y]) {
			return ViewLake
		}
		return rows[y][x]
	}
	var moves []Move
	for y := range Size {
		for x := range Size {
			p := Piece(at(x, y))
			if !p.Movable() {
				continue
			}
			for d := Up; d <= Right; d++ {
				dx, dy := d.Delta()
				for n := 1; ; n++ {
					c := at(x+dx*n, y+dy*n)
					if c == ViewLake || Piece(c).Valid() {
						break // off the board, a lake, or one of its own
					}
					moves = append(moves, Move{X: x, Y: y, Dir: d, N: n, HasN: n > 1})
					if c == ViewEnemy || p != Scout {
						break
					}
				}
			}
		}
	}
	return moves
}

// RandomMove is the random AI's choice: any move ViewMoves allows, drawn with r, or
// SURRENDER when there is none.
func RandomMove(rows []string, r *rand.Rand) Move {
	moves := ViewMoves(rows)
	if len(moves) == 0 {
		return Move{Surrender: true}
	}
	return moves[r.IntN(len(moves))]
}

// RandomSetup is a setup with the 40 pieces in an order drawn with r.
func RandomSetup(r *rand.Rand) Setup {
	var pieces []Piece
	for _, p := range PieceOrder {
		for range Counts[p] {
			pieces = append(pieces, p)
		}
	}
	r.Shuffle(len(pieces), func(i, j int) { pieces[i], pieces[j] = pieces[j], pieces[i] })
	var s Setup
	for i, p := range pieces {
		s[i/Size][i%Size] = p
	}
	return s
}
