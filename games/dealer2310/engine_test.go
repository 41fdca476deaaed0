package dealer2310

import (
	"errors"
	"strings"
	"testing"
)

// mustPath parses a path line or fails the test.
func mustPath(t testing.TB, line string) Path {
	t.Helper()
	p, err := ParsePath(line)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// mustDeck parses a deck line or fails the test.
func mustDeck(t testing.TB, line string) Deck {
	t.Helper()
	d, err := ParseDeck(line)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// setup returns a game of n players on path (with deck, "" for none) after the given HAP
// messages have been applied, the way a player's view follows the dealer.
func setup(t testing.TB, path, deck string, n int, haps ...string) Game {
	t.Helper()
	var d Deck
	if deck != "" {
		d = mustDeck(t, deck)
	}
	g, err := New(mustPath(t, path), d, n)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range haps {
		m, err := ParseMsg(h)
		if err != nil || m.Kind != MsgHAP {
			t.Fatalf("bad HAP %q in test: %v", h, err)
		}
		if err := g.ApplyHAP(m.HAP); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

func TestNew(t *testing.T) {
	g := setup(t, "7;::-Mo1V11V22Mo1Mo1::-", "7ABACDEE", 3)
	for p := 0; p < 3; p++ {
		s := g.Player(p)
		if s.Site != 0 || s.Money != StartMoney || s.Points != 0 || s.CardCount() != 0 {
			t.Errorf("player %d starts as %+v", p, s)
		}
	}
	if got := g.OnSite(0); len(got) != 3 || got[0] != 2 || got[1] != 1 || got[2] != 0 {
		t.Errorf("OnSite(0) = %v, want [2 1 0]: the highest id arrived first, 0 last", got)
	}
	if g.Next() != 0 {
		t.Errorf("first mover = %d, want 0", g.Next())
	}
	if _, err := New(mustPath(t, "2;::-::-"), nil, 0); !errors.Is(err, ErrNoPlayers) {
		t.Errorf("New with 0 players: %v", err)
	}
	if _, err := New(Path{{Barrier, 0}}, nil, 1); !errors.Is(err, ErrBadPath) {
		t.Errorf("New with a one-site path: %v", err)
	}
	if _, err := New(Path{{Barrier, 0}, {Mo, 1}}, nil, 1); !errors.Is(err, ErrBadPath) {
		t.Errorf("New with a path not ending in a barrier: %v", err)
	}
}

func TestTurnOrder(t *testing.T) {
	const path = "8;::-Mo2Do2V12::-Ri2V22::-"
	tests := []struct {
		name string
		haps []string
		want int
	}{
		{"start: player 0 arrived last", nil, 0},
		{"furthest back, most recent arrival", []string{"HAP0,1,0,0,0"}, 1},
		{"furthest back wins over recent arrival", []string{"HAP0,1,0,0,0", "HAP1,1,0,0,0"}, 2},
		{"most recent on the same site", []string{"HAP0,1,0,0,0", "HAP1,1,0,0,0", "HAP2,3,0,0,0"}, 1},
		{"arrival, not id, breaks ties", []string{"HAP1,1,0,0,0", "HAP0,1,0,0,0", "HAP2,3,0,0,0"}, 0},
		{"a barrier stacks too", []string{"HAP2,4,0,0,0", "HAP0,4,0,0,0", "HAP1,4,0,0,0"}, 1},
		{"finished players never move", []string{"HAP0,7,0,0,0", "HAP1,4,0,0,0", "HAP2,4,0,0,0"}, 2},
		{"one left", []string{"HAP0,7,0,0,0", "HAP1,7,0,0,0", "HAP2,6,0,0,0"}, 2},
		{"game over", []string{"HAP0,7,0,0,0", "HAP1,7,0,0,0", "HAP2,7,0,0,0"}, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := setup(t, path, "", 3, tc.haps...)
			if got := g.Next(); got != tc.want {
				t.Errorf("Next = %d, want %d", got, tc.want)
			}
			if g.Over() != (tc.want < 0) {
				t.Errorf("Over = %v", g.Over())
			}
		})
	}
}

func TestCheckMove(t *testing.T) {
	// 0 ::, 1 Mo1, 2 Do2, 3 ::, 4 ::, 5 Ri1, 6 V11, 7 V21, 8 ::
	const path = "9;::-Mo1Do2::-::-Ri1V11V21::-"
	tests := []struct {
		name   string
		haps   []string
		player int
		site   int
		rule   string // "" when legal
	}{
		{"next site", nil, 0, 1, ""},
		{"two steps", nil, 0, 2, ""},
		{"up to the barrier", nil, 0, 3, ""},
		{"past the barrier", nil, 0, 4, RuleMoveBarrier},
		{"far past barriers", nil, 0, 8, RuleMoveBarrier},
		{"stay put", nil, 0, 0, RuleMoveForward},
		{"negative site", nil, 0, -1, RuleMoveSite},
		{"past the end", nil, 0, 9, RuleMoveSite},
		{"backwards", []string{"HAP0,2,0,0,0"}, 0, 1, RuleMoveForward},
		{"full, capacity 1", []string{"HAP1,1,0,0,0"}, 0, 1, RuleMoveFull},
		{"room, capacity 2", []string{"HAP1,2,0,0,0"}, 0, 2, ""},
		{"full, capacity 2", []string{"HAP1,2,0,0,0", "HAP2,2,0,0,0"}, 0, 2, RuleMoveFull},
		{"full site skipped", []string{"HAP1,1,0,0,0"}, 0, 2, ""},
		{"a barrier is never full", []string{"HAP1,3,0,0,0", "HAP2,3,0,0,0"}, 0, 3, ""},
		{"barrier beside a barrier", []string{"HAP0,3,0,0,0"}, 0, 4, ""},
		{"cannot jump the second barrier", []string{"HAP0,3,0,0,0"}, 0, 5, RuleMoveBarrier},
		{"after two barriers", []string{"HAP0,4,0,0,0"}, 0, 8, ""},
		{"from the end", []string{"HAP0,8,0,0,0"}, 0, 8, RuleMoveForward},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := setup(t, path, "", 3, tc.haps...)
			err := g.CheckMove(tc.player, tc.site)
			got := ""
			if err != nil {
				var me *MoveError
				if !errors.As(err, &me) {
					t.Fatalf("CheckMove error %v is not a *MoveError", err)
				}
				got = me.Rule
				if me.Player != tc.player || me.Site != tc.site {
					t.Errorf("MoveError names player %d site %d", me.Player, me.Site)
				}
			}
			if got != tc.rule {
				t.Errorf("CheckMove(%d, %d) rule = %q, want %q", tc.player, tc.site, got, tc.rule)
			}
		})
	}
}

func TestMoveRefusedLeavesGameUnchanged(t *testing.T) {
	g := setup(t, "3;::-Ri1::-", "4ABCD", 2)
	before := g.Clone()
	if _, err := g.Move(0); err == nil {
		t.Fatal("Move(0) from site 0 accepted")
	}
	if g.Next() != before.Next() || g.drawn != 0 || g.Player(0) != before.Player(0) {
		t.Errorf("a refused move changed the game")
	}
	// A legal move by the next player, then the game ends.
	moves := []struct {
		site int
		want string
	}{{1, "HAP0,1,0,0,1"}, {2, "HAP1,2,0,0,0"}, {2, "HAP0,2,0,0,0"}}
	for _, m := range moves {
		h, err := g.Move(m.site)
		if err != nil {
			t.Fatal(err)
		}
		if h.String() != m.want {
			t.Errorf("Move gave %s, want %s", h, m.want)
		}
	}
	if !g.Over() {
		t.Fatal("game not over")
	}
	var me *MoveError
	if _, err := g.Move(2); !errors.As(err, &me) || me.Rule != RuleMoveOver {
		t.Errorf("Move after the end: %v", err)
	}
}

func TestSiteEffects(t *testing.T) {
	tests := []struct {
		name  string
		path  string
		money int // money before the move
		hap   string
		after PlayerState // Site, Money, Points, V1, V2, Cards
	}{
		{"Mo gives 3 money", "3;::-Mo1::-", 7, "HAP0,1,0,3,0", PlayerState{Site: 1, Money: 10}},
		{"V1 counts a visit", "3;::-V11::-", 7, "HAP0,1,0,0,0", PlayerState{Site: 1, Money: 7, V1: 1}},
		{"V2 counts a visit", "3;::-V21::-", 7, "HAP0,1,0,0,0", PlayerState{Site: 1, Money: 7, V2: 1}},
		{"Do with odd money", "3;::-Do1::-", 7, "HAP0,1,3,-7,0", PlayerState{Site: 1, Points: 3}},
		{"Do with even money", "3;::-Do1::-", 10, "HAP0,1,5,-10,0", PlayerState{Site: 1, Points: 5}},
		{"Do with one money", "3;::-Do1::-", 1, "HAP0,1,0,-1,0", PlayerState{Site: 1}},
		{"Do with no money", "3;::-Do1::-", 0, "HAP0,1,0,0,0", PlayerState{Site: 1}},
		{"Ri draws the next card", "3;::-Ri1::-", 7, "HAP0,1,0,0,3", PlayerState{Site: 1, Money: 7, Cards: [5]int{0, 0, 1, 0, 0}}},
		{"a barrier does nothing", "2;::-::-", 7, "HAP0,1,0,0,0", PlayerState{Site: 1, Money: 7}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := setup(t, tc.path, "4CABD", 1)
			// Set the money: a HAP that leaves the player on site 0.
			if err := g.ApplyHAP(HAP{Player: 0, Site: 0, Money: tc.money - StartMoney}); err != nil {
				t.Fatal(err)
			}
			h, err := g.Move(1)
			if err != nil {
				t.Fatal(err)
			}
			if h.String() != tc.hap {
				t.Errorf("HAP = %s, want %s", h, tc.hap)
			}
			got := g.Player(0)
			got.order = 0
			if got != tc.after {
				t.Errorf("player after = %+v, want %+v", got, tc.after)
			}
			// A player's view following the HAP ends in the same state.
			v := setup(t, tc.path, "", 1)
			v.ApplyHAP(HAP{Player: 0, Site: 0, Money: tc.money - StartMoney})
			if err := v.ApplyHAP(h); err != nil {
				t.Fatal(err)
			}
			if v.Player(0) != g.Player(0) {
				t.Errorf("view %+v differs from dealer %+v", v.Player(0), g.Player(0))
			}
		})
	}
}

func TestDeckWraps(t *testing.T) {
	g := setup(t, "8;::-Ri1Ri1Ri1Ri1Ri1Ri1::-", "4DCBA", 1)
	var cards []string
	for s := 1; s <= 6; s++ {
		h, err := g.Move(s)
		if err != nil {
			t.Fatal(err)
		}
		cards = append(cards, string(h.Card.Letter()))
	}
	if got := strings.Join(cards, ""); got != "DCBADC" {
		t.Errorf("cards drawn = %s, want DCBADC (the deck starts again after its last card)", got)
	}
	if got := g.Player(0).Cards; got != [5]int{1, 1, 2, 2, 0} {
		t.Errorf("cards held = %v", got)
	}
}

func TestDeckSharedBetweenPlayers(t *testing.T) {
	// Draws come from one deck in game order, whoever draws.
	g := setup(t, "4;::-Ri2Ri2::-", "4ABCD", 2)
	var got []string
	for _, s := range []int{1, 1, 2, 2} {
		h, err := g.Move(s)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, h.String())
	}
	want := []string{"HAP0,1,0,0,1", "HAP1,1,0,0,2", "HAP1,2,0,0,3", "HAP0,2,0,0,4"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("moves = %v, want %v", got, want)
	}
}

func TestItemPoints(t *testing.T) {
	tests := []struct {
		hand string
		want int
	}{
		{"", 0},
		{"A", 1},
		{"AB", 3},
		{"ABC", 5},
		{"ABCD", 7},
		{"ABCDE", 10},
		{"AAAAA", 5},
		{"AABB", 6},
		{"AAB", 4},
		{"AAABCCDE", 14},     // ABCDE + AC + A = 10 + 3 + 1 (spec)
		{"AABBBCCDDDEE", 23}, // ABCDE + ABCDE + BD = 10 + 10 + 3 (spec)
		{"ABCDEABCDE", 20},
		{"EEDDC", 5 + 3},
	}
	for _, tc := range tests {
		var cards [NumCardKinds]int
		for i := 0; i < len(tc.hand); i++ {
			cards[tc.hand[i]-'A']++
		}
		if got := ItemPoints(cards); got != tc.want {
			t.Errorf("ItemPoints(%s) = %d, want %d", tc.hand, got, tc.want)
		}
	}
}

func TestScores(t *testing.T) {
	// Player 0: V1 and V2 once each, Do for 3 points, cards A and B (3): 8.
	// Player 1: V2 twice: 2. Money never counts.
	g := setup(t, "8;::-V12V22Do2Ri2V22::-::-", "", 2,
		"HAP0,1,0,0,0", "HAP0,2,0,0,0", "HAP0,3,3,-7,0", "HAP0,4,0,0,1", "HAP0,4,0,0,2",
		"HAP1,2,0,0,0", "HAP1,5,0,3,0")
	if got := g.Scores(); len(got) != 2 || got[0] != 8 || got[1] != 2 {
		t.Errorf("Scores = %v, want [8 2]", got)
	}
	if got := g.ScoresLine(); got != "Scores: 8,2" {
		t.Errorf("ScoresLine = %q", got)
	}
	if got := g.StatusLine(0); got != "Player 0 Money=0 V1=1 V2=1 Points=3 A=1 B=1 C=0 D=0 E=0" {
		t.Errorf("StatusLine(0) = %q", got)
	}
	if got := g.StatusLine(1); got != "Player 1 Money=10 V1=0 V2=2 Points=0 A=0 B=0 C=0 D=0 E=0" {
		t.Errorf("StatusLine(1) = %q", got)
	}
}

func TestApplyHAP(t *testing.T) {
	tests := []struct {
		name string
		hap  HAP
		rule string
	}{
		{"valid", HAP{Player: 1, Site: 2}, ""},
		{"last player, last site", HAP{Player: 2, Site: 6}, ""},
		{"no such player", HAP{Player: 3, Site: 1}, RuleHAPPlayer},
		{"negative player", HAP{Player: -1, Site: 1}, RuleHAPPlayer},
		{"no such site", HAP{Player: 0, Site: 7}, RuleHAPSite},
		{"negative site", HAP{Player: 0, Site: -1}, RuleHAPSite},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := setup(t, "7;::-Mo1V11V22Mo1Mo1::-", "", 3)
			before := g.Clone()
			err := g.ApplyHAP(tc.hap)
			got := ""
			var he *HAPError
			if errors.As(err, &he) {
				got = he.Rule
			} else if err != nil {
				t.Fatalf("error %v is not a *HAPError", err)
			}
			if got != tc.rule {
				t.Errorf("ApplyHAP(%s) rule = %q, want %q", tc.hap, got, tc.rule)
			}
			if err != nil && (g.Player(0) != before.Player(0) || g.clock != before.clock) {
				t.Errorf("a refused HAP changed the game")
			}
		})
	}
}

func TestApplyHAPTracksEverything(t *testing.T) {
	// A player's view takes the dealer's word: money may go negative, points and cards
	// are added whatever the site, V1/V2 follow the site type.
	g := setup(t, "7;::-Mo1V11V22Mo1Mo1::-", "", 2, "HAP1,2,4,-9,5", "HAP1,3,0,0,5")
	want := "Player 1 Money=-2 V1=1 V2=1 Points=4 A=0 B=0 C=0 D=0 E=2"
	if got := g.StatusLine(1); got != want {
		t.Errorf("StatusLine = %q, want %q", got, want)
	}
}

func TestMoveWithoutDeck(t *testing.T) {
	g := setup(t, "3;::-Ri1::-", "", 1)
	if _, err := g.Move(1); !errors.Is(err, ErrNoDeck) {
		t.Errorf("Move onto Ri without a deck: %v", err)
	}
}

func TestClone(t *testing.T) {
	g := setup(t, "3;::-Ri2::-", "4ABCD", 2)
	c := g.Clone()
	if _, err := c.Move(1); err != nil {
		t.Fatal(err)
	}
	if g.Player(0).Site != 0 || g.drawn != 0 || g.Next() != 0 {
		t.Errorf("moving a clone changed the original")
	}
	if c.Player(0).Site != 1 || c.Next() != 1 {
		t.Errorf("clone did not move")
	}
}

func TestDisplay(t *testing.T) {
	tests := []struct {
		name string
		path string
		n    int
		haps []string
		want []string // lines, padding shown by '.' for readability
	}{
		{"spec start", "7;::-Mo1V11V22Mo1Mo1::-", 2, nil, []string{
			":: Mo V1 V2 Mo Mo :: ",
			"1....................",
			"0....................",
		}},
		{"spec after first move", "7;::-Mo1V11V22Mo1Mo1::-", 2, []string{"HAP0,1,0,3,0"}, []string{
			":: Mo V1 V2 Mo Mo :: ",
			"1..0.................",
		}},
		{"rows only as deep as the busiest site", "4;::-V13Do1::-", 4,
			[]string{"HAP0,1,0,0,0", "HAP2,1,0,0,0", "HAP1,1,0,0,0", "HAP3,2,0,0,0"}, []string{
				":: V1 Do :: ",
				"...0..3.....",
				"...2........",
				"...1........",
			}},
		{"ids packed in order of arrival", "4;::-V13Do1::-", 3,
			[]string{"HAP1,1,0,0,0", "HAP2,3,0,0,0", "HAP0,1,0,0,0"}, []string{
				":: V1 Do :: ",
				"...1.....2..",
				"...0........",
			}},
		{"two sites", "2;::-::-", 3, []string{"HAP0,1,0,0,0"}, []string{
			":: :: ",
			"2..0..",
			"1.....",
		}},
		{"ten or more players: last digit", "3;::-Ri9::-", 12, []string{"HAP11,1,0,0,0", "HAP10,2,0,0,0"}, []string{
			":: Ri :: ",
			"9..1..0..",
			"8........",
			"7........",
			"6........",
			"5........",
			"4........",
			"3........",
			"2........",
			"1........",
			"0........",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := setup(t, tc.path, "", tc.n, tc.haps...)
			var want []string
			for _, l := range tc.want {
				want = append(want, strings.ReplaceAll(l, ".", " "))
			}
			got := g.DisplayLines()
			if strings.Join(got, "|\n") != strings.Join(want, "|\n") {
				t.Errorf("display:\n%s|\nwant:\n%s|", strings.Join(got, "|\n"), strings.Join(want, "|\n"))
			}
			if g.Display() != strings.Join(want, "\n")+"\n" {
				t.Errorf("Display() is not the lines ended by newlines")
			}
		})
	}
}
