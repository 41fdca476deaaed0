package stratego

import "strings"

// SetupRows is the number of rows a side sets up.
const SetupRows = 4

// Setup is a side's four rows as it sends them, top to bottom.
type Setup [SetupRows][Size]Piece

// ParseSetup reads the four lines of a setup (without their '\n'): each exactly 10 piece
// characters, all 40 pieces placed with their counts. On an error the setup returned holds
// the pieces placed before it, as the 2012 manager placed them: row by row, left to right,
// each piece until the first one that breaks a rule (a character that is no piece, one
// piece more than its count), and none of a row of the wrong length or after it; nothing
// at all from an answer of fewer or more than 4 rows. A '.' (the view's empty square) is
// an empty square, as the 2012 manager read it: the pieces after it are placed too, and
// the setup is bad only for the pieces it lacks (RuleSetupCounts). A bad setup's pieces
// stay on the board (Begin).
func ParseSetup(lines []string) (Setup, error) {
	var s Setup
	if len(lines) != SetupRows {
		return s, formatError(RuleSetupRows, strings.Join(lines, "\n"))
	}
	count := map[Piece]int{}
	for y, line := range lines {
		if len(line) != Size {
			return s, formatError(RuleSetupWidth, line)
		}
		for x := range Size {
			p := Piece(line[x])
			if p == ViewEmpty {
				continue // an empty square
			}
			if !p.Valid() {
				return s, formatError(RuleSetupPiece, line)
			}
			if count[p]++; count[p] > Counts[p] {
				return s, formatError(RuleSetupCounts, strings.Join(lines, "\n"))
			}
			s[y][x] = p
		}
	}
	for p, n := range Counts {
		if count[p] != n {
			return s, formatError(RuleSetupCounts, strings.Join(lines, "\n"))
		}
	}
	return s, nil
}

// Lines is the setup as its four lines.
func (s Setup) Lines() []string {
	out := make([]string, SetupRows)
	for y := range s {
		row := make([]byte, Size)
		for x, p := range s[y] {
			row[x] = byte(p)
		}
		out[y] = string(row)
	}
	return out
}

// rowOf is the board row where side c's setup row i goes: RED's rows are y=0..3, BLUE's
// y=6..9, each in the order sent.
func rowOf(c Colour, i int) int {
	if c == Red {
		return i
	}
	return Size - SetupRows + i
}
