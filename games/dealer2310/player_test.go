package dealer2310

import (
	"errors"
	"io"
	"strings"
	"testing"
)

const specPath = "7;::-Mo1V11V22Mo1Mo1::-"

func TestPlayerReactions(t *testing.T) {
	display0 := ":: Mo V1 V2 Mo Mo :: \n1                    \n0                    \n"
	tests := []struct {
		name   string
		lines  []string // fed in order; "<EOF>" stands for a failed read
		reply  string   // the last reaction's reply
		stderr string   // the last reaction's stderr
		done   bool
		status int
	}{
		{"path: display", []string{specPath}, "", display0, false, 0},
		{"bad path", []string{"7;::-Mo1V11V22Mo1Mo1"}, "", "Invalid path\n", true, PlayerExitPath},
		{"path count with a leading zero, as a lenient dealer forwards it", []string{"0" + specPath}, "", display0, false, 0},
		{"path count with two leading zeros", []string{"00" + specPath}, "", display0, false, 0},
		{"path count zero padded, wrong", []string{"06" + specPath[1:]}, "", "Invalid path\n", true, PlayerExitPath},
		{"empty path line", []string{""}, "", "Invalid path\n", true, PlayerExitPath},
		{"YT before the path", []string{"YT"}, "", "Invalid path\n", true, PlayerExitPath},
		{"EOF before the path", []string{"<EOF>"}, "", "Invalid path\n", true, PlayerExitPath},
		{"EOF after the path", []string{specPath, "<EOF>"}, "", "Communications error\n", true, PlayerExitComms},
		{"YT: a move", []string{specPath, "YT"}, "DO1", "", false, 0},
		{"HAP: status and display", []string{specPath, "HAP0,1,0,3,0"}, "",
			"Player 0 Money=10 V1=0 V2=0 Points=0 A=0 B=0 C=0 D=0 E=0\n:: Mo V1 V2 Mo Mo :: \n1  0                 \n", false, 0},
		{"HAP of another player", []string{specPath, "HAP1,2,0,0,0"}, "",
			"Player 1 Money=7 V1=1 V2=0 Points=0 A=0 B=0 C=0 D=0 E=0\n:: Mo V1 V2 Mo Mo :: \n0     1              \n", false, 0},
		{"HAP: no such player", []string{specPath, "HAP2,1,0,3,0"}, "", "Communications error\n", true, PlayerExitComms},
		{"HAP: no such site", []string{specPath, "HAP0,7,0,3,0"}, "", "Communications error\n", true, PlayerExitComms},
		{"HAP: malformed", []string{specPath, "HAP0,1,0,3"}, "", "Communications error\n", true, PlayerExitComms},
		{"garbage", []string{specPath, "hello"}, "", "Communications error\n", true, PlayerExitComms},
		{"empty line", []string{specPath, ""}, "", "Communications error\n", true, PlayerExitComms},
		{"a player's message", []string{specPath, "DO1"}, "", "Communications error\n", true, PlayerExitComms},
		{"a second path", []string{specPath, specPath}, "", "Communications error\n", true, PlayerExitComms},
		{"EARLY", []string{specPath, "EARLY"}, "", "Early game over\n", true, PlayerExitEarly},
		{"DONE: scores", []string{specPath, "HAP1,2,0,0,0", "DONE"}, "", "Scores: 0,1\n", true, PlayerExitOK},
		{"YT at the end", []string{specPath, "HAP0,6,0,0,0", "YT"}, "", "Communications error\n", true, PlayerExitComms},
		{"after the end", []string{specPath, "DONE", "YT"}, "", "", true, PlayerExitOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := NewPlayer(StrategyA, 2, 0)
			var r Reaction
			for i, l := range tc.lines {
				if l == "<EOF>" {
					r = p.Lost(io.EOF)
				} else {
					r = p.Handle(l)
				}
				if r.Done && i < len(tc.lines)-1 && !strings.Contains(tc.name, "after the end") {
					t.Fatalf("ended early at line %d: %+v", i, r)
				}
			}
			if r.Reply != tc.reply || r.Stderr != tc.stderr || r.Done != tc.done || (r.Done && r.Status != tc.status) {
				t.Errorf("reaction = %+v\nwant reply %q stderr %q done %v status %d", r, tc.reply, tc.stderr, tc.done, tc.status)
			}
			if r.Done && r.Status != PlayerExitOK && r.Status != PlayerExitEarly && r.Err == nil {
				t.Errorf("an error status without its cause")
			}
		})
	}
}

func TestPlayerErrorCauses(t *testing.T) {
	p := NewPlayer(StrategyA, 2, 0)
	p.Handle(specPath)
	var he *HAPError
	if r := p.Handle("HAP5,1,0,0,0"); !errors.As(r.Err, &he) || he.Rule != RuleHAPPlayer {
		t.Errorf("cause = %v", r.Err)
	}
	p = NewPlayer(StrategyA, 2, 0)
	p.Handle(specPath)
	p.Handle("HAP0,6,0,0,0")
	if r := p.Handle("YT"); !errors.Is(r.Err, ErrNoMove) {
		t.Errorf("cause = %v", r.Err)
	}
}

// TestPlayerFollowsSpecSession feeds player 0 what the spec says it received and checks
// what it sent.
func TestPlayerFollowsSpecSession(t *testing.T) {
	in := []string{specPath, "YT", "HAP0,1,0,3,0", "HAP1,2,0,0,0", "YT", "HAP0,3,0,0,0",
		"HAP1,3,0,0,0", "HAP1,4,0,3,0", "YT", "HAP0,6,0,0,0", "HAP1,5,0,3,0", "HAP1,6,0,0,0", "DONE"}
	p := NewPlayer(StrategyA, 2, 0)
	var sent []string
	for _, l := range in {
		r := p.Handle(l)
		if r.Reply != "" {
			sent = append(sent, r.Reply)
		}
		if r.Done && r.Status != 0 {
			t.Fatalf("ended with %d at %q", r.Status, l)
		}
	}
	if got := strings.Join(sent, " "); got != "DO1 DO3 DO6" {
		t.Errorf("sent %s, want DO1 DO3 DO6", got)
	}
}

func TestDealerConversation(t *testing.T) {
	d, err := NewDealer(mustPath(t, "3;::-Mo1::-"), mustDeck(t, "4ABCD"), 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Reply("DO1"); !errors.Is(err, ErrNotAwaiting) {
		t.Errorf("Reply before Begin: %v", err)
	}
	check := func(what string, got []Out, want ...string) {
		t.Helper()
		var g []string
		for _, o := range got {
			who := "out"
			if o.To != Stdout {
				who = string(rune('0' + o.To))
			}
			g = append(g, who+":"+o.Line)
		}
		if strings.Join(g, "|") != strings.Join(want, "|") {
			t.Errorf("%s:\n got %q\nwant %q", what, g, want)
		}
	}
	check("welcome", d.Welcome(1), "1:3;::-Mo1::-")
	check("begin", d.Begin(), "out::: Mo :: ", "out:1        ", "out:0        ", "0:YT")
	if d.Awaiting() != 0 {
		t.Errorf("awaiting %d", d.Awaiting())
	}
	outs, err := d.Reply("DO1")
	if err != nil {
		t.Fatal(err)
	}
	check("move", outs, "0:HAP0,1,0,3,0", "1:HAP0,1,0,3,0",
		"out:Player 0 Money=10 V1=0 V2=0 Points=0 A=0 B=0 C=0 D=0 E=0",
		"out::: Mo :: ", "out:1  0     ", "1:YT")
	outs, err = d.Reply("DO2")
	if err != nil {
		t.Fatal(err)
	}
	check("move", outs, "0:HAP1,2,0,0,0", "1:HAP1,2,0,0,0",
		"out:Player 1 Money=7 V1=0 V2=0 Points=0 A=0 B=0 C=0 D=0 E=0",
		"out::: Mo :: ", "out:   0  1  ", "0:YT")
	c := d.Clone()
	outs, err = d.Reply("DO2")
	if err != nil {
		t.Fatal(err)
	}
	check("last move", outs, "0:HAP0,2,0,0,0", "1:HAP0,2,0,0,0",
		"out:Player 0 Money=10 V1=0 V2=0 Points=0 A=0 B=0 C=0 D=0 E=0",
		"out::: Mo :: ", "out:      1  ", "out:      0  ", "0:DONE", "1:DONE", "out:Scores: 0,0")
	if !d.Ended() || d.Awaiting() != -1 {
		t.Errorf("not ended")
	}
	if _, err := d.Reply("DO2"); !errors.Is(err, ErrNotAwaiting) {
		t.Errorf("Reply after the end: %v", err)
	}
	if c.Ended() || c.Awaiting() != 0 {
		t.Errorf("the clone ended with the original")
	}
}

func TestDealerRefusals(t *testing.T) {
	tests := []struct {
		reply string
		rule  string
	}{
		{"DO0", RuleMoveForward},
		{"DO3", RuleMoveBarrier},
		{"DO9", RuleMoveSite},
		{"DO01", RuleMsgNumber},
		{"YT", RuleFromPlayer},
		{"", RuleMsgKind},
		{"DO1\r", RuleMsgNumber},
	}
	for _, tc := range tests {
		t.Run(tc.reply, func(t *testing.T) {
			d, err := NewDealer(mustPath(t, "5;::-Mo1::-V11::-"), mustDeck(t, "4ABCD"), 2)
			if err != nil {
				t.Fatal(err)
			}
			d.Begin()
			outs, err := d.Reply(tc.reply)
			got := ""
			var fe *FormatError
			var me *MoveError
			switch {
			case errors.As(err, &fe):
				got = fe.Rule
			case errors.As(err, &me):
				got = me.Rule
			}
			if got != tc.rule {
				t.Errorf("rule = %q (%v), want %q", got, err, tc.rule)
			}
			if len(outs) != 2 || outs[0] != (Out{0, "EARLY"}) || outs[1] != (Out{1, "EARLY"}) {
				t.Errorf("outs = %v, want EARLY to both players", outs)
			}
			if !d.Ended() {
				t.Errorf("not ended")
			}
		})
	}
	d, _ := NewDealer(mustPath(t, "2;::-::-"), mustDeck(t, "4ABCD"), 3)
	d.Begin()
	if outs := d.Abort(); len(outs) != 3 || outs[2] != (Out{2, "EARLY"}) {
		t.Errorf("Abort = %v", outs)
	}
}

func TestContract(t *testing.T) {
	dealer := map[int]string{0: "", 1: "Usage: 2310dealer deck path p1 {p2}", 2: "Error reading deck",
		3: "Error reading path", 4: "Error starting process", 5: "Communications error"}
	player := map[int]string{0: "", 1: "Usage: player pcount ID", 2: "Invalid player count",
		3: "Invalid ID", 4: "Invalid path", 5: "Early game over", 6: "Communications error"}
	for i, r := range DealerContract {
		if r.Status != i || r.Message != dealer[i] || r.Program != "2310dealer" || r.Condition == "" || r.Section == "" {
			t.Errorf("dealer row %d = %+v", i, r)
		}
	}
	for i, r := range PlayerContract {
		if r.Status != i || r.Message != player[i] || r.Program != "player" || r.Condition == "" || r.Section == "" {
			t.Errorf("player row %d = %+v", i, r)
		}
	}
	if len(DealerContract) != len(dealer) || len(PlayerContract) != len(player) {
		t.Errorf("tables have %d and %d rows", len(DealerContract), len(PlayerContract))
	}
}

func TestParseArgs(t *testing.T) {
	tests := []struct {
		args   []string
		status int
		n, me  int
	}{
		{[]string{"2", "0"}, PlayerExitOK, 2, 0},
		{[]string{"1", "0"}, PlayerExitOK, 1, 0},
		{[]string{"12", "11"}, PlayerExitOK, 12, 11},
		{[]string{"02", "01"}, PlayerExitOK, 2, 1},
		{nil, PlayerExitUsage, 0, 0},
		{[]string{"2"}, PlayerExitUsage, 0, 0},
		{[]string{"2", "0", "x"}, PlayerExitUsage, 0, 0},
		{[]string{"0", "0"}, PlayerExitCount, 0, 0},
		{[]string{"-1", "0"}, PlayerExitCount, 0, 0},
		{[]string{"+2", "0"}, PlayerExitCount, 0, 0},
		{[]string{"2a", "0"}, PlayerExitCount, 0, 0},
		{[]string{"", "0"}, PlayerExitCount, 0, 0},
		{[]string{" 2", "0"}, PlayerExitCount, 0, 0},
		{[]string{"99999999999999999999999", "0"}, PlayerExitCount, 0, 0},
		{[]string{"x", "x"}, PlayerExitCount, 0, 0},
		{[]string{"2", "2"}, PlayerExitID, 0, 0},
		{[]string{"2", "-1"}, PlayerExitID, 0, 0},
		{[]string{"2", "a"}, PlayerExitID, 0, 0},
		{[]string{"2", ""}, PlayerExitID, 0, 0},
		{[]string{"2", "1x"}, PlayerExitID, 0, 0},
		{[]string{"2", "99999999999999999999999"}, PlayerExitID, 0, 0},
	}
	for _, tc := range tests {
		n, me, status := ParsePlayerArgs(tc.args)
		if status != tc.status || (status == 0 && (n != tc.n || me != tc.me)) {
			t.Errorf("ParsePlayerArgs(%q) = %d, %d, %d; want %d, %d, %d", tc.args, n, me, status, tc.n, tc.me, tc.status)
		}
	}
	for _, args := range [][]string{nil, {"d"}, {"d", "p"}} {
		if _, status := ParseDealerArgs(args); status != ExitUsage {
			t.Errorf("ParseDealerArgs(%q) = %d", args, status)
		}
	}
	a, status := ParseDealerArgs([]string{"d", "p", "x", "y"})
	if status != ExitOK || a.DeckFile != "d" || a.PathFile != "p" || strings.Join(a.Programs, " ") != "x y" {
		t.Errorf("ParseDealerArgs = %+v, %d", a, status)
	}
}

// FuzzConversation feeds arbitrary lines to a player and to a dealer: neither may panic,
// and each either goes on or ends with a status from its table.
func FuzzConversation(f *testing.F) {
	f.Add(specPath, "YT", "HAP1,2,0,0,0", "DO1")
	f.Add("2;::-::-", "HAP0,1,0,0,5", "DONE", "DO9")
	f.Add("3;::-Ri9::-", "HAP0,2,-1,0,0", "EARLY", "YT")
	f.Fuzz(func(t *testing.T, path, l1, l2, reply string) {
		p := NewPlayer(StrategyB, 3, 1)
		for _, l := range []string{path, l1, "YT", l2, "YT"} {
			r := p.Handle(l)
			if r.Done {
				if r.Status < 0 || r.Status >= len(PlayerContract) {
					t.Fatalf("status %d", r.Status)
				}
				break
			}
			if r.Reply != "" {
				if _, err := ParsePlayerMsg(r.Reply); err != nil {
					t.Fatalf("player sent %q: %v", r.Reply, err)
				}
			}
		}
		pa, err := ParsePath(path)
		if err != nil {
			return
		}
		d, err := NewDealer(pa, Deck{CardA, CardB, CardC, CardD}, 3)
		if err != nil {
			t.Fatal(err)
		}
		d.Begin()
		for _, l := range []string{reply, l1, l2} {
			if d.Ended() {
				break
			}
			d.Reply(l)
		}
	})
}

// A dealer built from a file's line sends that line as read (the notes), the reference's
// path formatted again otherwise; a player reads either.
func TestDealerSendsThePathAsRead(t *testing.T) {
	path, err := ParsePath(specPath)
	if err != nil {
		t.Fatal(err)
	}
	deck, err := ParseDeck("7ABACDEE")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{specPath, "0" + specPath} {
		d, err := NewDealerAsRead(path, line, deck, 2)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Welcome(1); len(got) != 1 || got[0] != (Out{To: 1, Line: line}) {
			t.Errorf("Welcome(1) with the line %q = %v", line, got)
		}
		if r := NewPlayer(StrategyA, 2, 1).Handle(line); r.Done {
			t.Errorf("a player given %q ends: %+v", line, r)
		}
	}
}
