package stlucia

import (
	"os"
	"strings"
	"testing"

	"gauntlet/games/judge"
)

// keeper is a legal strategy no reference player has: it keeps whatever it rolls and never
// leaves St Lucia.
var keeper = Strategy{Name: "keeper", Reroll: func(View) Roll { return Roll{} }, Retreat: func(View) bool { return false }}

func rolls(t *testing.T) []Face {
	t.Helper()
	data, err := os.ReadFile("../../fixtures/stlucia/rolls/mixed-a.roll")
	if err != nil {
		t.Fatal(err)
	}
	f, err := ParseRollFile(data)
	if err != nil {
		t.Fatal(err)
	}
	return f.Dice()
}

// The judge accepts any legal reply, not only the reference players' choices.
func TestJudgeAcceptsAnotherLegalPlayer(t *testing.T) {
	j, err := NewJudge(rolls(t), 15, 3)
	if err != nil {
		t.Fatal(err)
	}
	g, err := judge.Play(j, []judge.Responder{NewResponder(keeper, 3, 0), NewResponder(EAIT, 3, 1), NewResponder(MABS, 3, 2)}, 5000)
	if err != nil || g.Violation != nil {
		t.Fatalf("err %v, violation %v", err, g.Violation)
	}
	if !j.Over() {
		t.Fatal("the game did not end")
	}
	ref, err := Simulate(rolls(t), 15, []Strategy{EAIT, EAIT, MABS}, 5000)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(g.Sent(0), ",") == strings.Join(ref.Sent[0], ",") {
		t.Errorf("the other strategy made the reference's replies: the test shows nothing")
	}
}

// A refused reply is a violation naming the rule, with the hub's status for it (7 for a
// malformed line, 8 for an illegal one), and the game ends with shutdown to every player.
func TestJudgeNamesTheBrokenRule(t *testing.T) {
	tests := []struct {
		before []string // legal replies first
		line   string
		rule   string
		status int
	}{
		{nil, "stay", RuleExpectDice, ExitIllegal},
		{nil, "hello", RuleMsgKind, ExitMalformed},
		{[]string{"reroll 1", "reroll 1"}, "reroll 1", RuleRerollLimit, ExitIllegal},
	}
	for _, tc := range tests {
		j, err := NewJudge([]Face{One}, 15, 2)
		if err != nil {
			t.Fatal(err)
		}
		j.Start()
		for _, l := range tc.before {
			if _, v := j.Take(l); v != nil {
				t.Fatalf("%s refused: %v", l, v)
			}
		}
		outs, v := j.Take(tc.line)
		if v == nil || v.Rule != tc.rule || v.Status != tc.status || v.Seat != 0 || v.Line != tc.line {
			t.Errorf("%q after %v: violation %+v, want rule %q status %d", tc.line, tc.before, v, tc.rule, tc.status)
			continue
		}
		if !j.Over() || len(outs) != 2 || outs[0].Line != "shutdown" {
			t.Errorf("%q: the hub sent %v, over=%v; want shutdown to both", tc.line, outs, j.Over())
		}
	}
}
