package stratego

import "fmt"

// Piece is a piece's character: '1' (Marshal) to '9' (Scout), 's' (Spy), 'B' (Bomb) and
// 'F' (Flag).
type Piece byte

// The pieces with abilities of their own.
const (
	Marshal Piece = '1'
	Miner   Piece = '8'
	Scout   Piece = '9'
	Spy     Piece = 's'
	Bomb    Piece = 'B'
	Flag    Piece = 'F'
)

// Counts is how many of each piece a side sets up: 40 in all.
var Counts = map[Piece]int{
	'1': 1, '2': 1, '3': 2, '4': 3, '5': 4, '6': 4, '7': 4, '8': 5, '9': 8,
	Spy: 1, Bomb: 6, Flag: 1,
}

// PieceOrder lists the pieces in the order of the manual's table.
var PieceOrder = []Piece{'1', '2', '3', '4', '5', '6', '7', '8', '9', Spy, Bomb, Flag}

// Valid reports whether p is one of the twelve piece characters.
func (p Piece) Valid() bool {
	_, ok := Counts[p]
	return ok
}

// Rank is the piece's rank: 1 (Marshal, the strongest) to 9 (Scout), 10 for the Spy; 0 for
// the Bomb and the Flag, which have none.
func (p Piece) Rank() int {
	switch {
	case p >= '1' && p <= '9':
		return int(p - '0')
	case p == Spy:
		return 10
	}
	return 0
}

// Movable reports whether the piece may move: every piece but the Bomb and the Flag.
func (p Piece) Movable() bool { return p.Valid() && p != Bomb && p != Flag }

// Value is what the piece counts for in the result line: the Marshal 10 down to the Scout 2,
// the Spy 1, the Bomb and the Flag 0.
func (p Piece) Value() int {
	switch r := p.Rank(); {
	case r >= 1 && r <= 9:
		return 11 - r
	case p == Spy:
		return 1
	}
	return 0
}

func (p Piece) String() string { return string(p) }

// Colour is a side.
type Colour uint8

// The two sides. RED sets up first and moves first. Both is no side: what the result line
// names when both sides set up badly ("neither BOTH BAD_SETUP").
const (
	Red Colour = iota
	Blue
	Both
)

func (c Colour) String() string {
	switch c {
	case Red:
		return "RED"
	case Blue:
		return "BLUE"
	}
	return "BOTH"
}

// Other is the opposing side.
func (c Colour) Other() Colour { return 1 - c }

// ParseColour reads "RED" or "BLUE".
func ParseColour(s string) (Colour, error) {
	switch s {
	case "RED":
		return Red, nil
	case "BLUE":
		return Blue, nil
	}
	return 0, fmt.Errorf("stratego: no colour %q", s)
}
