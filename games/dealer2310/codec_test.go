package dealer2310

import (
	"errors"
	"testing"
)

// ruleOf returns the rule named by a *FormatError, or "" for nil and "?" for another error.
func ruleOf(err error) string {
	if err == nil {
		return ""
	}
	var fe *FormatError
	if errors.As(err, &fe) {
		return fe.Rule
	}
	return "?"
}

func TestParseDeckFile(t *testing.T) {
	tests := []struct {
		name string
		in   string
		rule string // "" when valid
		want string // the deck's String when valid
	}{
		{"spec example", "7ABACDEE\n", "", "7ABACDEE"},
		{"four cards", "4EDCB\n", "", "4EDCB"},
		{"two-digit count", "12ABCDEABCDEAB\n", "", "12ABCDEABCDEAB"},
		{"no final newline", "7ABACDEE", RuleDeckLine, ""},
		{"two lines", "4ABCD\n4ABCD\n", RuleDeckLine, ""},
		{"text after newline", "4ABCD\nx", RuleDeckLine, ""},
		{"empty file", "", RuleDeckLine, ""},
		{"empty line", "\n", RuleDeckCount, ""},
		{"no count", "ABCD\n", RuleDeckCount, ""},
		{"leading zero", "04ABCD\n", RuleDeckCount, ""},
		{"sign", "+4ABCD\n", RuleDeckCount, ""},
		{"leading space", " 4ABCD\n", RuleDeckCount, ""},
		{"count too long", "1234567890ABCD\n", RuleDeckCount, ""},
		{"lower case card", "4ABcD\n", RuleDeckCard, ""},
		{"card F", "4ABCF\n", RuleDeckCard, ""},
		{"trailing space", "4ABCD \n", RuleDeckCard, ""},
		{"carriage return", "4ABCD\r\n", RuleDeckCard, ""},
		{"too few for count", "7ABACDE\n", RuleDeckMatch, ""},
		{"too many for count", "4ABCDE\n", RuleDeckMatch, ""},
		{"count only", "7\n", RuleDeckMatch, ""},
		{"three cards", "3ABC\n", RuleDeckSize, ""},
		{"zero cards", "0\n", RuleDeckSize, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ParseDeckFile([]byte(tc.in))
			if got := ruleOf(err); got != tc.rule {
				t.Fatalf("ParseDeckFile(%q) rule = %q (%v), want %q", tc.in, got, err, tc.rule)
			}
			if err == nil && d.String() != tc.want {
				t.Errorf("String = %q, want %q", d.String(), tc.want)
			}
			if err == nil && d.String()+"\n" != tc.in {
				t.Errorf("round trip %q -> %q", tc.in, d.String()+"\n")
			}
		})
	}
}

func TestDeckCards(t *testing.T) {
	d, err := ParseDeck("7ABACDEE")
	if err != nil {
		t.Fatal(err)
	}
	want := Deck{CardA, CardB, CardA, CardC, CardD, CardE, CardE}
	if len(d) != len(want) {
		t.Fatalf("deck = %v, want %v", d, want)
	}
	for i := range d {
		if d[i] != want[i] {
			t.Errorf("card %d = %d, want %d", i, d[i], want[i])
		}
	}
	if CardA != 1 || CardE != 5 || NoCard != 0 {
		t.Errorf("card numbers must match HAP's c field: A=1 ... E=5, none=0")
	}
}

func TestParsePathFile(t *testing.T) {
	tests := []struct {
		name string
		in   string
		rule string
	}{
		{"spec example", "7;::-Mo1V11V22Mo1Mo1::-\n", ""},
		{"turn order example", "6;::-Mo1Do1Ri1Ri1::-\n", ""},
		{"two sites", "2;::-::-\n", ""},
		{"barriers side by side", "5;::-Do1::-::-::-\n", ""},
		{"every type, capacity 9", "7;::-Mo9V19V29Do9Ri9::-\n", ""},
		{"two-digit count", "10;::-Mo1Mo1Mo1Mo1Mo1Mo1Mo1Mo1::-\n", ""},
		{"no final newline", "2;::-::-", RulePathLine},
		{"two lines", "2;::-::-\n2;::-::-\n", RulePathLine},
		{"empty file", "", RulePathLine},
		{"no count", ";::-::-\n", RulePathCount},
		{"no semicolon", "2::-::-\n", RulePathCount},
		{"leading zero", "02;::-::-\n", RulePathCount},
		{"comma", "2,::-::-\n", RulePathCount},
		{"capacity 0", "3;::-Mo0::-\n", RulePathSite},
		{"capacity letter", "3;::-Mox::-\n", RulePathSite},
		{"unknown type", "3;::-Si1::-\n", RulePathSite},
		{"lower case type", "3;::-mo1::-\n", RulePathSite},
		{"barrier with capacity", "3;::-::1::-\n", RulePathSite},
		{"type with dash", "3;::-Mo-::-\n", RulePathSite},
		{"cut short", "3;::-Mo1::\n", RulePathSite},
		{"trailing space", "2;::-::- \n", RulePathSite},
		{"carriage return", "2;::-::-\r\n", RulePathSite},
		{"count too big", "3;::-::-\n", RulePathMatch},
		{"count too small", "2;::-Mo1::-\n", RulePathMatch},
		{"one site", "1;::-\n", RulePathSize},
		{"no sites", "0;\n", RulePathSize},
		{"starts with a site", "3;Mo1::-::-\n", RulePathEnds},
		{"ends with a site", "3;::-::-Mo1\n", RulePathEnds},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParsePathFile([]byte(tc.in))
			if got := ruleOf(err); got != tc.rule {
				t.Fatalf("ParsePathFile(%q) rule = %q (%v), want %q", tc.in, got, err, tc.rule)
			}
			if err == nil && p.String()+"\n" != tc.in {
				t.Errorf("round trip %q -> %q", tc.in, p.String()+"\n")
			}
		})
	}
}

func TestPathSites(t *testing.T) {
	p, err := ParsePath("7;::-Mo1V11V22Mo1Mo1::-")
	if err != nil {
		t.Fatal(err)
	}
	want := Path{{Barrier, 0}, {Mo, 1}, {V1, 1}, {V2, 2}, {Mo, 1}, {Mo, 1}, {Barrier, 0}}
	if len(p) != len(want) {
		t.Fatalf("path = %v", p)
	}
	for i := range p {
		if p[i] != want[i] {
			t.Errorf("site %d = %+v, want %+v", i, p[i], want[i])
		}
	}
}

func TestNextBarrier(t *testing.T) {
	p, err := ParsePath("8;::-Mo1::-::-Do1Ri1::-::-")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ from, want int }{
		{0, 2}, {1, 2}, {2, 3}, {3, 6}, {4, 6}, {5, 6}, {6, 7}, {7, 7},
	}
	for _, tc := range tests {
		if got := p.NextBarrier(tc.from); got != tc.want {
			t.Errorf("NextBarrier(%d) = %d, want %d", tc.from, got, tc.want)
		}
	}
}

func TestParseMsg(t *testing.T) {
	tests := []struct {
		in   string
		rule string
		want Msg
	}{
		{"YT", "", Msg{Kind: MsgYT}},
		{"EARLY", "", Msg{Kind: MsgEarly}},
		{"DONE", "", Msg{Kind: MsgDone}},
		{"DO0", "", Msg{Kind: MsgDO, Site: 0}},
		{"DO1", "", Msg{Kind: MsgDO, Site: 1}},
		{"DO12", "", Msg{Kind: MsgDO, Site: 12}},
		{"HAP0,1,0,3,0", "", Msg{Kind: MsgHAP, HAP: HAP{0, 1, 0, 3, NoCard}}},
		{"HAP1,5,3,-7,0", "", Msg{Kind: MsgHAP, HAP: HAP{1, 5, 3, -7, NoCard}}},
		{"HAP12,30,0,0,5", "", Msg{Kind: MsgHAP, HAP: HAP{12, 30, 0, 0, CardE}}},
		{"", RuleMsgKind, Msg{}},
		{"yt", RuleMsgKind, Msg{}},
		{"YT ", RuleMsgKind, Msg{}},
		{"YT\r", RuleMsgKind, Msg{}},
		{"DONE\r", RuleMsgKind, Msg{}},
		{"EARLY!", RuleMsgKind, Msg{}},
		{"D01", RuleMsgKind, Msg{}},
		{"^DO1", RuleMsgKind, Msg{}},
		{"DO", RuleMsgNumber, Msg{}},
		{"DO01", RuleMsgNumber, Msg{}},
		{"DO-1", RuleMsgNumber, Msg{}},
		{"DO+1", RuleMsgNumber, Msg{}},
		{"DO 1", RuleMsgNumber, Msg{}},
		{"DO1\r", RuleMsgNumber, Msg{}},
		{"DO1x", RuleMsgNumber, Msg{}},
		{"DO1234567890", RuleMsgNumber, Msg{}},
		{"HAP", RuleHAPFields, Msg{}},
		{"HAP0,1,0,3", RuleHAPFields, Msg{}},
		{"HAP0,1,0,3,0,0", RuleHAPFields, Msg{}},
		{"HAP 0,1,0,3,0", RuleMsgNumber, Msg{}},
		{"HAP0,1,0,3,", RuleMsgNumber, Msg{}},
		{"HAP0,01,0,3,0", RuleMsgNumber, Msg{}},
		{"HAP0,1,0,-0,0", RuleMsgNumber, Msg{}},
		{"HAP0,1,0,--3,0", RuleMsgNumber, Msg{}},
		{"HAP0,1,0,3,0\r", RuleMsgNumber, Msg{}},
		{"HAP-1,1,0,3,0", RuleHAPSign, Msg{}},
		{"HAP0,-1,0,3,0", RuleHAPSign, Msg{}},
		{"HAP0,1,-2,3,0", RuleHAPSign, Msg{}},
		{"HAP0,1,0,3,-1", RuleHAPSign, Msg{}},
		{"HAP0,1,0,3,6", RuleHAPCard, Msg{}},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			m, err := ParseMsg(tc.in)
			if got := ruleOf(err); got != tc.rule {
				t.Fatalf("ParseMsg(%q) rule = %q (%v), want %q", tc.in, got, err, tc.rule)
			}
			if err != nil {
				return
			}
			if m != tc.want {
				t.Errorf("ParseMsg(%q) = %+v, want %+v", tc.in, m, tc.want)
			}
			if m.String() != tc.in {
				t.Errorf("round trip %q -> %q", tc.in, m.String())
			}
		})
	}
}

func TestMessageDirections(t *testing.T) {
	tests := []struct {
		in         string
		fromPlayer string // rule ParsePlayerMsg breaks
		fromDealer string // rule ParseDealerMsg breaks
	}{
		{"DO3", "", RuleFromDealer},
		{"YT", RuleFromPlayer, ""},
		{"HAP0,1,0,3,0", RuleFromPlayer, ""},
		{"EARLY", RuleFromPlayer, ""},
		{"DONE", RuleFromPlayer, ""},
		{"junk", RuleMsgKind, RuleMsgKind},
	}
	for _, tc := range tests {
		site, err := ParsePlayerMsg(tc.in)
		if got := ruleOf(err); got != tc.fromPlayer {
			t.Errorf("ParsePlayerMsg(%q) rule = %q, want %q", tc.in, got, tc.fromPlayer)
		}
		if err == nil && site != 3 {
			t.Errorf("ParsePlayerMsg(%q) = %d, want 3", tc.in, site)
		}
		_, err = ParseDealerMsg(tc.in)
		if got := ruleOf(err); got != tc.fromDealer {
			t.Errorf("ParseDealerMsg(%q) rule = %q, want %q", tc.in, got, tc.fromDealer)
		}
	}
}

func TestFormatMessages(t *testing.T) {
	tests := []struct {
		msg  Msg
		want string
	}{
		{Msg{Kind: MsgYT}, "YT"},
		{MoveMsg(6), "DO6"},
		{Msg{Kind: MsgHAP, HAP: HAP{Player: 1, Site: 5, Points: 3, Money: -7}}, "HAP1,5,3,-7,0"},
		{Msg{Kind: MsgHAP, HAP: HAP{Player: 2, Site: 6, Card: CardA}}, "HAP2,6,0,0,1"},
		{Msg{Kind: MsgEarly}, "EARLY"},
		{Msg{Kind: MsgDone}, "DONE"},
	}
	for _, tc := range tests {
		if got := tc.msg.String(); got != tc.want {
			t.Errorf("%+v.String() = %q, want %q", tc.msg, got, tc.want)
		}
	}
}

// FuzzCodecRoundTrip checks Format(Parse(x)) == x for every input a parser accepts.
func FuzzCodecRoundTrip(f *testing.F) {
	for _, s := range []string{"7ABACDEE", "7;::-Mo1V11V22Mo1Mo1::-", "HAP1,5,3,-7,0", "DO12", "YT", "2;::-::-", "04ABCD"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d, err := ParseDeck(s); err == nil && d.String() != s {
			t.Errorf("deck %q -> %q", s, d.String())
		}
		if p, err := ParsePath(s); err == nil && p.String() != s {
			t.Errorf("path %q -> %q", s, p.String())
		}
		if m, err := ParseMsg(s); err == nil && m.String() != s {
			t.Errorf("message %q -> %q", s, m.String())
		}
	})
}
