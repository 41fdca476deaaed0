package stlucia

import (
	"errors"
	"strings"
	"testing"
)

func ruleOf(err error) string {
	var fe *FormatError
	if errors.As(err, &fe) {
		return fe.Rule
	}
	return ""
}

func TestParseRoll(t *testing.T) {
	tests := []struct {
		in   string
		rule string // "" when valid
	}{
		{"123HAP", ""},
		{"111111", ""},
		{"PPPPPP", ""},
		{"12HHAA", ""},
		{"12345", RuleDiceWord},
		{"1234567", RuleDiceWord},
		{"", RuleDiceWord},
		{"321HAP", RuleDiceWord},  // not increasing
		{"123HPA", RuleDiceWord},  // P before A
		{"123hap", RuleDiceWord},  // lowercase
		{"12 HAP", RuleDiceWord},  // space
		{"1230AP", RuleDiceWord},  // not a face
		{"AHHHHH", RuleDiceWord},  // A before H
		{"11111\n", RuleDiceWord}, // newline
		{"\x00\x00\x00\x00\x00\x00", RuleDiceWord},
	}
	for _, tc := range tests {
		r, err := ParseRoll(tc.in)
		if got := ruleOf(err); got != tc.rule || (tc.rule != "") != (err != nil) {
			t.Errorf("ParseRoll(%q) error %v, want rule %q", tc.in, err, tc.rule)
			continue
		}
		if err == nil && r.String() != tc.in {
			t.Errorf("ParseRoll(%q).String() = %q", tc.in, r.String())
		}
	}
}

func TestRollOps(t *testing.T) {
	r := RollOf(Point, One, Attack, One, Heal, Three)
	if r.String() != "113HAP" || r.Len() != 6 || r.Count(One) != 2 {
		t.Fatalf("RollOf = %s", r)
	}
	if !r.Contains(RollOf(One, One, Point)) || r.Contains(RollOf(Two)) || r.Contains(RollOf(One, One, One)) {
		t.Error("Contains is wrong")
	}
	if got := r.Minus(RollOf(One, Point)).Plus(RollOf(Two)); got.String() != "123HA" {
		t.Errorf("Minus/Plus = %s", got)
	}
	if got := r.Only(One, Attack); got.String() != "11A" {
		t.Errorf("Only = %s", got)
	}
}

func TestParseRollFile(t *testing.T) {
	tests := []struct {
		name string
		in   string
		dice string // the stream, "" when invalid
		rule string
	}{
		{"x.roll", "HAHPPPPPPPP1233331111\nAAAA1232322AAA\n", "HAHPPPPPPPP1233331111AAAA1232322AAA", ""},
		{"no final newline", "123\nHAP", "123HAP", ""},
		{"blank lines anywhere", "\n\n12\n\n\n3\n\n", "123", ""},
		{"one die", "P", "P", ""},
		{"lowercase (y.roll)", "223322A33H\npPPPPPP\n", "", RuleRollChar},
		{"carriage return", "123\r\n", "", RuleRollChar},
		{"space", "12 3\n", "", RuleRollChar},
		{"digit 4", "1234\n", "", RuleRollChar},
		{"NUL", "12\x003", "", RuleRollChar},
		{"empty", "", "", RuleRollEmpty},
		{"newlines only", "\n\n\n", "", RuleRollEmpty},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ParseRollFile([]byte(tc.in))
			if ruleOf(err) != tc.rule || (err == nil) != (tc.rule == "") {
				t.Fatalf("error %v, want rule %q", err, tc.rule)
			}
			if err != nil {
				return
			}
			var b strings.Builder
			for _, d := range f.Dice() {
				b.WriteString(d.String())
			}
			if b.String() != tc.dice {
				t.Errorf("Dice = %s, want %s", b.String(), tc.dice)
			}
			if string(f.Format()) != tc.in {
				t.Errorf("Format = %q, want %q", f.Format(), tc.in)
			}
		})
	}
}

func TestParseMsg(t *testing.T) {
	valid := []struct {
		line string
		want Msg
	}{
		{"turn 112HPP", Msg{Kind: MsgTurn, Dice: RollOf(One, One, Two, Heal, Point, Point)}},
		{"rerolled 123HAP", Msg{Kind: MsgRerolled, Dice: RollOf(One, Two, Three, Heal, Attack, Point)}},
		{"rolled A 123HHH", Msg{Kind: MsgRolled, Player: 0, Dice: RollOf(One, Two, Three, Heal, Heal, Heal)}},
		{"points B 1", Msg{Kind: MsgPoints, Player: 1, Value: 1}},
		{"points Z 123", Msg{Kind: MsgPoints, Player: 25, Value: 123}},
		{"attacks C 2 in", Msg{Kind: MsgAttacks, Player: 2, Value: 2}},
		{"attacks D 6 out", Msg{Kind: MsgAttacks, Player: 3, Value: 6, Out: true}},
		{"eliminated E", Msg{Kind: MsgEliminated, Player: 4}},
		{"claim B", Msg{Kind: MsgClaim, Player: 1}},
		{"stay?", Msg{Kind: MsgStay}},
		{"winner H", Msg{Kind: MsgWinner, Player: 7}},
		{"shutdown", Msg{Kind: MsgShutdown}},
	}
	for _, tc := range valid {
		m, err := ParseMsg(tc.line)
		if err != nil || m != tc.want {
			t.Errorf("ParseMsg(%q) = %+v, %v; want %+v", tc.line, m, err, tc.want)
		}
		if s := m.String(); s != tc.line {
			t.Errorf("String of ParseMsg(%q) = %q", tc.line, s)
		}
	}
	invalid := []struct {
		line string
		rule string
	}{
		{"", RuleMsgKind},
		{"hello", RuleMsgKind},
		{"Turn 112HPP", RuleMsgKind},
		{" turn 112HPP", RuleMsgKind},
		{"turn", RuleMsgFields},
		{"turn 112HPP ", RuleMsgFields},
		{"turn  112HPP", RuleMsgFields},
		{"turn 112HPP\r", RuleDiceWord},
		{"turn 11HPP2", RuleDiceWord},
		{"turn 112HP", RuleDiceWord},
		{"rerolled", RuleMsgFields},
		{"rolled A", RuleMsgFields},
		{"rolled a 123HHH", RuleLabel},
		{"rolled AB 123HHH", RuleLabel},
		{"rolled 1 123HHH", RuleLabel},
		{"rolled A 123HH", RuleDiceWord},
		{"points B", RuleMsgFields},
		{"points B 0", RuleNumber},
		{"points B 01", RuleNumber},
		{"points B -1", RuleNumber},
		{"points B +1", RuleNumber},
		{"points B 1x", RuleNumber},
		{"points B 1234567890", RuleNumber},
		{"points b 1", RuleLabel},
		{"attacks C 2", RuleMsgFields},
		{"attacks C 2 up", RuleDirection},
		{"attacks C 2 IN", RuleDirection},
		{"attacks C 0 in", RuleNumber},
		{"attacks C 2 in x", RuleMsgFields},
		{"eliminated", RuleMsgFields},
		{"eliminated [", RuleLabel},
		{"claim", RuleMsgFields},
		{"claim @", RuleLabel},
		{"stay", RuleMsgKind},
		{"stay? A", RuleMsgFields},
		{"winner", RuleMsgFields},
		{"winner A B", RuleMsgFields},
		{"shutdown now", RuleMsgFields},
		{"shutdown ", RuleMsgFields},
	}
	for _, tc := range invalid {
		_, err := ParseMsg(tc.line)
		if got := ruleOf(err); got != tc.rule {
			t.Errorf("ParseMsg(%q) error %v, want rule %q", tc.line, err, tc.rule)
		}
	}
}

func TestParseReply(t *testing.T) {
	valid := []struct {
		line string
		kind ReplyKind
		dice string
	}{
		{"keepall", ReplyKeepAll, ""},
		{"stay", ReplyStay, ""},
		{"go", ReplyGo, ""},
		{"reroll AAP", ReplyReroll, "AAP"},
		{"reroll PA1", ReplyReroll, "1AP"}, // any order (rules section 2)
		{"reroll 1", ReplyReroll, "1"},
		{"reroll 1111111", ReplyReroll, "1111111"}, // well formed; the engine refuses it
	}
	for _, tc := range valid {
		r, err := ParseReply(tc.line)
		if err != nil || r.Kind != tc.kind || r.Dice().String() != tc.dice {
			t.Errorf("ParseReply(%q) = %+v, %v", tc.line, r, err)
		}
		if s := r.String(); s != tc.line {
			t.Errorf("String of ParseReply(%q) = %q", tc.line, s)
		}
	}
	invalid := []struct {
		line string
		rule string
	}{
		{"", RuleMsgKind},
		{"KEEPALL", RuleMsgKind},
		{"keepall ", RuleMsgKind},
		{" stay", RuleMsgKind},
		{"go\r", RuleMsgKind},
		{"reroll", RuleMsgKind},
		{"reroll ", RuleRerollFaces},
		{"reroll  1", RuleRerollFaces},
		{"reroll 1 ", RuleRerollFaces},
		{"reroll 7", RuleRerollFaces},
		{"reroll a", RuleRerollFaces},
		{"rerollAAP", RuleMsgKind},
	}
	for _, tc := range invalid {
		_, err := ParseReply(tc.line)
		if got := ruleOf(err); got != tc.rule {
			t.Errorf("ParseReply(%q) error %v, want rule %q", tc.line, err, tc.rule)
		}
	}
}

func TestRerollReply(t *testing.T) {
	if got := Reroll(Roll{}).String(); got != "keepall" {
		t.Errorf("Reroll(empty) = %q", got)
	}
	if got := Reroll(RollOf(Point, Attack, One, Attack)).String(); got != "reroll 1AAP" {
		t.Errorf("Reroll = %q", got)
	}
}

// FuzzParseMsg checks that every line ParseMsg accepts formats back to itself.
func FuzzParseMsg(f *testing.F) {
	for _, s := range []string{"turn 112HPP", "attacks C 2 in", "points B 12", "stay?", "winner A", "rolled Z 111111"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		m, err := ParseMsg(line)
		if err == nil && m.String() != line {
			t.Errorf("ParseMsg(%q).String() = %q", line, m.String())
		}
	})
}

// FuzzParseReply checks that every line ParseReply accepts formats back to itself.
func FuzzParseReply(f *testing.F) {
	for _, s := range []string{"keepall", "reroll AAP", "go", "stay"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		r, err := ParseReply(line)
		if err == nil && r.String() != line {
			t.Errorf("ParseReply(%q).String() = %q", line, r.String())
		}
	})
}

// FuzzParseRollFile checks that every accepted roll file formats back to its bytes.
func FuzzParseRollFile(f *testing.F) {
	f.Add([]byte("HAHPPPPPPPP1233331111\nAAAA1232322AAA\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rf, err := ParseRollFile(data)
		if err == nil && string(rf.Format()) != string(data) {
			t.Errorf("Format(ParseRollFile(%q)) = %q", data, rf.Format())
		}
	})
}

func TestParseHubArgs(t *testing.T) {
	progs := func(n int) []string {
		s := []string{"r", "10"}
		for i := 0; i < n; i++ {
			s = append(s, "p")
		}
		return s
	}
	tests := []struct {
		name   string
		args   []string
		status int
		win    int
	}{
		{"no args", nil, ExitUsage, 0},
		{"one player", progs(1), ExitUsage, 0},
		{"two players", progs(2), ExitOK, 10},
		{"26 players", progs(26), ExitOK, 10},
		{"27 players", progs(27), ExitUsage, 0},
		{"usage before score", []string{"r", "x", "p"}, ExitUsage, 0},
		{"score zero", []string{"r", "0", "p", "p"}, ExitScore, 0},
		{"score 000", []string{"r", "000", "p", "p"}, ExitScore, 0},
		{"score negative", []string{"r", "-5", "p", "p"}, ExitScore, 0},
		{"score plus", []string{"r", "+5", "p", "p"}, ExitScore, 0},
		{"score trailing text", []string{"r", "5x", "p", "p"}, ExitScore, 0},
		{"score space", []string{"r", " 5", "p", "p"}, ExitScore, 0},
		{"score empty", []string{"r", "", "p", "p"}, ExitScore, 0},
		{"score float", []string{"r", "1.5", "p", "p"}, ExitScore, 0},
		{"score leading zero", []string{"r", "010", "p", "p"}, ExitOK, 10},
		{"score huge", []string{"r", "99999999999999999999999", "p", "p"}, ExitOK, int(^uint(0) >> 1)},
	}
	for _, tc := range tests {
		a, st := ParseHubArgs(tc.args)
		if st != tc.status || a.Winscore != tc.win {
			t.Errorf("%s: status %d win %d, want %d %d", tc.name, st, a.Winscore, tc.status, tc.win)
		}
		if st == ExitOK && (a.RollFile != "r" || len(a.Programs) != len(tc.args)-2) {
			t.Errorf("%s: args %+v", tc.name, a)
		}
	}
}

func TestParsePlayerArgs(t *testing.T) {
	tests := []struct {
		args   []string
		status int
		n, me  int
	}{
		{nil, PlayerExitUsage, 0, 0},
		{[]string{"2"}, PlayerExitUsage, 0, 0},
		{[]string{"2", "A", "x"}, PlayerExitUsage, 0, 0},
		{[]string{"2", "A"}, PlayerExitOK, 2, 0},
		{[]string{"3", "C"}, PlayerExitOK, 3, 2},
		{[]string{"26", "Z"}, PlayerExitOK, 26, 25},
		{[]string{"03", "B"}, PlayerExitOK, 3, 1},
		{[]string{"0000000002", "B"}, PlayerExitOK, 2, 1}, // leading zeros, however many
		{[]string{"000000000000000000000000000026", "Z"}, PlayerExitOK, 26, 25},
		{[]string{"000000000000000000000000000027", "A"}, PlayerExitCount, 0, 0},
		{[]string{"99999999999999999999999999999", "A"}, PlayerExitCount, 0, 0}, // no overflow
		{[]string{"1", "A"}, PlayerExitCount, 0, 0},
		{[]string{"27", "A"}, PlayerExitCount, 0, 0},
		{[]string{"0", "A"}, PlayerExitCount, 0, 0},
		{[]string{"x", "A"}, PlayerExitCount, 0, 0},
		{[]string{"", "A"}, PlayerExitCount, 0, 0},
		{[]string{"-2", "A"}, PlayerExitCount, 0, 0},
		{[]string{"2x", "A"}, PlayerExitCount, 0, 0},
		{[]string{"99999999999", "A"}, PlayerExitCount, 0, 0},
		{[]string{"x", "?"}, PlayerExitCount, 0, 0}, // count is checked before the ID
		{[]string{"2", "C"}, PlayerExitID, 0, 0},
		{[]string{"2", "a"}, PlayerExitID, 0, 0},
		{[]string{"2", "AB"}, PlayerExitID, 0, 0},
		{[]string{"2", ""}, PlayerExitID, 0, 0},
		{[]string{"2", "@"}, PlayerExitID, 0, 0},
		{[]string{"26", "["}, PlayerExitID, 0, 0},
	}
	for _, tc := range tests {
		n, me, st := ParsePlayerArgs(tc.args)
		if st != tc.status || n != tc.n || me != tc.me {
			t.Errorf("ParsePlayerArgs(%q) = %d %d %d, want %d %d %d", tc.args, n, me, st, tc.n, tc.me, tc.status)
		}
	}
}

func TestContractTables(t *testing.T) {
	for st := ExitOK; st <= ExitSIGINT; st++ {
		if r := HubContract.Status(st); r.Program != "stlucia" {
			t.Errorf("hub row %d: %+v", st, r)
		}
	}
	for st := PlayerExitOK; st <= PlayerExitBadMsg; st++ {
		if r := PlayerContract.Status(st); r.Program != "player" {
			t.Errorf("player row %d: %+v", st, r)
		}
	}
	if len(HubContract) != 10 || len(PlayerContract) != 6 {
		t.Errorf("table sizes %d %d", len(HubContract), len(PlayerContract))
	}
	if HubContract.Status(ExitQuit).Stderr() != "Player quit\n" || PlayerContract.Status(PlayerExitBadMsg).Message != "Bad message from StLucia" {
		t.Error("messages differ from the spec")
	}
}
