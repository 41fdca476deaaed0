package clue

import (
	"fmt"
	"strconv"
	"strings"
)

// Size is the board's side: rows and columns are numbered 0-24, down and right from the
// top left corner.
const Size = 25

// layout is the board: '#' a wall (or the staircase in the middle), '.' a corridor, a
// lowercase letter a door: a corridor cell from which one step enters the room of that
// letter, an uppercase letter a room's floor, a digit the start square of that token.
var layout = [Size]string{
	"######4############5#####",
	"#KKKKK..BBBBBBBBB...CCCC#",
	"#KKKKK..BBBBBBBBB...CCCC#",
	"#KKKKK.bBBBBBBBBBb..CCCC#",
	"#KKKKK..BBBBBBBBB..cCCCC#",
	"#KKKKK..BBBBBBBBB...CCCC#",
	"#KKKKK..BBBBBBBBB...CCCC#",
	"#..k......b...b......c..#",
	"#.DDDDDD.#######..RRRRRR#",
	"#.DDDDDD.#######.rRRRRRR#",
	"3.DDDDDDd#######..RRRRRR#",
	"#.DDDDDD.#######..RRRRRR#",
	"#.DDDDDD.#######.....r..#",
	"#.DDDDDD.#######..LLLLLL#",
	"#...d....#######..LLLLLL#",
	"2........#######.lLLLLLL#",
	"#........#######..LLLLLL#",
	"#...................l...0",
	"#...u......h.h.......t..#",
	"#UUUUUU..HHHHHHH...TTTTT#",
	"#UUUUUU..HHHHHHH..tTTTTT#",
	"#UUUUUUuhHHHHHHHh..TTTTT#",
	"#UUUUUU..HHHHHHH...TTTTT#",
	"#UUUUUU..HHHHHHH...TTTTT#",
	"#################1#######",
}

// Passages are the secret passages between opposite corners, both ways.
var Passages = map[byte]byte{'K': 'T', 'T': 'K', 'C': 'U', 'U': 'C'}

// Walkable reports whether a token may stand on cell (r, c) during play: a corridor or a
// door (start squares hold their token only before it first moves).
func Walkable(r, c int) bool {
	if r < 0 || r >= Size || c < 0 || c >= Size {
		return false
	}
	b := layout[r][c]
	return b == '.' || b >= 'a' && b <= 'z'
}

// DoorOf is the room letter a door cell opens into, or 0.
func DoorOf(r, c int) byte {
	if r < 0 || r >= Size || c < 0 || c >= Size {
		return 0
	}
	if b := layout[r][c]; b >= 'a' && b <= 'z' {
		return b - 'a' + 'A'
	}
	return 0
}

// StartOf is the start square of token t.
func StartOf(t int) (r, c int) {
	for r := range Size {
		if c := strings.IndexByte(layout[r], byte('0'+t)); c >= 0 {
			return r, c
		}
	}
	panic("clue: no start square for token " + strconv.Itoa(t))
}

// Doors lists the door cells of a room.
func Doors(room byte) [][2]int {
	var out [][2]int
	for r := range Size {
		for c := range Size {
			if DoorOf(r, c) == room {
				out = append(out, [2]int{r, c})
			}
		}
	}
	return out
}

// Pos is where a token is: a cell, or a room with the mark of how it got there.
type Pos struct {
	Room     byte // a room letter, or 0 for a cell
	Mark     byte // in a room: 'S' (moved there by a suggestion) or 'V' (moved or stayed voluntarily)
	Row, Col int  // a cell
}

// Cell and InRoom make positions.
func Cell(r, c int) Pos          { return Pos{Row: r, Col: c} }
func InRoom(room, mark byte) Pos { return Pos{Room: room, Mark: mark} }
func (p Pos) InRoom() bool       { return p.Room != 0 }
func (p Pos) SamePlace(q Pos) bool {
	return p.Room == q.Room && (p.Room != 0 || p.Row == q.Row && p.Col == q.Col)
}

// String is the protocol's form: "(r c)" or "(U V)".
func (p Pos) String() string {
	if p.Room != 0 {
		return fmt.Sprintf("(%c %c)", p.Room, p.Mark)
	}
	return fmt.Sprintf("(%d %d)", p.Row, p.Col)
}

// number reads a decimal number in [lo, hi] written without sign or leading zeros.
func number(s string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || strconv.Itoa(n) != s || n < lo || n > hi {
		return 0, fmt.Errorf("%q is not a number from %d to %d", s, lo, hi)
	}
	return n, nil
}

func posOf(f []string, s string) (Pos, error) {
	if len(f[0]) == 1 && isRoom(f[0][0]) {
		if f[1] != "S" && f[1] != "V" {
			return Pos{}, fmt.Errorf("%q: a room is followed by S or V", s)
		}
		return InRoom(f[0][0], f[1][0]), nil
	}
	r, err := number(f[0], 0, Size-1)
	if err != nil {
		return Pos{}, fmt.Errorf("%q: %v or a room letter", s, err)
	}
	c, err := number(f[1], 0, Size-1)
	if err != nil {
		return Pos{}, fmt.Errorf("%q: %v", s, err)
	}
	return Cell(r, c), nil
}

// ParsePos reads one position of a board state: "(r c)", "(X S)" or "(X V)".
func ParsePos(s string) (Pos, error) {
	f, err := list(s, 2)
	if err != nil {
		return Pos{}, err
	}
	return posOf(f, s)
}

// ParseDestination reads a destination: "(r c)" or a room "(X V)".
func ParseDestination(s string) (Pos, error) {
	p, err := ParsePos(s)
	if err == nil && p.InRoom() && p.Mark != 'V' {
		err = fmt.Errorf("%q: a destination room is followed by V", s)
	}
	return p, err
}

// State is where every token is, in token order.
type State [Tokens]Pos

// InitialState has every token on its start square.
func InitialState() State {
	var s State
	for t := range s {
		s[t] = Cell(StartOf(t))
	}
	return s
}

// String is the board state as the protocol writes it.
func (s State) String() string {
	parts := make([]string, Tokens)
	for t, p := range s {
		parts[t] = p.String()
	}
	return "(" + strings.Join(parts, " ") + ")"
}

// ParseState reads a board state and checks it could happen: each cell a corridor, a door
// or the token's own start square, no two tokens on one cell.
func ParseState(s string) (State, error) {
	e, err := parse(s)
	if err != nil {
		return State{}, err
	}
	if !e.isLst || len(e.list) != Tokens {
		return State{}, fmt.Errorf("%q is not a list of %d positions", s, Tokens)
	}
	var st State
	for t, pe := range e.list {
		f, err := atoms(pe, 2, pe.String())
		if err != nil {
			return State{}, fmt.Errorf("position %d: %v", t, err)
		}
		if st[t], err = posOf(f, pe.String()); err != nil {
			return State{}, fmt.Errorf("position %d: %v", t, err)
		}
	}
	return st, st.Check()
}

// Check reports a state that cannot happen.
func (s State) Check() error {
	for t, p := range s {
		if p.InRoom() {
			continue
		}
		if r, c := StartOf(t); !Walkable(p.Row, p.Col) && (p.Row != r || p.Col != c) {
			return fmt.Errorf("token %d is on %v, not a corridor, a door or its start square", t, p)
		}
		for u := range t {
			if s[u].SamePlace(p) {
				return fmt.Errorf("tokens %d and %d share the cell %v", u, t, p)
			}
		}
	}
	return nil
}

// occupied reports whether a token other than t is on cell (r, c).
func (s State) occupied(t, r, c int) bool {
	for u, p := range s {
		if u != t && !p.InRoom() && p.Row == r && p.Col == c {
			return true
		}
	}
	return false
}

// Destinations lists where token t may go with a roll of steps (2-12), or with no roll
// (steps 0, allowed only in a room). With a roll a token moves 0 to steps orthogonal
// steps over corridors and doors free of other tokens, never onto a start square; one
// step from a door enters its room and ends the move; from a room, the first step is onto
// one of its free doors, and it cannot enter the room it left. With no roll it stays in
// its room or takes the room's secret passage. Rooms come first, in Rooms order, then
// cells in reading order.
func (s State) Destinations(t, steps int) []Pos {
	here := s[t]
	if steps == 0 {
		if !here.InRoom() {
			return nil
		}
		out := []Pos{InRoom(here.Room, 'V')}
		if o, ok := Passages[here.Room]; ok {
			out = append(out, InRoom(o, 'V'))
		}
		return out
	}
	const unseen = -1
	var dist [Size][Size]int
	for r := range dist {
		for c := range dist[r] {
			dist[r][c] = unseen
		}
	}
	var queue [][2]int
	rooms := map[byte]bool{}
	if here.InRoom() {
		rooms[here.Room] = true
		for _, d := range Doors(here.Room) {
			if !s.occupied(t, d[0], d[1]) {
				dist[d[0]][d[1]] = 1
				queue = append(queue, d)
			}
		}
	} else {
		dist[here.Row][here.Col] = 0
		queue = append(queue, [2]int{here.Row, here.Col})
	}
	for len(queue) > 0 {
		r, c := queue[0][0], queue[0][1]
		queue = queue[1:]
		d := dist[r][c]
		if d >= steps {
			continue
		}
		if room := DoorOf(r, c); room != 0 && (!here.InRoom() || room != here.Room) {
			rooms[room] = true
		}
		for _, n := range [][2]int{{r - 1, c}, {r + 1, c}, {r, c - 1}, {r, c + 1}} {
			if Walkable(n[0], n[1]) && dist[n[0]][n[1]] == unseen && !s.occupied(t, n[0], n[1]) {
				dist[n[0]][n[1]] = d + 1
				queue = append(queue, n)
			}
		}
	}
	var out []Pos
	for _, room := range Rooms {
		if rooms[room] {
			out = append(out, InRoom(room, 'V'))
		}
	}
	for r := range Size {
		for c := range Size {
			if dist[r][c] != unseen {
				out = append(out, Cell(r, c))
			}
		}
	}
	return out
}

// CanReach reports whether dest is among t's destinations for steps.
func (s State) CanReach(t, steps int, dest Pos) bool {
	for _, p := range s.Destinations(t, steps) {
		if p.SamePlace(dest) {
			return true
		}
	}
	return false
}
