package dealer2310

import "strconv"

// setPoints is the worth of a set of k different item kinds, k from 1 to 5.
var setPoints = [NumCardKinds + 1]int{0, 1, 3, 5, 7, 10}

// ItemPoints is the worth of a hand of item cards: sets of distinct kinds are taken
// greedily, as large as possible each time (5 kinds 10, 4 kinds 7, 3 kinds 5, 2 kinds 3,
// 1 kind 1). AAABCCDE is ABCDE + AC + A = 14; AABBBCCDDDEE is 2 x ABCDE + BD = 23.
func ItemPoints(cards [NumCardKinds]int) int {
	total := 0
	for {
		kinds := 0
		for i := range cards {
			if cards[i] > 0 {
				cards[i]--
				kinds++
			}
		}
		if kinds == 0 {
			return total
		}
		total += setPoints[kinds]
	}
}

// Score is player p's total: points from Do sites, one per V1 and per V2 site visited,
// and the points of its item cards.
func (g *Game) Score(p int) int {
	s := &g.players[p]
	return s.Points + s.V1 + s.V2 + ItemPoints(s.Cards)
}

// Scores returns every player's score, in player order.
func (g *Game) Scores() []int {
	out := make([]int, len(g.players))
	for p := range out {
		out[p] = g.Score(p)
	}
	return out
}

// ScoresLine returns the final line, without '\n', e.g. "Scores: 1,2".
func (g *Game) ScoresLine() string {
	b := []byte("Scores: ")
	for p := range g.players {
		if p > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(g.Score(p)), 10)
	}
	return string(b)
}
