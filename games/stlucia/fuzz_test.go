package stlucia_test

// Native fuzz targets for every codec entry point of King of St Lucia. Each target checks
// the codec's contract:
//
//   - no input makes a parser panic;
//   - valid input round-trips exactly: formatting what was parsed gives the input back;
//   - invalid input yields a *FormatError naming one of the package's rules;
//   - the engine never accepts what the codec rejects (a reply ParseReply refuses is refused
//     by Game.Reply as malformed; a message ParseMsg refuses is refused by Player.Handle);
//   - everything the engine emits is accepted by the codec.
//
// The "...RoundTrip" targets turn the fuzzer's bytes into a structured value with gofuzz
// (fuzz.NewFromGoFuzz), format it, and parse it back. Seed corpora from the spec's and the
// rules file's examples live in testdata/fuzz/<FuzzName>/ and replay in every `go test`.
//
// Run one with e.g. `go test ./games/stlucia -run '^$' -fuzz '^FuzzCodecMsg$' -fuzztime 10s`.

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	gofuzz "github.com/google/gofuzz"

	"gauntlet/games/grammar/grammartest"
	. "gauntlet/games/stlucia"
)

// FuzzCodecRoll: a dice word is six sorted faces; anything else is RuleDiceWord.
func FuzzCodecRoll(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRoll(s)
		if err != nil {
			grammartest.Require(t, "ParseRoll", err, RuleDiceWord)
			return
		}
		if r.Len() != DiceCount || r.String() != s {
			t.Fatalf("ParseRoll(%q) = %v (%d dice)", s, r, r.Len())
		}
	})
}

// FuzzRoundTripRoll: any six dice, written by Roll.String, parse back to the same Roll.
func FuzzRoundTripRoll(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		var faces [DiceCount]uint8
		gofuzz.NewFromGoFuzz(data).Fuzz(&faces)
		var want Roll
		for _, c := range faces {
			want[c%NumFaces]++
		}
		got, err := ParseRoll(want.String())
		if err != nil || got != want {
			t.Fatalf("ParseRoll(%q) = %v, %v; want %v", want.String(), got, err, want)
		}
	})
}

// FuzzCodecRollFile: a valid roll file formats back to its bytes and yields at least one
// die; an invalid one is RuleRollChar or RuleRollEmpty.
func FuzzCodecRollFile(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		rf, err := ParseRollFile(data)
		if err != nil {
			grammartest.Require(t, "ParseRollFile", err, RuleRollChar, RuleRollEmpty)
			return
		}
		if got := rf.Format(); string(got) != string(data) {
			t.Fatalf("Format = %q, want %q", got, data)
		}
		dice := rf.Dice()
		if len(dice) == 0 || len(dice) != len(data)-strings.Count(string(data), "\n") {
			t.Fatalf("%d dice from %q", len(dice), data)
		}
	})
}

// FuzzRoundTripRollFile: lines of faces, joined by newlines, parse back to the same lines
// and the same dice stream.
func FuzzRoundTripRollFile(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		var lines [][]uint8
		gofuzz.NewFromGoFuzz(data).NilChance(0).NumElements(1, 8).Fuzz(&lines)
		var text strings.Builder
		var want []Face
		for i, l := range lines {
			if i > 0 {
				text.WriteByte('\n')
			}
			for _, c := range l {
				face := Face(c % NumFaces)
				want = append(want, face)
				text.WriteByte(face.Byte())
			}
		}
		rf, err := ParseRollFile([]byte(text.String()))
		if len(want) == 0 {
			grammartest.Require(t, "ParseRollFile", err, RuleRollEmpty)
			return
		}
		if err != nil {
			t.Fatalf("ParseRollFile(%q): %v", text.String(), err)
		}
		if string(rf.Format()) != text.String() {
			t.Fatalf("Format = %q, want %q", rf.Format(), text.String())
		}
		got := rf.Dice()
		if len(got) != len(want) {
			t.Fatalf("Dice = %v, want %v", got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("Dice = %v, want %v", got, want)
			}
		}
	})
}

// FuzzCodecMsg: a hub message that parses formats back to the same line; one that does
// not is a *FormatError, and a reference player (which parses with ParseMsg) refuses it
// too, whatever game it is in.
func FuzzCodecMsg(f *testing.F) {
	f.Fuzz(func(t *testing.T, line string) {
		m, err := ParseMsg(line)
		p := NewPlayer(EAIT, MaxPlayers, 0)
		_, _, _, herr := p.Handle(line)
		if err != nil {
			grammartest.Require(t, "ParseMsg", err, RuleMsgKind, RuleMsgFields, RuleDiceWord, RuleLabel, RuleNumber, RuleDirection)
			if herr == nil {
				t.Fatalf("ParseMsg(%q) fails (%v) but the player accepts it", line, err)
			}
			return
		}
		if s := m.String(); s != line {
			t.Fatalf("ParseMsg(%q).String() = %q", line, s)
		}
		if herr != nil {
			t.Fatalf("a 26-player game's player refuses the valid message %q: %v", line, herr)
		}
	})
}

// msgShape is the structured form gofuzz fills; FuzzRoundTripMsg maps it onto a valid Msg.
type msgShape struct {
	Kind   uint8
	Player uint8
	Dice   [DiceCount]uint8
	Value  uint32
	Out    bool
}

// valid returns the message the shape stands for, with only its kind's fields set.
func (s msgShape) valid() Msg {
	m := Msg{Kind: MsgKind(1 + s.Kind%10)}
	player := int(s.Player % MaxPlayers)
	var dice Roll
	for _, c := range s.Dice {
		dice[c%NumFaces]++
	}
	switch m.Kind {
	case MsgTurn, MsgRerolled:
		m.Dice = dice
	case MsgRolled:
		m.Player, m.Dice = player, dice
	case MsgPoints:
		m.Player, m.Value = player, 1+int(s.Value%999999999)
	case MsgAttacks:
		m.Player, m.Value, m.Out = player, 1+int(s.Value%999999999), s.Out
	case MsgEliminated, MsgClaim, MsgWinner:
		m.Player = player
	}
	return m
}

// FuzzRoundTripMsg: every well-formed hub message survives String then ParseMsg.
func FuzzRoundTripMsg(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		var s msgShape
		gofuzz.NewFromGoFuzz(data).Fuzz(&s)
		want := s.valid()
		line := want.String()
		got, err := ParseMsg(line)
		if err != nil || got != want {
			t.Fatalf("ParseMsg(%q) = %+v, %v; want %+v", line, got, err, want)
		}
	})
}

// askingGames returns games awaiting each kind of reply: a fresh game (dice after turn), a
// game after one reroll, one after two rerolls (only keepall is legal) and one whose
// occupant was just attacked (stay?). The roll stream is fixed, so the games are too.
func askingGames(t testing.TB) map[string]Game {
	t.Helper()
	rolls := []Face{Attack, Attack, Attack, One, Two, Point}
	g, err := New(rolls, 99, 3)
	if err != nil {
		t.Fatal(err)
	}
	g.Start()
	games := map[string]Game{"turn": g}
	r1 := g
	if _, err := r1.Reply("reroll 12"); err != nil {
		t.Fatal(err)
	}
	games["rerolled"] = r1
	r2 := r1
	if _, err := r2.Reply("reroll " + r2.Dice().String()); err != nil {
		t.Fatal(err)
	}
	games["rerolled twice"] = r2
	// A keeps AAA12P: it claims StLucia. B rolls AAA12P too and attacks A: stay?.
	s := g
	for _, line := range []string{"keepall", "keepall"} {
		if _, err := s.Reply(line); err != nil {
			t.Fatal(err)
		}
	}
	if p, ask := s.Awaiting(); p != 0 || ask != AskStay {
		t.Fatalf("the stay? game awaits %d, %v", p, ask)
	}
	games["stay?"] = s
	return games
}

// FuzzCodecReply: a player reply that parses formats back to the same line; one that does
// not is a *FormatError, and the engine refuses it as malformed (exit 7) at every point of
// a game, leaving the game unchanged. A reply that parses is refused by the engine exactly
// when Check refuses it, and then as illegal (exit 8).
func FuzzCodecReply(f *testing.F) {
	games := askingGames(f)
	f.Fuzz(func(t *testing.T, line string) {
		r, perr := ParseReply(line)
		if perr != nil {
			grammartest.Require(t, "ParseReply", perr, RuleMsgKind, RuleRerollFaces)
		} else if s := r.String(); s != line {
			t.Fatalf("ParseReply(%q).String() = %q", line, s)
		}
		for name, g := range games {
			before := g
			_, err := g.Reply(line)
			changed := state(&g) != state(&before)
			var re *ReplyError
			if err != nil && !errors.As(err, &re) {
				t.Fatalf("%s: Reply(%q) error %v is not a *ReplyError", name, line, err)
			}
			switch {
			case perr != nil:
				if err == nil || re.Status != ExitMalformed {
					t.Fatalf("%s: ParseReply refuses %q (%v) but Reply gives %v", name, line, perr, err)
				}
			case before.Check(r) != nil:
				if err == nil || re.Status != ExitIllegal {
					t.Fatalf("%s: Check refuses %q but Reply gives %v", name, line, err)
				}
			case err != nil:
				t.Fatalf("%s: Check accepts %q but Reply refuses it: %v", name, line, err)
			}
			if err != nil && changed {
				t.Fatalf("%s: refusing %q changed the game", name, line)
			}
		}
	})
}

// replyShape is the structured form gofuzz fills for FuzzRoundTripReply.
type replyShape struct {
	Kind  uint8
	Faces []uint8
}

// FuzzRoundTripReply: every well-formed reply (faces in any order) survives String then
// ParseReply, faces in the same order.
func FuzzRoundTripReply(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		var s replyShape
		gofuzz.NewFromGoFuzz(data).NilChance(0).NumElements(1, 12).Fuzz(&s)
		want := Reply{Kind: ReplyKind(1 + s.Kind%4)}
		if want.Kind == ReplyReroll {
			for _, c := range s.Faces {
				want.Faces = append(want.Faces, Face(c%NumFaces))
			}
		}
		line := want.String()
		got, err := ParseReply(line)
		if err != nil || got.Kind != want.Kind || len(got.Faces) != len(want.Faces) {
			t.Fatalf("ParseReply(%q) = %+v, %v; want %+v", line, got, err, want)
		}
		for i := range got.Faces {
			if got.Faces[i] != want.Faces[i] {
				t.Fatalf("ParseReply(%q) = %+v; want %+v", line, got, want)
			}
		}
	})
}

// gameShape is a whole game gofuzz fills: the roll stream, winscore, the players and, for
// each reply the game awaits, a choice between the reference strategy's reply and an
// arbitrary line.
type gameShape struct {
	Rolls    []uint8
	Winscore uint8
	Players  uint8
	Choices  []uint16
	Lines    []string
}

// FuzzEngineReplies plays fuzzed games: at each awaited reply it feeds either the strategy's
// reply or a fuzzed line. Properties: a refused line leaves the game unchanged and is
// refused with exit 7 exactly when ParseReply refuses it, else with exit 8 exactly when
// Check refuses it; every message the engine sends parses back to itself, and goes to a
// player of the game.
func FuzzEngineReplies(f *testing.F) {
	f.Fuzz(playFuzzedGame)
}

// playFuzzedGame is FuzzEngineReplies's body: one game made from data.
func playFuzzedGame(t *testing.T, data []byte) {
	strategies := []Strategy{EAIT, SCIENCE, HABS, HASS, MABS}
	var s gameShape
	gofuzz.NewFromGoFuzz(data).NilChance(0).NumElements(1, 40).Fuzz(&s)
	rolls := make([]Face, len(s.Rolls))
	for i, c := range s.Rolls {
		rolls[i] = Face(c % NumFaces)
	}
	n := MinPlayers + int(s.Players)%5
	g, err := New(rolls, 1+int(s.Winscore%30), n)
	if err != nil {
		t.Fatal(err)
	}
	players := make([]*Player, n)
	for i := range players {
		players[i] = NewPlayer(strategies[i%len(strategies)], n, i)
	}
	pending := make([]Reply, n) // what each player would answer now
	check := func(outs []Out) {
		for _, o := range outs {
			if o.To == Log {
				continue
			}
			if o.To < 0 || o.To >= n {
				t.Fatalf("message %q to player %d of %d", o.Msg, o.To, n)
			}
			line := o.Msg.String()
			m, err := ParseMsg(line)
			if err != nil || m != o.Msg {
				t.Fatalf("the engine sent %q, which parses as %+v, %v", line, m, err)
			}
			if r, ok, _, err := players[o.To].HandleMsg(m); err != nil {
				t.Fatalf("player %d refuses %q: %v", o.To, line, err)
			} else if ok {
				pending[o.To] = r
			}
		}
	}
	check(g.Start())
	for i := 0; i < len(s.Choices) && !g.Over(); i++ {
		p, _ := g.Awaiting()
		line := pending[p].String()
		if c := s.Choices[i]; c%3 == 0 && len(s.Lines) > 0 {
			line = s.Lines[int(c/3)%len(s.Lines)]
		}
		before := g
		outs, err := g.Reply(line)
		r, perr := ParseReply(line)
		if err == nil {
			if perr != nil || before.Check(r) != nil {
				t.Fatalf("the engine accepted %q from %d, which the codec or Check refuses", line, p)
			}
			check(outs)
			continue
		}
		var re *ReplyError
		if !errors.As(err, &re) || re.Player != p || re.Line != line {
			t.Fatalf("Reply(%q) error %#v", line, err)
		}
		switch {
		case perr != nil:
			if re.Status != ExitMalformed {
				t.Fatalf("Reply(%q) status %d, want %d", line, re.Status, ExitMalformed)
			}
		case before.Check(r) == nil || re.Status != ExitIllegal:
			t.Fatalf("Reply(%q) refused with status %d although Check gives %v", line, re.Status, before.Check(r))
		}
		if state(&g) != state(&before) {
			t.Fatalf("refusing %q changed the game", line)
		}
		break // a real hub stops at the first refused reply
	}
}

// state is everything a Game shows of itself, for telling whether a call changed it (a Game
// holds its roll stream as a slice, so it cannot be compared with ==).
func state(g *Game) string {
	p, ask := g.Awaiting()
	s := fmt.Sprintf("pos=%d dice=%v rerolls=%d turn=%d occupant=%d await=%d,%d over=%v winner=%d left=%d",
		g.Pos(), g.Dice(), g.Rerolls(), g.Turn(), g.Occupant(), p, ask, g.Over(), g.Winner(), g.Left())
	for i := 0; i < g.N(); i++ {
		s += fmt.Sprintf(" %+v", g.Player(i))
	}
	return s
}

// FuzzWinscore: winscore is accepted exactly when it is all ASCII digits with a value
// above zero; the value is the number, saturated at the largest int.
func FuzzWinscore(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseWinscore(s)
		digits := s != "" && strings.Trim(s, "0123456789") == ""
		want, convErr := strconv.Atoi(s)
		if ne, ok := convErr.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			want = int(^uint(0) >> 1)
		}
		switch {
		case !digits || want == 0:
			if err == nil {
				t.Fatalf("ParseWinscore(%q) = %d, want an error", s, n)
			}
			grammartest.Require(t, "ParseWinscore", err, RuleWinscore)
		case err != nil || n != want:
			t.Fatalf("ParseWinscore(%q) = %d, %v; want %d", s, n, err, want)
		}
	})
}

// FuzzPlayerArgs: a player accepts exactly a count of 2 to 26 written in digits and
// one capital letter among the first count labels, and checks them in the spec's order.
func FuzzPlayerArgs(f *testing.F) {
	f.Fuzz(func(t *testing.T, count, id string, extra bool) {
		args := []string{count, id}
		if extra {
			args = append(args, id)
		}
		n, me, status := ParsePlayerArgs(args)
		v, err := strconv.Atoi(count)
		// The count is digits only, any number of leading zeros allowed, value 2 to 26.
		countOK := err == nil && strings.Trim(count, "0123456789") == "" &&
			v >= MinPlayers && v <= MaxPlayers
		var want int
		switch {
		case extra:
			want = PlayerExitUsage
		case !countOK:
			want = PlayerExitCount
		case len(id) != 1 || id[0] < 'A' || int(id[0]-'A') >= v:
			want = PlayerExitID
		default:
			want = PlayerExitOK
		}
		if status != want {
			t.Fatalf("ParsePlayerArgs(%q) status %d, want %d", args, status, want)
		}
		if status == PlayerExitOK && (n != v || me != int(id[0]-'A')) {
			t.Fatalf("ParsePlayerArgs(%q) = %d, %d", args, n, me)
		}
	})
}
