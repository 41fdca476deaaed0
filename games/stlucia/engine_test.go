package stlucia

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// render writes outs one a line: "X<- msg" for a message to player X, "hub: text" for a
// line on the hub's stderr.
func render(outs []Out) []string {
	var s []string
	for _, o := range outs {
		if o.To == Log {
			s = append(s, "hub: "+o.Text)
		} else {
			s = append(s, string(Label(o.To))+"<- "+o.Msg.String())
		}
	}
	return s
}

// dice turns a roll-file text into the dice stream.
func dice(t *testing.T, text string) []Face {
	t.Helper()
	f, err := ParseRollFile([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return f.Dice()
}

// newGame returns a game of n players on the rolls text; setup, if not nil, may change the
// state before the first turn (the test is inside the package).
func newGame(t *testing.T, rolls string, win, n int, setup func(g *Game)) Game {
	t.Helper()
	g, err := New(dice(t, rolls), win, n)
	if err != nil {
		t.Fatal(err)
	}
	if setup != nil {
		setup(&g)
	}
	return g
}

// script starts g and feeds it the replies in order, each from whoever is awaited; it
// returns the transcript, with "X-> reply" lines for the replies, and the first error.
func script(g *Game, replies ...string) ([]string, error) {
	tr := render(g.Start())
	for _, r := range replies {
		p, _ := g.Awaiting()
		tr = append(tr, string(Label(p))+"-> "+r)
		outs, err := g.Reply(r)
		if err != nil {
			return tr, err
		}
		tr = append(tr, render(outs)...)
	}
	return tr, nil
}

func checkTranscript(t *testing.T, got []string, want string) {
	t.Helper()
	w := strings.Split(strings.TrimSpace(want), "\n")
	for i := range w {
		w[i] = strings.TrimSpace(w[i])
	}
	if strings.Join(got, "\n") != strings.Join(w, "\n") {
		t.Errorf("transcript:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(w, "\n"))
	}
}

func TestDicePoints(t *testing.T) {
	tests := []struct {
		dice string
		want int
	}{
		{"112233", 0},
		{"111HAP", 1}, // 3 ones = 1
		{"1111AP", 2},
		{"11111P", 3},
		{"111111", 4},
		{"222HAP", 2}, // 3 twos = 2
		{"2222AP", 3},
		{"222222", 5},
		{"333HAP", 3}, // 3 threes = 3
		{"33333P", 5},
		{"333333", 6},
		{"111222", 3},
		{"111333", 4},
		{"222333", 5},
		{"HHHAAA", 0},
		{"PPPPPP", 0},
	}
	for _, tc := range tests {
		r, err := ParseRoll(tc.dice)
		if err != nil {
			t.Fatal(err)
		}
		if got := DicePoints(r); got != tc.want {
			t.Errorf("DicePoints(%s) = %d, want %d", tc.dice, got, tc.want)
		}
	}
}

func TestScoringThroughATurn(t *testing.T) {
	// A keeps 111222: 3 ones (1) + 3 twos (2) = 3 points, told to everyone with points.
	g := newGame(t, "111222"+"HHHAAP", 10, 2, nil)
	tr, err := script(&g, "keepall")
	if err != nil {
		t.Fatal(err)
	}
	checkTranscript(t, tr, `
		A<- turn 111222
		A-> keepall
		hub: Player A rolled 111222
		B<- rolled A 111222
		hub: Player A scored 3 for a total of 3
		A<- points A 3
		B<- points A 3
		B<- turn HHHAAP`)
}

func TestTokensBecomePoints(t *testing.T) {
	// A: PPPPPP (6 tokens, no point). B: 112233 (nothing). A: 12PPPP: 10 tokens = 1 point,
	// 0 tokens left. B: 123PPP. A: PPPPPP again: 6 tokens, no point.
	g := newGame(t, "PPPPPP112233PPPP12123PPPPPPPPP", 100, 2, nil)
	tr, err := script(&g, "keepall", "keepall", "keepall", "keepall", "keepall")
	if err != nil {
		t.Fatal(err)
	}
	checkTranscript(t, tr, `
		A<- turn PPPPPP
		A-> keepall
		hub: Player A rolled PPPPPP
		B<- rolled A PPPPPP
		B<- turn 112233
		B-> keepall
		hub: Player B rolled 112233
		A<- rolled B 112233
		A<- turn 12PPPP
		A-> keepall
		hub: Player A rolled 12PPPP
		B<- rolled A 12PPPP
		hub: Player A scored 1 for a total of 1
		A<- points A 1
		B<- points A 1
		B<- turn 123PPP
		B-> keepall
		hub: Player B rolled 123PPP
		A<- rolled B 123PPP
		A<- turn PPPPPP
		A-> keepall
		hub: Player A rolled PPPPPP
		B<- rolled A PPPPPP
		B<- turn PPPPPP`)
	if a, b := g.Player(0).Tokens, g.Player(1).Tokens; a != 6 || b != 3 {
		t.Errorf("tokens A %d B %d, want 6 and 3", a, b)
	}
}

func TestTokensKeepRemainder(t *testing.T) {
	// 9 tokens already, 3 more: one point and 2 tokens left.
	g := newGame(t, "12HPPP", 100, 2, func(g *Game) { g.players[0].Tokens = 9 })
	if _, err := script(&g, "keepall"); err != nil {
		t.Fatal(err)
	}
	if p := g.Player(0); p.Score != 1 || p.Tokens != 2 {
		t.Errorf("score %d tokens %d, want 1 and 2", p.Score, p.Tokens)
	}
}

func TestClaimEmptyStLuciaWithoutAttacks(t *testing.T) {
	// StLucia is empty: A's A die claims it (+1), nobody is attacked, no attacks line.
	g := newGame(t, "11223A"+"123HHP", 10, 3, nil)
	tr, err := script(&g, "keepall")
	if err != nil {
		t.Fatal(err)
	}
	checkTranscript(t, tr, `
		A<- turn 11223A
		A-> keepall
		hub: Player A rolled 11223A
		B<- rolled A 11223A
		C<- rolled A 11223A
		hub: Player A claimed StLucia
		A<- claim A
		B<- claim A
		C<- claim A
		hub: Player A scored 1 for a total of 1
		A<- points A 1
		B<- points A 1
		C<- points A 1
		B<- turn 123HHP`)
	if g.Occupant() != 0 {
		t.Errorf("occupant = %d, want A", g.Occupant())
	}
}

func TestRetreatAfterGoStillTakesDamage(t *testing.T) {
	// A claims; B attacks in with 2 A: A takes 2 (health 8) and is asked stay?; A goes, so B
	// claims (+1). B's H heals B by 1, reported as healed 0 since B is at 10.
	g := newGame(t, "11223A"+"12HPAA"+"123123", 10, 3, nil)
	tr, err := script(&g, "keepall", "keepall", "go")
	if err != nil {
		t.Fatal(err)
	}
	checkTranscript(t, tr, `
		A<- turn 11223A
		A-> keepall
		hub: Player A rolled 11223A
		B<- rolled A 11223A
		C<- rolled A 11223A
		hub: Player A claimed StLucia
		A<- claim A
		B<- claim A
		C<- claim A
		hub: Player A scored 1 for a total of 1
		A<- points A 1
		B<- points A 1
		C<- points A 1
		B<- turn 12HAAP
		B-> keepall
		hub: Player B rolled 12HAAP
		A<- rolled B 12HAAP
		C<- rolled B 12HAAP
		hub: Player B healed 0, health is now 10
		hub: Player A took 2 damage, health is now 8
		A<- attacks B 2 in
		B<- attacks B 2 in
		C<- attacks B 2 in
		A<- stay?
		A-> go
		hub: Player B claimed StLucia
		A<- claim B
		B<- claim B
		C<- claim B
		hub: Player B scored 1 for a total of 1
		A<- points B 1
		B<- points B 1
		C<- points B 1
		C<- turn 112233`)
	if g.Occupant() != 1 || g.Player(0).Health != 8 {
		t.Errorf("occupant %d, A health %d; want B and 8", g.Occupant(), g.Player(0).Health)
	}
}

func TestStayKeepsStLuciaAndStartBonus(t *testing.T) {
	// A is in StLucia; B attacks with 1 A, A stays; C rolls nothing; A's next turn starts in
	// StLucia (+2) and its H dice do not heal it (no healed line).
	g := newGame(t, "1223HP"+"A12233"+"111HHH"+"HH1223", 10, 3, func(g *Game) { g.occupant = 0 })
	tr, err := script(&g, "keepall", "keepall", "stay", "keepall", "keepall")
	if err != nil {
		t.Fatal(err)
	}
	checkTranscript(t, tr, `
		A<- turn 1223HP
		A-> keepall
		hub: Player A rolled 1223HP
		B<- rolled A 1223HP
		C<- rolled A 1223HP
		hub: Player A scored 2 for a total of 2
		A<- points A 2
		B<- points A 2
		C<- points A 2
		B<- turn 12233A
		B-> keepall
		hub: Player B rolled 12233A
		A<- rolled B 12233A
		C<- rolled B 12233A
		hub: Player A took 1 damage, health is now 9
		A<- attacks B 1 in
		B<- attacks B 1 in
		C<- attacks B 1 in
		A<- stay?
		A-> stay
		C<- turn 111HHH
		C-> keepall
		hub: Player C rolled 111HHH
		A<- rolled C 111HHH
		B<- rolled C 111HHH
		hub: Player C healed 0, health is now 10
		hub: Player C scored 1 for a total of 1
		A<- points C 1
		B<- points C 1
		C<- points C 1
		A<- turn 1223HH
		A-> keepall
		hub: Player A rolled 1223HH
		B<- rolled A 1223HH
		C<- rolled A 1223HH
		hub: Player A scored 2 for a total of 4
		A<- points A 2
		B<- points A 2
		C<- points A 2
		B<- turn 1223HP`) // the 24 dice are used up: the stream wraps to its start
}

func TestHealingCapped(t *testing.T) {
	g := newGame(t, "1HHHHP", 10, 2, func(g *Game) { g.players[0].Health = 7 })
	tr, err := script(&g, "keepall")
	if err != nil {
		t.Fatal(err)
	}
	if tr[4] != "hub: Player A healed 3, health is now 10" {
		t.Errorf("heal line = %q", tr[4])
	}
}

func TestOccupantKilledByInwardAttack(t *testing.T) {
	// A (health 3) holds StLucia; B attacks in with 4 A: A takes 3, is not asked stay?, B
	// claims (+1), A is eliminated (it gets its own eliminated line), and B, the last
	// player, wins.
	g := newGame(t, "123123"+"12AAAA", 10, 2, func(g *Game) {
		g.occupant = 0
		g.players[0].Health = 3
	})
	tr, err := script(&g, "keepall", "keepall")
	if err != nil {
		t.Fatal(err)
	}
	checkTranscript(t, tr, `
		A<- turn 112233
		A-> keepall
		hub: Player A rolled 112233
		B<- rolled A 112233
		hub: Player A scored 2 for a total of 2
		A<- points A 2
		B<- points A 2
		B<- turn 12AAAA
		B-> keepall
		hub: Player B rolled 12AAAA
		A<- rolled B 12AAAA
		hub: Player A took 3 damage, health is now 0
		A<- attacks B 4 in
		B<- attacks B 4 in
		hub: Player B claimed StLucia
		A<- claim B
		B<- claim B
		hub: Player B scored 1 for a total of 1
		A<- points B 1
		B<- points B 1
		A<- eliminated A
		B<- eliminated A
		hub: Player B wins
		B<- winner B`)
	if !g.Over() || g.Winner() != 1 || g.Occupant() != 1 {
		t.Errorf("over %v winner %d occupant %d", g.Over(), g.Winner(), g.Occupant())
	}
}

func TestEliminationsInLabelOrder(t *testing.T) {
	// A holds StLucia and attacks out with 3 A: B (2) and D (1) die, C (10) drops to 7.
	// Damage lines are capped at the health left; the attacks line carries 3. B's
	// eliminated line goes to A, B, C, D; D's to A, C, D; then C plays (B is gone).
	g := newGame(t, "123AAA"+"HHHHHH", 10, 4, func(g *Game) {
		g.occupant = 0
		g.players[1].Health = 2
		g.players[3].Health = 1
	})
	tr, err := script(&g, "keepall")
	if err != nil {
		t.Fatal(err)
	}
	checkTranscript(t, tr, `
		A<- turn 123AAA
		A-> keepall
		hub: Player A rolled 123AAA
		B<- rolled A 123AAA
		C<- rolled A 123AAA
		D<- rolled A 123AAA
		A<- attacks A 3 out
		B<- attacks A 3 out
		C<- attacks A 3 out
		D<- attacks A 3 out
		hub: Player B took 2 damage, health is now 0
		hub: Player C took 3 damage, health is now 7
		hub: Player D took 1 damage, health is now 0
		hub: Player A scored 2 for a total of 2
		A<- points A 2
		B<- points A 2
		C<- points A 2
		D<- points A 2
		A<- eliminated B
		B<- eliminated B
		C<- eliminated B
		D<- eliminated B
		A<- eliminated D
		C<- eliminated D
		D<- eliminated D
		C<- turn HHHHHH`)
	if g.Left() != 2 {
		t.Errorf("left = %d, want 2", g.Left())
	}
}

func TestKilledOccupantIsReplacedAndPlayGoesOn(t *testing.T) {
	// Only an inward attack hurts the occupant, so an occupant that dies is always replaced
	// by its attacker: C (health 2) is killed by A's 2 A dice, A holds StLucia, C is out and
	// the next turn is B's.
	g := newGame(t, "AA1223", 10, 3, func(g *Game) {
		g.occupant = 2
		g.players[2].Health = 2
	})
	if _, err := script(&g, "keepall"); err != nil {
		t.Fatal(err)
	}
	if g.Occupant() != 0 || !g.Player(2).Gone || g.Turn() != 1 {
		t.Errorf("occupant %d, C gone %v, turn %d; want A, true, B", g.Occupant(), g.Player(2).Gone, g.Turn())
	}
}

func TestGameOverByScore(t *testing.T) {
	// Winscore 3: A's three 3s reach it. B is sent winner too; nothing more follows.
	g := newGame(t, "333HHP", 3, 2, nil)
	tr, err := script(&g, "keepall")
	if err != nil {
		t.Fatal(err)
	}
	checkTranscript(t, tr, `
		A<- turn 333HHP
		A-> keepall
		hub: Player A rolled 333HHP
		B<- rolled A 333HHP
		hub: Player A healed 0, health is now 10
		hub: Player A scored 3 for a total of 3
		A<- points A 3
		B<- points A 3
		hub: Player A wins
		A<- winner A
		B<- winner A`)
	if p, ask := g.Awaiting(); !g.Over() || g.Winner() != 0 || ask != AskNone || p != -1 {
		t.Errorf("over %v winner %d awaiting %d %v", g.Over(), g.Winner(), p, ask)
	}
	if outs := g.Shutdown(); outs != nil {
		t.Errorf("Shutdown after a win = %v, want nothing", render(outs))
	}
}

func TestDiceStreamWrapsAndRerollDrawsExactly(t *testing.T) {
	// The file holds 2 dice, so the stream is 1 2 1 2 ...: A's turn draws 1 2 1 2 1 2;
	// "reroll 1" draws one die, a 1 (the stream has wrapped to its start), and "reroll 2"
	// draws the next, a 2: each reroll consumes exactly the dice rerolled.
	g := newGame(t, "1\n2\n", 100, 2, nil)
	tr, err := script(&g, "reroll 1", "reroll 2", "keepall")
	if err != nil {
		t.Fatal(err)
	}
	// Draws: 1 2 1 2 1 2 | 1 | 2 ; B then draws 1 2 1 2 1 2.
	checkTranscript(t, tr, `
		A<- turn 111222
		A-> reroll 1
		A<- rerolled 111222
		A-> reroll 2
		A<- rerolled 111222
		A-> keepall
		hub: Player A rolled 111222
		B<- rolled A 111222
		hub: Player A scored 3 for a total of 3
		A<- points A 3
		B<- points A 3
		B<- turn 111222`)
	if g.Pos() != 0 {
		t.Errorf("stream position %d, want 0 (16 dice drawn from 2)", g.Pos())
	}
}

func TestRerollAnyOrder(t *testing.T) {
	g := newGame(t, "123HAP"+"PPP", 100, 2, nil)
	tr, err := script(&g, "reroll PA1")
	if err != nil {
		t.Fatal(err)
	}
	if last := tr[len(tr)-1]; last != "A<- rerolled 23HPPP" {
		t.Errorf("after reroll: %q", last)
	}
}

func TestRefusedReplies(t *testing.T) {
	tests := []struct {
		name   string
		rolls  string
		setup  func(g *Game)
		before []string // accepted replies
		bad    string
		status int
		rule   string
	}{
		{"third reroll", "123HAP", nil, []string{"reroll 1", "reroll 2"}, "reroll 3", ExitIllegal, RuleRerollLimit},
		{"face not held", "111HAP", nil, nil, "reroll 2", ExitIllegal, RuleRerollHeld},
		{"more of a face than held", "111HAP", nil, nil, "reroll HH", ExitIllegal, RuleRerollHeld},
		{"seven faces", "111111", nil, nil, "reroll 1111111", ExitIllegal, RuleRerollHeld},
		{"stay instead of dice", "111HAP", nil, nil, "stay", ExitIllegal, RuleExpectDice},
		{"go instead of dice", "111HAP", nil, nil, "go", ExitIllegal, RuleExpectDice},
		{"keepall instead of stay", "123HAP" + "AAA123", func(g *Game) { g.occupant = 0 },
			[]string{"keepall", "keepall"}, "keepall", ExitIllegal, RuleExpectStay},
		{"reroll instead of stay", "123HAP" + "AAA123", func(g *Game) { g.occupant = 0 },
			[]string{"keepall", "keepall"}, "reroll 1", ExitIllegal, RuleExpectStay},
		{"empty line", "123HAP", nil, nil, "", ExitMalformed, RuleMsgKind},
		{"unknown word", "123HAP", nil, nil, "keep", ExitMalformed, RuleMsgKind},
		{"trailing space", "123HAP", nil, nil, "keepall ", ExitMalformed, RuleMsgKind},
		{"carriage return", "123HAP", nil, nil, "keepall\r", ExitMalformed, RuleMsgKind},
		{"reroll nothing", "123HAP", nil, nil, "reroll ", ExitMalformed, RuleRerollFaces},
		{"reroll bad face", "123HAP", nil, nil, "reroll 1X", ExitMalformed, RuleRerollFaces},
		{"reroll lowercase", "123HAP", nil, nil, "reroll h", ExitMalformed, RuleRerollFaces},
		{"reroll spaced", "123HAP", nil, nil, "reroll 1 2", ExitMalformed, RuleRerollFaces},
		{"bare reroll", "123HAP", nil, nil, "reroll", ExitMalformed, RuleMsgKind},
		{"stay question", "123HAP", nil, nil, "stay?", ExitMalformed, RuleMsgKind},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := newGame(t, tc.rolls, 100, 2, tc.setup)
			if _, err := script(&g, tc.before...); err != nil {
				t.Fatal(err)
			}
			before := g
			p, _ := g.Awaiting()
			_, err := g.Reply(tc.bad)
			var re *ReplyError
			if !errors.As(err, &re) {
				t.Fatalf("Reply(%q) = %v, want a *ReplyError", tc.bad, err)
			}
			if re.Status != tc.status || re.Rule != tc.rule || re.Player != p || re.Line != tc.bad {
				t.Errorf("error = %+v, want status %d rule %q player %d", re, tc.status, tc.rule, p)
			}
			if !reflect.DeepEqual(g, before) {
				t.Error("a refused reply changed the game")
			}
		})
	}
}

// A reply while none is awaited (before the first turn, or once the game is over) is
// refused as any illegal reply is, naming RuleAwaited; the engine does not panic.
func TestReplyWhileNoneAwaited(t *testing.T) {
	g := newGame(t, "123HAP", 10, 2, nil)
	check := func(when string) {
		t.Helper()
		before := g
		_, err := g.Reply("keepall")
		var re *ReplyError
		if !errors.As(err, &re) || re.Rule != RuleAwaited || re.Status != ExitIllegal || re.Player != -1 || re.Line != "keepall" {
			t.Errorf("%s: Reply = %v, want a *ReplyError naming %q", when, err, RuleAwaited)
		}
		if !reflect.DeepEqual(g, before) {
			t.Errorf("%s: a refused reply changed the game", when)
		}
		if err := g.Check(Reply{Kind: ReplyKeepAll}); err == nil {
			t.Errorf("%s: Check accepted a reply", when)
		}
	}
	check("before Start")
	g.Start()
	g.Shutdown()
	check("after the end")
}

func TestShutdownGoesToRemainingPlayers(t *testing.T) {
	g := newGame(t, "123HAP", 10, 3, func(g *Game) {
		g.players[1].Gone = true
		g.left = 2
	})
	g.Start()
	got := render(g.Shutdown())
	if strings.Join(got, "|") != "A<- shutdown|C<- shutdown" {
		t.Errorf("Shutdown = %q", got)
	}
	if !g.Over() || g.Winner() != -1 {
		t.Errorf("over %v winner %d after shutdown", g.Over(), g.Winner())
	}
	for _, o := range g.Shutdown() {
		t.Errorf("second Shutdown sent %v", o)
	}
}

func TestOutEnds(t *testing.T) {
	tests := []struct {
		o    Out
		want bool
	}{
		{Out{To: 0, Msg: Msg{Kind: MsgWinner}}, true},
		{Out{To: 1, Msg: Msg{Kind: MsgEliminated}}, true},
		{Out{To: 0, Msg: Msg{Kind: MsgShutdown}}, true},
		{Out{To: 0, Msg: Msg{Kind: MsgClaim}}, false},
		{Out{To: Log, Text: "Player A wins"}, false},
	}
	for _, tc := range tests {
		if got := tc.o.Ends(); got != tc.want {
			t.Errorf("%v.Ends() = %v", tc.o, got)
		}
	}
}

func TestNewRefusesBadGames(t *testing.T) {
	d := []Face{One}
	for _, tc := range []struct {
		rolls  []Face
		win, n int
	}{{nil, 1, 2}, {d, 0, 2}, {d, 1, 1}, {d, 1, 27}} {
		if _, err := New(tc.rolls, tc.win, tc.n); err == nil {
			t.Errorf("New(%v, %d, %d) succeeded", tc.rolls, tc.win, tc.n)
		}
	}
}

func TestExitLine(t *testing.T) {
	tests := []struct {
		i, status, sig int
		want           string
	}{
		{0, 0, 0, ""},
		{1, 4, 0, "Player B exited with status 4"},
		{25, 0, 9, "Player Z terminated due to signal 9"},
	}
	for _, tc := range tests {
		if got := ExitLine(tc.i, tc.status, tc.sig); got != tc.want {
			t.Errorf("ExitLine(%d,%d,%d) = %q, want %q", tc.i, tc.status, tc.sig, got, tc.want)
		}
	}
}
