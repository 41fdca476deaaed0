package stratego

// Size is the board's width and height.
const Size = 10

// Lake reports whether (x, y) is one of the eight lake squares: rows y=4,5 at x=2,3 and
// x=6,7.
func Lake(x, y int) bool {
	return (y == 4 || y == 5) && (x == 2 || x == 3 || x == 6 || x == 7)
}

// OnBoard reports whether (x, y) is on the board.
func OnBoard(x, y int) bool { return x >= 0 && x < Size && y >= 0 && y < Size }

// Square is what stands on one square: nothing (Piece 0), or a piece of a colour.
type Square struct {
	Piece  Piece
	Colour Colour
}

// Empty reports whether no piece stands there.
func (s Square) Empty() bool { return s.Piece == 0 }

// Board is the 10x10 board, indexed [y][x].
type Board [Size][Size]Square

// The characters of a side's view of the board.
const (
	ViewEnemy = '#'
	ViewLake  = '+'
	ViewEmpty = '.'
)

// View is the board as side c sees it, 10 rows top to bottom: its own pieces by character,
// the enemy's as '#', lakes '+', empty squares '.'.
func (b *Board) View(c Colour) []string {
	rows := make([]string, Size)
	for y := range Size {
		row := make([]byte, Size)
		for x := range Size {
			sq := b[y][x]
			switch {
			case Lake(x, y):
				row[x] = ViewLake
			case sq.Empty():
				row[x] = ViewEmpty
			case sq.Colour == c:
				row[x] = byte(sq.Piece)
			default:
				row[x] = ViewEnemy
			}
		}
		rows[y] = string(row)
	}
	return rows
}

// Value sums the values of side c's pieces on the board (Piece.Value).
func (b *Board) Value(c Colour) int {
	v := 0
	for y := range Size {
		for x := range Size {
			if sq := b[y][x]; !sq.Empty() && sq.Colour == c {
				v += sq.Piece.Value()
			}
		}
	}
	return v
}

// CanMove reports whether side c has a piece that may move (not a bomb or the flag).
func (b *Board) CanMove(c Colour) bool {
	for y := range Size {
		for x := range Size {
			if sq := b[y][x]; !sq.Empty() && sq.Colour == c && sq.Piece.Movable() {
				return true
			}
		}
	}
	return false
}
