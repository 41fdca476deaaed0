package clue

import (
	"fmt"
	"strings"
)

// The names of the server's messages. Each message is two lines: its name, then its data.
const (
	MsgHello   = "hello"
	MsgTurn    = "turn"
	MsgRolled  = "rolled"
	MsgSuggest = "suggest"
	MsgCounter = "counter"
	MsgAccuse  = "accuse"
	MsgWrong   = "wrong"
	MsgMoved   = "moved"
)

// The client's commands at the start of its turn.
const (
	CmdRoll   = "roll"
	CmdNoRoll = "no-roll"
	CmdAccuse = "accuse"
)

// Hello is the data of the hello message: the client's token and its cards.
type Hello struct {
	Token int
	Cards []Card
}

func (h Hello) String() string {
	cs := make([]string, len(h.Cards))
	for i, c := range h.Cards {
		cs[i] = c.String()
	}
	return fmt.Sprintf("(%d (%s))", h.Token, strings.Join(cs, " "))
}

// ParseHello reads "(TOKEN (CARD CARD CARD))": three distinct cards.
func ParseHello(s string) (Hello, error) {
	e, err := parse(s)
	if err != nil {
		return Hello{}, err
	}
	if !e.isLst || len(e.list) != 2 || e.list[0].isLst {
		return Hello{}, fmt.Errorf("%q is not (TOKEN (CARDS))", s)
	}
	t, err := number(e.list[0].atom, 0, Tokens-1)
	if err != nil {
		return Hello{}, fmt.Errorf("the token: %v", err)
	}
	f, err := atoms(e.list[1], HandSize, e.list[1].String())
	if err != nil {
		return Hello{}, err
	}
	h := Hello{Token: t}
	for _, a := range f {
		c, err := ParseCard(a)
		if err != nil {
			return Hello{}, err
		}
		for _, d := range h.Cards {
			if d == c {
				return Hello{}, fmt.Errorf("%q: the card %v twice", s, c)
			}
		}
		h.Cards = append(h.Cards, c)
	}
	return h, nil
}

// Moved is the data of a moved message: the board after a token's turn, the token, its
// suggestion (nil if it made none) and who must or did disprove it (-1: no one).
type Moved struct {
	Board      State
	Mover      int
	Suggestion *Triple
	Disprover  int
}

func (m Moved) String() string {
	sug, d := "-", "-"
	if m.Suggestion != nil {
		sug = m.Suggestion.String()
	}
	if m.Disprover >= 0 {
		d = fmt.Sprint(m.Disprover)
	}
	return fmt.Sprintf("(%v %d %s %s)", m.Board, m.Mover, sug, d)
}

// ParseMoved reads "(STATE MOVER SUGGESTION DISPROVER)", with "-" for no suggestion and for
// no disprover (a disprover without a suggestion is an error, as is the mover as its own
// disprover).
func ParseMoved(s string) (Moved, error) {
	e, err := parse(s)
	if err != nil {
		return Moved{}, err
	}
	if !e.isLst || len(e.list) != 4 {
		return Moved{}, fmt.Errorf("%q is not (STATE MOVER SUGGESTION DISPROVER)", s)
	}
	var m Moved
	if m.Board, err = ParseState(e.list[0].String()); err != nil {
		return Moved{}, err
	}
	if e.list[1].isLst {
		return Moved{}, fmt.Errorf("%q: the mover is a list", s)
	}
	if m.Mover, err = number(e.list[1].atom, 0, Tokens-1); err != nil {
		return Moved{}, fmt.Errorf("the mover: %v", err)
	}
	if sug := e.list[2]; sug.isLst {
		tr, err := ParseTriple(sug.String())
		if err != nil {
			return Moved{}, err
		}
		m.Suggestion = &tr
	} else if sug.atom != "-" {
		return Moved{}, fmt.Errorf("%q: the suggestion is a (SUSPECT WEAPON ROOM) or -", s)
	}
	m.Disprover = -1
	switch d := e.list[3]; {
	case d.isLst:
		return Moved{}, fmt.Errorf("%q: the disprover is a list", s)
	case d.atom == "-":
	default:
		if m.Disprover, err = number(d.atom, 0, Tokens-1); err != nil {
			return Moved{}, fmt.Errorf("the disprover: %v", err)
		}
		if m.Suggestion == nil || m.Disprover == m.Mover {
			return Moved{}, fmt.Errorf("%q: a disprover needs a suggestion by someone else", s)
		}
	}
	return m, nil
}

// Counter is the data of a counter message: the card shown and who showed it, or no one
// (Disprover -1).
type Counter struct {
	Card      Card
	Disprover int
}

func (c Counter) String() string {
	if c.Disprover < 0 {
		return "(- -)"
	}
	return fmt.Sprintf("(%v %d)", c.Card, c.Disprover)
}

// ParseCounter reads "(CARD TOKEN)" or "(- -)".
func ParseCounter(s string) (Counter, error) {
	f, err := list(s, 2)
	if err != nil {
		return Counter{}, err
	}
	if f[0] == "-" && f[1] == "-" {
		return Counter{Disprover: -1}, nil
	}
	c, err := ParseCard(f[0])
	if err != nil {
		return Counter{}, err
	}
	d, err := number(f[1], 0, Tokens-1)
	if err != nil {
		return Counter{}, fmt.Errorf("the disprover: %v", err)
	}
	return Counter{Card: c, Disprover: d}, nil
}

// ParseRolled reads a rolled message's data: 0 (no roll) or 2 to 12.
func ParseRolled(s string) (int, error) {
	n, err := number(s, 0, 12)
	if err != nil || n == 1 {
		return 0, fmt.Errorf("%q is not 0 or a roll of two dice (2-12)", s)
	}
	return n, nil
}
