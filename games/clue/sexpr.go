package clue

import (
	"fmt"
	"strings"
)

// node is one element of a message's data: an atom or a parenthesised list.
type node struct {
	atom  string
	list  []node
	isLst bool
}

func (n node) String() string {
	if !n.isLst {
		return n.atom
	}
	parts := make([]string, len(n.list))
	for i, e := range n.list {
		parts[i] = e.String()
	}
	return "(" + strings.Join(parts, " ") + ")"
}

// parse reads one element that must be the whole of s, written exactly as the protocol
// writes it: single spaces between elements, none inside parentheses' edges, atoms of
// letters, digits and '-', '?', '!'. Anything else is an error saying where.
func parse(s string) (node, error) {
	p := parser{s: s}
	n, err := p.element()
	if err != nil {
		return node{}, err
	}
	if p.i != len(s) {
		return node{}, fmt.Errorf("%q: unexpected %q at byte %d", s, s[p.i:], p.i+1)
	}
	return n, nil
}

type parser struct {
	s string
	i int
}

func (p *parser) element() (node, error) {
	if p.i >= len(p.s) {
		return node{}, fmt.Errorf("%q ends where an element should be", p.s)
	}
	if p.s[p.i] != '(' {
		start := p.i
		for p.i < len(p.s) && atomByte(p.s[p.i]) {
			p.i++
		}
		if p.i == start {
			return node{}, fmt.Errorf("%q: unexpected %q at byte %d", p.s, p.s[p.i], p.i+1)
		}
		return node{atom: p.s[start:p.i]}, nil
	}
	p.i++
	n := node{isLst: true}
	for {
		if p.i < len(p.s) && p.s[p.i] == ')' && len(n.list) > 0 {
			p.i++
			return n, nil
		}
		if len(n.list) > 0 {
			if p.i >= len(p.s) || p.s[p.i] != ' ' {
				return node{}, fmt.Errorf("%q: a space or ')' expected at byte %d", p.s, p.i+1)
			}
			p.i++
		}
		e, err := p.element()
		if err != nil {
			return node{}, err
		}
		n.list = append(n.list, e)
	}
}

func atomByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '-' || b == '?' || b == '!'
}

// list parses s as a list of n atoms.
func list(s string, n int) ([]string, error) {
	e, err := parse(s)
	if err != nil {
		return nil, err
	}
	return atoms(e, n, s)
}

func atoms(e node, n int, s string) ([]string, error) {
	if !e.isLst || len(e.list) != n {
		return nil, fmt.Errorf("%q is not a list of %d elements", s, n)
	}
	out := make([]string, n)
	for i, a := range e.list {
		if a.isLst {
			return nil, fmt.Errorf("%q: element %d is a list", s, i+1)
		}
		out[i] = a.atom
	}
	return out, nil
}
