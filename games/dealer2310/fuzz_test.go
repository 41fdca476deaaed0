package dealer2310_test

// Native fuzz targets for every codec entry point of the 2310 path game: the deck file, the
// path file (and the path line the dealer sends), and every message both ways. Each target
// checks the codec's contract:
//
//   - no input makes a parser panic;
//   - valid input round-trips exactly: formatting what was parsed gives the input back;
//   - invalid input yields a *FormatError naming one of the package's rules;
//   - the engine never accepts what the codec rejects (a line ParsePlayerMsg refuses ends
//     the dealer's game early; a line ParseDealerMsg or ParsePath refuses ends a player with
//     a communications error or an invalid path);
//   - everything the engine emits is accepted by the codec.
//
// The "RoundTrip" targets turn the fuzzer's bytes into a structured value with gofuzz
// (fuzz.NewFromGoFuzz), format it, and parse it back. Seed corpora from the spec's examples
// live in testdata/fuzz/<FuzzName>/ and replay in every `go test`.
//
// Run one with e.g. `go test ./games/dealer2310 -run '^$' -fuzz '^FuzzCodecMsg$' -fuzztime 10s`.

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	gofuzz "github.com/google/gofuzz"

	. "gauntlet/games/dealer2310"
	"gauntlet/games/grammar/grammartest"
)

var deckRules = []string{RuleDeckLine, RuleDeckCount, RuleDeckCard, RuleDeckMatch, RuleDeckSize}
var pathRules = []string{RulePathLine, RulePathCount, RulePathSite, RulePathMatch, RulePathSize, RulePathEnds}
var msgRules = []string{RuleMsgKind, RuleMsgNumber, RuleHAPFields, RuleHAPSign, RuleHAPCard}

// FuzzCodecDeck: a deck line that parses formats back to itself.
func FuzzCodecDeck(f *testing.F) {
	f.Fuzz(func(t *testing.T, line string) {
		d, err := ParseDeck(line)
		if err != nil {
			grammartest.Require(t, "ParseDeck", err, deckRules[1:]...)
			return
		}
		if d.String() != line || len(d) < MinDeck {
			t.Fatalf("ParseDeck(%q) = %q (%d cards)", line, d.String(), len(d))
		}
	})
}

// FuzzCodecDeckFile: a deck file is a valid deck line and '\n', nothing else.
func FuzzCodecDeckFile(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseDeckFile(data)
		if err != nil {
			grammartest.Require(t, "ParseDeckFile", err, deckRules...)
			if _, lerr := ParseDeck(strings.TrimSuffix(string(data), "\n")); lerr == nil && strings.Count(string(data), "\n") == 1 && strings.HasSuffix(string(data), "\n") {
				t.Fatalf("ParseDeckFile(%q) fails (%v) but its line is a valid deck", data, err)
			}
			return
		}
		if d.String()+"\n" != string(data) {
			t.Fatalf("ParseDeckFile(%q) = %q", data, d.String())
		}
	})
}

// FuzzCodecPath: a path line that parses formats back to itself, starts and ends with a
// barrier; one that does not is refused by a player as its first message (exit 4).
func FuzzCodecPath(f *testing.F) {
	f.Fuzz(func(t *testing.T, line string) {
		p, err := ParsePath(line)
		r := NewPlayer(StrategyA, 2, 0).Handle(line)
		if err != nil {
			grammartest.Require(t, "ParsePath", err, pathRules[1:]...)
			if !r.Done || r.Status != PlayerExitPath {
				t.Fatalf("ParsePath(%q) fails (%v) but the player goes on: %+v", line, err, r)
			}
			return
		}
		if p.String() != line || len(p) < MinPath || p[0].Type != Barrier || p[len(p)-1].Type != Barrier {
			t.Fatalf("ParsePath(%q) = %q", line, p.String())
		}
		if r.Done {
			t.Fatalf("a player refuses the valid path %q: %+v", line, r)
		}
	})
}

// FuzzCodecPathFile: a path file is a valid path line and '\n', nothing else.
func FuzzCodecPathFile(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePathFile(data)
		if err != nil {
			grammartest.Require(t, "ParsePathFile", err, pathRules...)
			return
		}
		if p.String()+"\n" != string(data) {
			t.Fatalf("ParsePathFile(%q) = %q", data, p.String())
		}
	})
}

// FuzzCodecMsg: a message that parses formats back to itself; the player-side and
// dealer-side parsers split the messages between them exactly.
func FuzzCodecMsg(f *testing.F) {
	f.Fuzz(func(t *testing.T, line string) {
		m, err := ParseMsg(line)
		site, perr := ParsePlayerMsg(line)
		dm, derr := ParseDealerMsg(line)
		if err != nil {
			grammartest.Require(t, "ParseMsg", err, msgRules...)
			if perr == nil || derr == nil {
				t.Fatalf("ParseMsg(%q) fails but ParsePlayerMsg gives %v and ParseDealerMsg %v", line, perr, derr)
			}
			return
		}
		if m.String() != line {
			t.Fatalf("ParseMsg(%q).String() = %q", line, m.String())
		}
		if (perr == nil) == (derr == nil) {
			t.Fatalf("%q: ParsePlayerMsg %v, ParseDealerMsg %v: exactly one must accept it", line, perr, derr)
		}
		if perr == nil && (m.Kind != MsgDO || site != m.Site) {
			t.Fatalf("ParsePlayerMsg(%q) = %d for %+v", line, site, m)
		}
		if perr != nil {
			grammartest.Require(t, "ParsePlayerMsg", perr, RuleFromPlayer)
		}
		if derr == nil && dm != m {
			t.Fatalf("ParseDealerMsg(%q) = %+v, want %+v", line, dm, m)
		}
		if derr != nil {
			grammartest.Require(t, "ParseDealerMsg", derr, RuleFromDealer)
		}
	})
}

// FuzzRoundTripDeck: any deck of at least four cards survives String then ParseDeckFile.
func FuzzRoundTripDeck(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		var cards []uint8
		gofuzz.NewFromGoFuzz(data).NilChance(0).NumElements(MinDeck, 40).Fuzz(&cards)
		want := make(Deck, len(cards))
		for i, c := range cards {
			want[i] = Card(1 + c%NumCardKinds)
		}
		got, err := ParseDeckFile([]byte(want.String() + "\n"))
		if err != nil || got.String() != want.String() {
			t.Fatalf("ParseDeckFile(%q) = %q, %v", want.String(), got.String(), err)
		}
	})
}

// siteShape is a site gofuzz fills.
type siteShape struct {
	Type uint8
	Cap  uint8
}

// FuzzRoundTripPath: any path of barrier-ended sites survives String then ParsePathFile.
func FuzzRoundTripPath(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		var sites []siteShape
		gofuzz.NewFromGoFuzz(data).NilChance(0).NumElements(0, 30).Fuzz(&sites)
		want := Path{{Type: Barrier}}
		for _, s := range sites {
			site := Site{Type: SiteType(s.Type % 6)}
			if site.Type != Barrier {
				site.Cap = 1 + int(s.Cap%9)
			}
			want = append(want, site)
		}
		want = append(want, Site{Type: Barrier})
		got, err := ParsePathFile([]byte(want.String() + "\n"))
		if err != nil || got.String() != want.String() {
			t.Fatalf("ParsePathFile(%q) = %q, %v", want.String(), got.String(), err)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("site %d = %+v, want %+v", i, got[i], want[i])
			}
		}
	})
}

// msgShape is a message gofuzz fills.
type msgShape struct {
	Kind                              uint8
	Site, Player, Points, Money, Card uint32
	Negative                          bool
}

// FuzzRoundTripMsg: every well-formed message survives String then ParseMsg.
func FuzzRoundTripMsg(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		var s msgShape
		gofuzz.NewFromGoFuzz(data).Fuzz(&s)
		const limit = 1000000000 // numbers have at most nine digits
		want := Msg{Kind: MsgKind(1 + s.Kind%5)}
		switch want.Kind {
		case MsgDO:
			want.Site = int(s.Site % limit)
		case MsgHAP:
			want.HAP = HAP{Player: int(s.Player % limit), Site: int(s.Site % limit), Points: int(s.Points % limit),
				Money: int(s.Money % limit), Card: Card(s.Card % (NumCardKinds + 1))}
			if s.Negative {
				want.HAP.Money = -want.HAP.Money
			}
		}
		line := want.String()
		got, err := ParseMsg(line)
		if err != nil || got != want {
			t.Fatalf("ParseMsg(%q) = %+v, %v; want %+v", line, got, err, want)
		}
	})
}

// gameShape is a whole game gofuzz fills: the path, the deck, the players and, for each
// move, a choice between the strategy's move and an arbitrary line.
type gameShape struct {
	Sites   []siteShape
	Cards   []uint8
	Players uint8
	Choices []uint16
	Lines   []string
}

// FuzzEngineMoves plays fuzzed games through the Dealer: at each awaited move it feeds
// either the strategy's DO line or a fuzzed line. Properties: a line ParsePlayerMsg refuses
// is refused with that *FormatError, a well-formed move is refused exactly when CheckMove
// refuses it, a refused line ends the game early (EARLY to every player); every line sent
// to a player is the path or parses as a dealer message, and the players (which follow the
// game from those lines alone) accept them all.
func FuzzEngineMoves(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		var s gameShape
		gofuzz.NewFromGoFuzz(data).NilChance(0).NumElements(1, 24).Fuzz(&s)
		path := Path{{Type: Barrier}}
		for _, site := range s.Sites {
			x := Site{Type: SiteType(site.Type % 6)}
			if x.Type != Barrier {
				x.Cap = 1 + int(site.Cap%9)
			}
			path = append(path, x)
		}
		path = append(path, Site{Type: Barrier})
		deck := Deck{CardA, CardB, CardC, CardD}
		for _, c := range s.Cards {
			deck = append(deck, Card(1+c%NumCardKinds))
		}
		n := 1 + int(s.Players%4)
		d, err := NewDealer(path, deck, n)
		if err != nil {
			t.Fatal(err)
		}
		players := make([]*Player, n)
		for i := range players {
			players[i] = NewPlayer([]Strategy{StrategyA, StrategyB}[i%2], n, i)
		}
		var reply string
		deliver := func(outs []Out) {
			for _, o := range outs {
				if o.To == Stdout {
					continue
				}
				if o.To < 0 || o.To >= n {
					t.Fatalf("line %q to player %d of %d", o.Line, o.To, n)
				}
				if o.Line != path.String() {
					m, err := ParseDealerMsg(o.Line)
					if err != nil || m.String() != o.Line {
						t.Fatalf("the dealer sent %q, which parses as %+v, %v", o.Line, m, err)
					}
				}
				r := players[o.To].Handle(o.Line)
				if r.Done && r.Status != PlayerExitOK && r.Status != PlayerExitEarly {
					t.Fatalf("player %d refuses %q: %+v", o.To, o.Line, r)
				}
				if r.Reply != "" {
					reply = r.Reply
				}
			}
		}
		for i := range players {
			deliver(d.Welcome(i))
		}
		deliver(d.Begin())
		for i := 0; i < len(s.Choices) && !d.Ended(); i++ {
			line := reply
			if c := s.Choices[i]; c%3 == 0 && len(s.Lines) > 0 {
				line = s.Lines[int(c/3)%len(s.Lines)]
			}
			p := d.Awaiting()
			before := d.Clone()
			site, perr := ParsePlayerMsg(line)
			outs, err := d.Reply(line)
			switch {
			case perr != nil:
				if err == nil || err.Error() != perr.Error() {
					t.Fatalf("ParsePlayerMsg refuses %q (%v) but Reply gives %v", line, perr, err)
				}
			case before.Game().CheckMove(p, site) != nil:
				var me *MoveError
				if !errors.As(err, &me) || me.Rule != before.Game().CheckMove(p, site).(*MoveError).Rule {
					t.Fatalf("CheckMove refuses %q but Reply gives %v", line, err)
				}
			case err != nil:
				t.Fatalf("the move %q is legal but Reply refuses it: %v", line, err)
			}
			if err != nil {
				if !d.Ended() || len(outs) != n {
					t.Fatalf("refusing %q: ended %v, %d lines", line, d.Ended(), len(outs))
				}
				for _, o := range outs {
					if o.Line != TextEarly {
						t.Fatalf("refusing %q sends %q", line, o.Line)
					}
				}
				return
			}
			deliver(outs)
		}
	})
}

// FuzzPlayerHandle feeds a player in a game the path and then a fuzzed line: the player
// ends with a communications error exactly when ParseDealerMsg refuses the line (or the
// HAP names a player or site that does not exist), and never panics.
func FuzzPlayerHandle(f *testing.F) {
	const pathLine = "7;::-Mo1V11V22Mo1Mo1::-" // the spec's example path
	f.Fuzz(func(t *testing.T, line string) {
		p := NewPlayer(StrategyB, 3, 1)
		if r := p.Handle(pathLine); r.Done {
			t.Fatalf("the spec's path is refused: %+v", r)
		}
		r := p.Handle(line)
		m, err := ParseDealerMsg(line)
		switch {
		case err != nil:
			if !r.Done || r.Status != PlayerExitComms {
				t.Fatalf("ParseDealerMsg refuses %q (%v) but the player reacts %+v", line, err, r)
			}
		case m.Kind == MsgHAP && (m.HAP.Player >= 3 || m.HAP.Site >= 7):
			if !r.Done || r.Status != PlayerExitComms {
				t.Fatalf("the player accepts %q, which names no player or site of its game: %+v", line, r)
			}
		case m.Kind == MsgEarly:
			if !r.Done || r.Status != PlayerExitEarly {
				t.Fatalf("EARLY gives %+v", r)
			}
		case m.Kind == MsgDone:
			if !r.Done || r.Status != PlayerExitOK {
				t.Fatalf("DONE gives %+v", r)
			}
		case r.Done:
			t.Fatalf("the player ends on the valid %q: %+v", line, r)
		case m.Kind == MsgYT:
			if _, err := ParsePlayerMsg(r.Reply); err != nil {
				t.Fatalf("the player answers YT with %q: %v", r.Reply, err)
			}
		}
	})
}

// FuzzPlayerArgs: a player accepts exactly a count of 1 to MaxPlayers and an id below it,
// both in decimal digits (leading zeros allowed), and checks them in the spec's order.
func FuzzPlayerArgs(f *testing.F) {
	f.Fuzz(func(t *testing.T, count, id string, extra bool) {
		args := []string{count, id}
		if extra {
			args = append(args, id)
		}
		n, me, status := ParsePlayerArgs(args)
		digits := func(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
		value := func(s string) int { // saturated, like the codec
			v, err := strconv.Atoi(s)
			if err != nil || v > MaxPlayers {
				return MaxPlayers + 1
			}
			return v
		}
		want := PlayerExitOK
		switch {
		case extra:
			want = PlayerExitUsage
		case !digits(count) || value(count) < 1 || value(count) > MaxPlayers:
			want = PlayerExitCount
		case !digits(id) || value(id) >= value(count):
			want = PlayerExitID
		}
		if status != want {
			t.Fatalf("ParsePlayerArgs(%q) status %d, want %d", args, status, want)
		}
		if status == PlayerExitOK && (n != value(count) || me != value(id)) {
			t.Fatalf("ParsePlayerArgs(%q) = %d, %d", args, n, me)
		}
	})
}
