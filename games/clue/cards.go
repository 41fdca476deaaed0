package clue

import (
	"fmt"
	"strconv"
)

// Tokens is the number of suspects, each a token on the board and a seat at the table:
// tokens are numbered in turn order.
const Tokens = 6

// Suspects are the tokens' names, by number.
var Suspects = [Tokens]string{"Scarlet", "Mustard", "White", "Green", "Peacock", "Plum"}

// Weapons are the six weapon cards, as the protocol writes them.
var Weapons = []string{"candlestick", "knife", "pipe", "revolver", "rope", "wrench"}

// Rooms are the nine room letters, and RoomNames their names. S and V are not rooms: they
// mark how a token came to be in a room.
var (
	Rooms     = []byte("KBCDRLUHT")
	RoomNames = map[byte]string{'K': "Kitchen", 'B': "Ballroom", 'C': "Conservatory", 'D': "Dining room",
		'R': "Billiard room", 'L': "Library", 'U': "Lounge", 'H': "Hall", 'T': "Study"}
)

// Kind is a card's category.
type Kind int

const (
	Suspect Kind = iota
	Weapon
	Room
)

func (k Kind) String() string { return [...]string{"suspect", "weapon", "room"}[k] }

// Card is one of the 21 cards: a suspect (a token number), a weapon or a room, numbered
// 0-5, 6-11 and 12-20 in that order.
type Card int

// Cards is the number of cards.
const Cards = Tokens + 6 + 9

// SuspectCard, WeaponCard and RoomCard give the card of a token, of a weapon's index in
// Weapons and of a room letter.
func SuspectCard(t int) Card { return Card(t) }
func WeaponCard(w int) Card  { return Card(Tokens + w) }
func RoomCard(r byte) Card {
	for i, l := range Rooms {
		if l == r {
			return Card(Tokens + len(Weapons) + i)
		}
	}
	panic(fmt.Sprintf("clue: %q is not a room", r))
}

// Kind is the card's category.
func (c Card) Kind() Kind {
	switch {
	case c < Tokens:
		return Suspect
	case c < Tokens+6:
		return Weapon
	}
	return Room
}

// Room is the letter of a room card.
func (c Card) Room() byte { return Rooms[int(c)-Tokens-len(Weapons)] }

// String is the card's protocol token: the token's number, the weapon's name or the room's
// letter.
func (c Card) String() string {
	switch c.Kind() {
	case Suspect:
		return strconv.Itoa(int(c))
	case Weapon:
		return Weapons[int(c)-Tokens]
	}
	return string(c.Room())
}

// ParseCard reads a card token.
func ParseCard(s string) (Card, error) {
	if len(s) == 1 && s[0] >= '0' && s[0] < '0'+Tokens {
		return Card(s[0] - '0'), nil
	}
	for i, w := range Weapons {
		if s == w {
			return WeaponCard(i), nil
		}
	}
	if len(s) == 1 && isRoom(s[0]) {
		return RoomCard(s[0]), nil
	}
	return 0, fmt.Errorf("%q is not a card (a token 0-5, a weapon or a room letter)", s)
}

func isRoom(b byte) bool {
	for _, r := range Rooms {
		if r == b {
			return true
		}
	}
	return false
}

// Triple is a suggestion or an accusation: a suspect, a weapon and a room.
type Triple struct {
	Suspect int  // a token
	Weapon  int  // an index in Weapons
	Room    byte // a room letter
}

// Cards are the triple's three cards.
func (t Triple) Cards() [3]Card {
	return [3]Card{SuspectCard(t.Suspect), WeaponCard(t.Weapon), RoomCard(t.Room)}
}

// String is the protocol's form, e.g. "(5 rope U)".
func (t Triple) String() string {
	return fmt.Sprintf("(%d %s %c)", t.Suspect, Weapons[t.Weapon], t.Room)
}

// ParseTriple reads "(SUSPECT WEAPON ROOM)".
func ParseTriple(s string) (Triple, error) {
	f, err := list(s, 3)
	if err != nil {
		return Triple{}, err
	}
	cs := make([]Card, 3)
	for i, want := range []Kind{Suspect, Weapon, Room} {
		c, err := ParseCard(f[i])
		if err != nil {
			return Triple{}, err
		}
		if c.Kind() != want {
			return Triple{}, fmt.Errorf("element %d of %q is a %s card, not a %s", i+1, s, c.Kind(), want)
		}
		cs[i] = c
	}
	return Triple{Suspect: int(cs[0]), Weapon: int(cs[1]) - Tokens, Room: cs[2].Room()}, nil
}
