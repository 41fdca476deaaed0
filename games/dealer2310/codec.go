package dealer2310

import (
	"strconv"
	"strings"
)

// Card is an item card. Cards are numbered as in HAP messages: 1 is 'A' ... 5 is 'E', and 0
// means no card.
type Card uint8

// The item cards.
const (
	NoCard Card = iota
	CardA
	CardB
	CardC
	CardD
	CardE
)

// NumCardKinds is the number of kinds of item card (A to E).
const NumCardKinds = 5

// Letter returns the card's letter, 'A' to 'E' ('-' for NoCard).
func (c Card) Letter() byte {
	if c == NoCard || c > CardE {
		return '-'
	}
	return 'A' + byte(c) - 1
}

// Deck is the item deck, in drawing order.
type Deck []Card

// MinDeck is the smallest number of cards a deck may hold.
const MinDeck = 4

// ParseDeckFile parses the contents of a deck file: exactly one line ending in '\n'.
func ParseDeckFile(data []byte) (Deck, error) {
	s := string(data)
	i := strings.IndexByte(s, '\n')
	if i < 0 || i != len(s)-1 {
		return nil, formatError(RuleDeckLine, s)
	}
	return ParseDeck(s[:i])
}

// ParseDeck parses a deck line without its '\n', e.g. "7ABACDEE".
func ParseDeck(line string) (Deck, error) {
	n, rest, ok := leadingCount(line)
	if !ok {
		return nil, formatError(RuleDeckCount, line)
	}
	d := make(Deck, 0, len(rest))
	for i := 0; i < len(rest); i++ {
		b := rest[i]
		if b < 'A' || b > 'E' {
			return nil, formatError(RuleDeckCard, line)
		}
		d = append(d, Card(b-'A'+1))
	}
	if len(d) != n {
		return nil, formatError(RuleDeckMatch, line)
	}
	if n < MinDeck {
		return nil, formatError(RuleDeckSize, line)
	}
	return d, nil
}

// String returns the deck line without '\n': the count followed by the cards.
func (d Deck) String() string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(len(d)))
	for _, c := range d {
		b.WriteByte(c.Letter())
	}
	return b.String()
}

// leadingCount reads the decimal count a file line starts with. The count is written
// canonically (no sign, no leading zero), so that formatting it again gives the same text.
func leadingCount(s string) (n int, rest string, ok bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || i > 9 || (i > 1 && s[0] == '0') {
		return 0, s, false
	}
	n, _ = strconv.Atoi(s[:i])
	return n, s[i:], true
}

// zeroPaddedCount is leadingCount that also reads a count written with leading zeros
// ("07" is 7), as strtol does: the player's reading of the path message (ParsePathMessage).
func zeroPaddedCount(s string) (n int, rest string, ok bool) {
	z := 0
	for z < len(s)-1 && s[z] == '0' && s[z+1] >= '0' && s[z+1] <= '9' {
		z++
	}
	return leadingCount(s[z:])
}

// SiteType is the kind of a site on the path.
type SiteType uint8

// The site types. Barrier is written "::" and stops every player.
const (
	Barrier SiteType = iota
	Mo               // gain 3 money
	V1               // 1 point at the end of the game per V1 site visited
	V2               // 1 point at the end of the game per V2 site visited
	Do               // convert money into points, 1 point per 2 money
	Ri               // draw the next item card
)

var siteLabels = [...]string{Barrier: "::", Mo: "Mo", V1: "V1", V2: "V2", Do: "Do", Ri: "Ri"}

// String returns the two-letter label of the type, as in the display.
func (t SiteType) String() string {
	if int(t) >= len(siteLabels) {
		return "??"
	}
	return siteLabels[t]
}

// Site is one site of the path. Cap is the number of players it holds; a barrier holds
// every player and has Cap 0.
type Site struct {
	Type SiteType
	Cap  int
}

// String returns the site as written in a path file: "::-" or e.g. "Mo1".
func (s Site) String() string {
	if s.Type == Barrier {
		return "::-"
	}
	return s.Type.String() + strconv.Itoa(s.Cap)
}

// HasRoom reports whether one more player fits on the site when occupied players are on it.
func (s Site) HasRoom(occupied int) bool {
	return s.Type == Barrier || occupied < s.Cap
}

// Path is the sequence of sites, from the start barrier (site 0) to the final barrier.
type Path []Site

// MinPath is the smallest number of sites a path may have.
const MinPath = 2

// ParsePathFile parses the contents of a path file: exactly one line ending in '\n'.
func ParsePathFile(data []byte) (Path, error) {
	s := string(data)
	i := strings.IndexByte(s, '\n')
	if i < 0 || i != len(s)-1 {
		return nil, formatError(RulePathLine, s)
	}
	return ParsePath(s[:i])
}

// ParsePath parses a path line without its '\n', e.g. "7;::-Mo1V11V22Mo1Mo1::-". The same
// line is the first message the dealer sends each player.
func ParsePath(line string) (Path, error) {
	return parsePath(line, leadingCount)
}

// ParsePathMessage parses the path line a player receives from the dealer. It is ParsePath,
// but for a count with leading zeros ("07;..."), which it reads as a number: a dealer may
// read such a file as strtol does (docs/dealer2310.md accepts both), and the notes have it
// forward the file's line as read, so a player that refused the zero would fail a game the
// dealer was allowed to play.
func ParsePathMessage(line string) (Path, error) {
	return parsePath(line, zeroPaddedCount)
}

func parsePath(line string, count func(string) (int, string, bool)) (Path, error) {
	n, rest, ok := count(line)
	if !ok || !strings.HasPrefix(rest, ";") {
		return nil, formatError(RulePathCount, line)
	}
	rest = rest[1:]
	if len(rest)%3 != 0 {
		return nil, formatError(RulePathSite, line)
	}
	p := make(Path, 0, len(rest)/3)
	for i := 0; i < len(rest); i += 3 {
		s, ok := parseSite(rest[i : i+3])
		if !ok {
			return nil, formatError(RulePathSite, line)
		}
		p = append(p, s)
	}
	if len(p) != n {
		return nil, formatError(RulePathMatch, line)
	}
	if n < MinPath {
		return nil, formatError(RulePathSize, line)
	}
	if p[0].Type != Barrier || p[n-1].Type != Barrier {
		return nil, formatError(RulePathEnds, line)
	}
	return p, nil
}

// parseSite reads one three-character site.
func parseSite(s string) (Site, bool) {
	if s == "::-" {
		return Site{Type: Barrier}, true
	}
	for t := Mo; t <= Ri; t++ {
		if s[:2] == siteLabels[t] {
			if s[2] < '1' || s[2] > '9' {
				return Site{}, false
			}
			return Site{Type: t, Cap: int(s[2] - '0')}, true
		}
	}
	return Site{}, false
}

// String returns the path line without '\n': the count, ';' and the sites.
func (p Path) String() string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(len(p)))
	b.WriteByte(';')
	for _, s := range p {
		b.WriteString(s.String())
	}
	return b.String()
}

// NextBarrier returns the index of the first barrier after site from, or len(p)-1 when
// from is the last site (there is nothing after it).
func (p Path) NextBarrier(from int) int {
	for i := from + 1; i < len(p); i++ {
		if p[i].Type == Barrier {
			return i
		}
	}
	return len(p) - 1
}
