package dealer2310

import (
	"slices"
	"strings"
)

// SiteWidth is the number of display columns a site takes: its two-letter label and a
// space on the top line, a player id and two spaces below.
const SiteWidth = 3

// IDChar is the character that stands for player p in the display: its id, or the last
// digit of its id from 10 on (the display has one column per site; see docs/dealer2310.md).
func IDChar(p int) byte { return '0' + byte(p%10) }

// DisplayLines returns the path display, one string per line without '\n'. The top line
// holds each site's label and a space; below it, in each site's first column, the ids of
// the players on the site, one per line in order of arrival (earliest at the top), packed
// without gaps. Every line is padded with spaces to the top line's width.
func (g *Game) DisplayLines() []string {
	return strings.Split(strings.TrimSuffix(g.Display(), "\n"), "\n")
}

// Display returns the path display as printed: the lines of DisplayLines, each ended by
// '\n'.
func (g *Game) Display() string {
	width := SiteWidth * len(g.path)
	byArrival := make([]int, len(g.players))
	for i := range byArrival {
		byArrival[i] = i
	}
	slices.SortFunc(byArrival, func(a, b int) int { return g.players[a].order - g.players[b].order })
	depth := make([]int, len(g.path)) // ids placed so far in each site's column
	rows := 0
	for _, p := range byArrival {
		depth[g.players[p].Site]++
		rows = max(rows, depth[g.players[p].Site])
	}

	line := width + 1
	b := make([]byte, line*(rows+1))
	for i := range b {
		b[i] = ' '
	}
	for s, site := range g.path {
		copy(b[SiteWidth*s:], site.Type.String())
	}
	clear(depth)
	for _, p := range byArrival {
		s := g.players[p].Site
		depth[s]++
		b[line*depth[s]+SiteWidth*s] = IDChar(p)
	}
	for r := 0; r <= rows; r++ {
		b[line*r+width] = '\n'
	}
	return string(b)
}
