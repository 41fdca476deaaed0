package stlucia

import "strings"

// Face is one face of a die. The faces are ordered 1 < 2 < 3 < H < A < P, which is the
// order dice are written in.
type Face uint8

// The six faces, in their sort order.
const (
	One    Face = iota // '1': three or more score points
	Two                // '2'
	Three              // '3'
	Heal               // 'H': +1 health when outside StLucia
	Attack             // 'A': 1 damage each, or claims an empty StLucia
	Point              // 'P': a token; 10 tokens are a point
	// NumFaces is the number of faces of a die.
	NumFaces = 6
)

// DiceCount is the number of dice rolled in a turn.
const DiceCount = 6

// faceChars holds the symbol of each face, indexed by Face.
const faceChars = "123HAP"

// String returns the one-character symbol of f.
func (f Face) String() string { return faceChars[f : f+1] }

// Byte returns the symbol of f.
func (f Face) Byte() byte { return faceChars[f] }

// FaceOf returns the face written c, and false when c is not one of "123HAP".
func FaceOf(c byte) (Face, bool) {
	i := strings.IndexByte(faceChars, c)
	if i < 0 {
		return 0, false
	}
	return Face(i), true
}

// Roll is a multiset of dice, held as a count per face. Since the protocol always writes
// dice sorted, the counts say everything a message carries, and comparing two Rolls is ==.
type Roll [NumFaces]uint8

// RollOf returns the multiset of the given faces.
func RollOf(faces ...Face) Roll {
	var r Roll
	for _, f := range faces {
		r[f]++
	}
	return r
}

// Len is the number of dice in r.
func (r Roll) Len() int {
	n := 0
	for _, c := range r {
		n += int(c)
	}
	return n
}

// Count is how many dice of r show f.
func (r Roll) Count(f Face) int { return int(r[f]) }

// Contains reports whether r holds every die of s (counting repeats).
func (r Roll) Contains(s Roll) bool {
	for f := range r {
		if s[f] > r[f] {
			return false
		}
	}
	return true
}

// Plus returns the union of r and s (counts added).
func (r Roll) Plus(s Roll) Roll {
	for f := range r {
		r[f] += s[f]
	}
	return r
}

// Minus returns r without the dice of s; s must be contained in r.
func (r Roll) Minus(s Roll) Roll {
	for f := range r {
		r[f] -= s[f]
	}
	return r
}

// Only returns the dice of r that show one of the given faces, all of them.
func (r Roll) Only(faces ...Face) Roll {
	var s Roll
	for _, f := range faces {
		s[f] = r[f]
	}
	return s
}

// String writes r as the protocol does: one character per die, in increasing order.
func (r Roll) String() string {
	var b [3 * DiceCount]byte
	return string(r.appendTo(b[:0]))
}

func (r Roll) appendTo(b []byte) []byte {
	for f, c := range r {
		for ; c > 0; c-- {
			b = append(b, faceChars[f])
		}
	}
	return b
}

// ParseRoll reads a word of exactly six dice in increasing order, as the hub writes them
// in turn, rerolled and rolled messages.
func ParseRoll(s string) (Roll, error) {
	var r Roll
	if len(s) != DiceCount {
		return r, formatError(RuleDiceWord, s)
	}
	prev := Face(0)
	for i := 0; i < len(s); i++ {
		f, ok := FaceOf(s[i])
		if !ok || f < prev {
			return Roll{}, formatError(RuleDiceWord, s)
		}
		prev = f
		r[f]++
	}
	return r, nil
}
