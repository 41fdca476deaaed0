package clue

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"
)

// goldenGames are whole games with fixed seeds whose accounts (the server's output) are
// kept in fixtures/clue/games: the first turns of each were checked by hand against the
// board (docs/clue.md), the deal and the rules of moving, suggesting and disproving.
var goldenGames = []struct {
	name  string
	seed  uint64
	kinds [Tokens]string
}{
	{"seed1-mixed", 1, [Tokens]string{"strong", "random", "sensible", "leech", "sensible", "random"}},
	{"seed2-sensible", 2, [Tokens]string{"sensible", "sensible", "sensible", "sensible", "sensible", "sensible"}},
}

func TestGoldenGames(t *testing.T) {
	g := goldie.New(t, goldie.WithFixtureDir(filepath.Join("..", "..", "fixtures", "clue", "games")))
	for _, gg := range goldenGames {
		t.Run(gg.name, func(t *testing.T) {
			game := play(t, gg.seed, gg.kinds)
			var b strings.Builder
			sol, hands := Deal(gg.seed)
			fmt.Fprintf(&b, "deal: solution %v", sol)
			for s, h := range hands {
				fmt.Fprintf(&b, "; %d %v", s, Hello{Token: s, Cards: h})
			}
			b.WriteString("\n")
			for _, l := range game.Log() {
				b.WriteString(l + "\n")
			}
			g.Assert(t, gg.name, []byte(b.String()))
		})
	}
}
