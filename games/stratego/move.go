package stratego

import (
	"slices"
	"strconv"
	"strings"
)

// Dir is a direction of movement.
type Dir uint8

// The four directions; UP goes towards y=0.
const (
	Up Dir = iota
	Down
	Left
	Right
)

var dirNames = [...]string{"UP", "DOWN", "LEFT", "RIGHT"}

func (d Dir) String() string { return dirNames[d] }

// Delta is one step in direction d.
func (d Dir) Delta() (dx, dy int) {
	switch d {
	case Up:
		return 0, -1
	case Down:
		return 0, 1
	case Left:
		return -1, 0
	}
	return 1, 0
}

// Move is an AI's reply to a turn query.
type Move struct {
	X, Y      int
	Dir       Dir
	N         int  // squares moved (1 unless a multiplier was given)
	HasN      bool // the line gave the multiplier
	Surrender bool
}

// ParseMove reads an AI's move line (without '\n'): "X Y DIRECTION [MULTIPLIER]", words
// one space apart, or "SURRENDER".
func ParseMove(line string) (Move, error) {
	if line == "SURRENDER" {
		return Move{Surrender: true}, nil
	}
	f := strings.Split(line, " ")
	if len(f) != 3 && len(f) != 4 || slices.Contains(f, "") {
		return Move{}, formatError(RuleMoveWords, line)
	}
	num := func(s string) (int, bool) {
		if s == "" || len(s) > 4 || (len(s) > 1 && s[0] == '0') {
			return 0, false
		}
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return 0, false
			}
		}
		n, err := strconv.Atoi(s)
		return n, err == nil
	}
	m := Move{N: 1}
	var ok bool
	if m.X, ok = num(f[0]); !ok {
		return Move{}, formatError(RuleMoveNumber, line)
	}
	if m.Y, ok = num(f[1]); !ok {
		return Move{}, formatError(RuleMoveNumber, line)
	}
	d := -1
	for i, name := range dirNames {
		if f[2] == name {
			d = i
		}
	}
	if d < 0 {
		return Move{}, formatError(RuleMoveDir, line)
	}
	m.Dir = Dir(d)
	if len(f) == 4 {
		if m.N, ok = num(f[3]); !ok || m.N == 0 {
			return Move{}, formatError(RuleMoveNumber, line)
		}
		m.HasN = true
	}
	return m, nil
}

// String is the move as a line, in the form it was given (the multiplier only when given).
func (m Move) String() string {
	if m.Surrender {
		return "SURRENDER"
	}
	s := strconv.Itoa(m.X) + " " + strconv.Itoa(m.Y) + " " + m.Dir.String()
	if m.HasN {
		s += " " + strconv.Itoa(m.N)
	}
	return s
}

// To is where the move ends.
func (m Move) To() (x, y int) {
	dx, dy := m.Dir.Delta()
	return m.X + dx*m.N, m.Y + dy*m.N
}
