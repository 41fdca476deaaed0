package stratego

import (
	"math/rand/v2"
	"testing"

	game "gauntlet/games/stratego"
)

// match plays two brains in process as the manager would (views, confirmations to both)
// and returns the game at its end.
func match(t *testing.T, red, blue Brain) *game.Game {
	t.Helper()
	brains := [2]Brain{red, blue}
	g := game.New(red.Setup(game.Red), blue.Setup(game.Blue), 2000)
	for {
		if over, _, _ := g.Over(); over {
			return g
		}
		c := g.Turn()
		m := brains[c].Move(g.View(c))
		conf, err := g.Play(m)
		if err != nil {
			t.Fatalf("%s played %s: %v", c, m, err)
		}
		for side, b := range brains {
			if o, ok := b.(Observer); ok && !m.Surrender {
				o.Observe(conf.String(), game.Colour(side) == c)
			}
		}
	}
}

// The hunter plays only legal moves and beats the random AI in most games, on both colours.
func TestHunterBeatsRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	wins, games := 0, 40
	for i := 0; i < games; i++ {
		h, x := NewHunter(rand.New(rand.NewPCG(r.Uint64(), 1))), Random{R: rand.New(rand.NewPCG(r.Uint64(), 2))}
		var g *game.Game
		hunterColour := game.Colour(i % 2)
		if hunterColour == game.Red {
			g = match(t, h, x)
		} else {
			g = match(t, x, h)
		}
		_, o, about := g.Over()
		if (o == game.Victory && about == hunterColour) || (o == game.Surrender && about != hunterColour) {
			wins++
		}
	}
	t.Logf("the hunter won %d of %d games against the random AI", wins, games)
	if wins*4 < games*3 {
		t.Errorf("the hunter won only %d of %d games against the random AI, want at least three quarters", wins, games)
	}
}

// The hunter's setup places every piece, the flag on the back row between bombs.
func TestHunterSetup(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		for c, back := range map[game.Colour][2]int{game.Red: {0, 1}, game.Blue: {3, 2}} {
			s := NewHunter(rand.New(rand.NewPCG(seed, 0))).Setup(c)
			if _, err := game.ParseSetup(s.Lines()); err != nil {
				t.Fatalf("seed %d: %v\n%v", seed, err, s.Lines())
			}
			b, f := back[0], back[1]
			if s[b][4] != game.Flag || s[b][3] != game.Bomb || s[b][5] != game.Bomb || s[f][4] != game.Bomb {
				t.Errorf("seed %d, %s: %v", seed, c, s.Lines())
			}
		}
	}
}
