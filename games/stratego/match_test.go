package stratego

import (
	"math/rand/v2"
	"strings"
	"testing"

	"gauntlet/games/judge"
)

// match plays two brains in process as the manager would (views, confirmations to both)
// and returns the game at its end.
func match(t *testing.T, red, blue Brain) *Game {
	t.Helper()
	brains := [2]Brain{red, blue}
	g := New(red.Setup(Red), blue.Setup(Blue), 2000)
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
				o.Observe(conf.String(), Colour(side) == c)
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
		var g *Game
		hunterColour := Colour(i % 2)
		if hunterColour == Red {
			g = match(t, h, x)
		} else {
			g = match(t, x, h)
		}
		_, o, about := g.Over()
		if (o == Victory && about == hunterColour) || (o == Surrender && about != hunterColour) {
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
		for c, back := range map[Colour][2]int{Red: {0, 1}, Blue: {3, 2}} {
			s := NewHunter(rand.New(rand.NewPCG(seed, 0))).Setup(c)
			if _, err := ParseSetup(s.Lines()); err != nil {
				t.Fatalf("seed %d: %v\n%v", seed, err, s.Lines())
			}
			b, f := back[0], back[1]
			if s[b][4] != Flag || s[b][3] != Bomb || s[b][5] != Bomb || s[f][4] != Bomb {
				t.Errorf("seed %d, %s: %v", seed, c, s.Lines())
			}
		}
	}
}

// The manager's judge plays two reference AIs through their responders, the protocol's
// lines and all, to a result line.
func TestJudgePlaysReferenceAIs(t *testing.T) {
	for i := uint64(0); i < 6; i++ {
		j := NewJudge([2]string{"hunter", "random"}, 2000)
		rs := []judge.Responder{NewResponder(NewHunter(rand.New(rand.NewPCG(i, 1)))), NewResponder(Random{R: rand.New(rand.NewPCG(i, 2))})}
		g, err := judge.Play(j, rs, 5000)
		if err != nil || g.Violation != nil {
			t.Fatalf("game %d: %v %v", i, err, g.Violation)
		}
		log := g.Log()
		won := len(log) == 1 && (strings.HasPrefix(log[0], "hunter RED VICTORY ") || strings.HasPrefix(log[0], "random BLUE SURRENDER "))
		if !won {
			t.Errorf("game %d: result %q, want the hunter's victory", i, log)
		}
		for s, x := range g.Exits {
			if !x.Done || x.Status != 0 {
				t.Errorf("game %d: seat %d ended %+v, want QUIT then exit 0", i, s, x)
			}
		}
	}
}

// A bad setup and an illegal move are violations naming their rule; the game ends with the
// outcome that names the offender.
func TestJudgeViolations(t *testing.T) {
	j := NewJudge([2]string{"a", "b"}, 0)
	j.Start()
	for _, row := range []string{"1111111111", "2222222222", "3333333333"} {
		if _, v := j.Take(row); v != nil {
			t.Fatalf("row %s: %v", row, v)
		}
	}
	// RED's bad setup is a violation at once; BLUE is still asked for its setup, and the
	// game ends after it, RED's first marshal still on the board.
	outs, v := j.Take("4444444444")
	if v == nil || v.Seat != 0 || v.Rule != RuleSetupCounts || j.Over() || len(outs) != 1 || outs[0] != (judge.Out{To: 1, Line: "BLUE a 10 10"}) {
		t.Errorf("bad setup: %+v, %v", v, outs)
	}
	for _, row := range tableSetup {
		outs, v = j.Take(row)
	}
	if v != nil || !j.Over() || outs[len(outs)-1].Line != "a RED BAD_SETUP 0 10 148" || outs[0].Line != "QUIT ILLEGAL" || outs[1].Line != "QUIT DEFAULT" {
		t.Errorf("after BLUE's setup: %+v, %v", v, outs)
	}
	j = NewJudge([2]string{"a", "b"}, 0)
	j.Start()
	for range 2 { // RED's setup, then BLUE's
		for _, row := range []string{"123344455s", "5566667777", "8888899999", "999BBBBBBF"} {
			if _, v := j.Take(row); v != nil {
				t.Fatalf("setup: %v", v)
			}
		}
	}
	outs, v = j.Take("3 3 DOWN")
	if v == nil || v.Rule != RuleMoveMovable || outs[0].Line != "QUIT ILLEGAL" || outs[1].Line != "QUIT DEFAULT" {
		t.Errorf("moving a bomb: %+v, %v", v, outs)
	}
}

// A game aborted during the setups ends as INTERNAL_ERROR in turn 0 with the setups
// received so far on the board, as a bad setup's stay.
func TestJudgeAbortDuringSetup(t *testing.T) {
	j := NewJudge([2]string{"a", "b"}, 0)
	j.Start()
	for _, row := range tableSetup {
		j.Take(row)
	}
	j.Take(tableSetup[0]) // BLUE's first row only
	outs := j.Abort()
	if !j.Over() || outs[len(outs)-1].Line != "b BLUE INTERNAL_ERROR 0 148 0" {
		t.Errorf("abort: %v", outs)
	}
}
