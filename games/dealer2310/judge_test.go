package dealer2310

import (
	"strings"
	"testing"

	"gauntlet/games/judge"
)

// furthest is a legal strategy no reference player has: it always moves as far as it may
// (the last site with room up to the next barrier).
func furthest(g *Game, me int) int {
	best := -1
	for s := range g.Path() {
		if g.CheckMove(me, s) == nil {
			best = s
		}
	}
	return best
}

func judgeGame(t *testing.T, n int) (judge.Judge, Path) {
	t.Helper()
	path, err := ParsePath("8;::-Ri3Do2Mo2::-V23Ri2::-")
	if err != nil {
		t.Fatal(err)
	}
	deck, err := ParseDeck("4BDCA")
	if err != nil {
		t.Fatal(err)
	}
	j, err := NewJudge(path, deck, n)
	if err != nil {
		t.Fatal(err)
	}
	return j, path
}

// The judge accepts any legal move, not only the reference players' choices: a player of
// another strategy plays a whole game without a violation, and differs from the references.
func TestJudgeAcceptsAnotherLegalPlayer(t *testing.T) {
	j, _ := judgeGame(t, 3)
	rs := []judge.Responder{NewResponder(furthest, 3, 0), NewResponder(StrategyA, 3, 1), NewResponder(StrategyB, 3, 2)}
	g, err := judge.Play(j, rs, 100)
	if err != nil || g.Violation != nil {
		t.Fatalf("err %v, violation %v", err, g.Violation)
	}
	for i, x := range g.Exits {
		if !x.Done || x.Status != PlayerExitOK {
			t.Errorf("player %d ended %+v, want a normal end", i, x)
		}
	}
	ref, _ := judgeGame(t, 3)
	refGame, err := judge.Play(ref, []judge.Responder{NewResponder(StrategyA, 3, 0), NewResponder(StrategyA, 3, 1), NewResponder(StrategyB, 3, 2)}, 100)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(g.Sent(0), ",") == strings.Join(refGame.Sent(0), ",") {
		t.Errorf("the other strategy made the reference's moves (%v): the test shows nothing", g.Sent(0))
	}
}

// An illegal or malformed move is a violation naming the rule it broke, with the dealer's
// communications error, and the game ends with EARLY to every player.
func TestJudgeNamesTheBrokenRule(t *testing.T) {
	tests := []struct {
		line, rule string
	}{
		{"DO0", RuleMoveForward},
		{"DO99", RuleMoveSite},
		{"DO7", ""}, // past the next barrier: whichever rule the engine names, one is named
		{"HAP0,1,0,0,0", RuleFromPlayer},
	}
	for _, tc := range tests {
		j, _ := judgeGame(t, 2)
		j.Welcome(0)
		j.Welcome(1)
		j.Start()
		seat := j.Awaiting()
		allowed := j.Allowed()
		outs, v := j.Take(tc.line)
		if v == nil {
			t.Errorf("%s accepted; allowed were %s", tc.line, allowed)
			continue
		}
		if v.Seat != seat || v.Status != ExitComms || (tc.rule != "" && v.Rule != tc.rule) || v.Rule == "" {
			t.Errorf("%s: violation %+v, want seat %d, rule %q, status %d", tc.line, v, seat, tc.rule, ExitComms)
		}
		if len(outs) != 2 || outs[0].Line != TextEarly || !j.Over() {
			t.Errorf("%s: the dealer sent %v and over=%v, want EARLY to both and the game over", tc.line, outs, j.Over())
		}
		if !strings.HasPrefix(allowed, "one of DO") {
			t.Errorf("Allowed() = %q", allowed)
		}
	}
}
