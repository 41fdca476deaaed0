package programs

import (
	"os"
	"strings"
	"testing"

	"gauntlet/games/judge"
	"gauntlet/harness/judges/live"
)

// Each game's settings are checked, and a game that is set up has its judge, the subject's
// seat empty and every other seat filled.
func TestNew(t *testing.T) {
	read := func(name string) ([]byte, error) {
		switch name {
		case "x.roll":
			return []byte("HAHPPPPPPPP1233331111\n"), nil
		case "p.path":
			return []byte("7;::-Mo1V11V22Mo1Mo1::-\n"), nil
		case "d.deck":
			return []byte("7ABACDEE\n"), nil
		}
		return nil, os.ErrNotExist
	}
	good := []struct {
		game   string
		params live.Params
		seat   int
	}{
		{"stlucia", live.Params{"rolls": "x.roll", "winscore": "10", "players": "3", "seat": "B", "others": "EAIT,MABS"}, 1},
		{"dealer2310", live.Params{"path": "p.path", "deck": "d.deck", "players": "2", "seat": "0"}, 0},
		{"stratego", live.Params{"seat": "BLUE", "others": "hunter", "seed": "3"}, 1},
		{"tictactoe", live.Params{"seat": "1", "others": "perfect"}, 1},
		{"connectfour", live.Params{"seat": "0"}, 0},
	}
	for _, tc := range good {
		g, err := live.New(tc.game, tc.params, read)
		if err != nil {
			t.Errorf("%s %v: %v", tc.game, tc.params, err)
			continue
		}
		if g.Seat != tc.seat || g.Others[g.Seat] != nil || len(g.Others) != g.Judge.Seats() {
			t.Errorf("%s: seat %d, others %v", tc.game, g.Seat, g.Others)
		}
		for s, r := range g.Others {
			if s != g.Seat && r == nil {
				t.Errorf("%s: seat %d has no reference player", tc.game, s)
			}
		}
	}
	bad := []struct {
		game   string
		params live.Params
		why    string
	}{
		{"chess", nil, "no game"},
		{"stlucia", live.Params{"rolls": "none", "winscore": "10", "players": "2", "seat": "A"}, "rolls="},
		{"stlucia", live.Params{"rolls": "x.roll", "winscore": "10", "players": "2", "seat": "C"}, "seat="},
		{"stlucia", live.Params{"rolls": "x.roll", "winscore": "10", "players": "3", "seat": "A", "others": "EAIT"}, "others="},
		{"dealer2310", live.Params{"path": "p.path", "deck": "d.deck", "players": "2", "seat": "0", "others": "2310C"}, "no strategy"},
		{"stratego", live.Params{"seat": "GREEN"}, "seat="},
		{"tictactoe", live.Params{"seat": "0", "seed": "-1"}, "seed="},
	}
	for _, tc := range bad {
		if _, err := live.New(tc.game, tc.params, read); err == nil || !strings.Contains(err.Error(), tc.why) {
			t.Errorf("%s %v: %v, want an error about %q", tc.game, tc.params, err, tc.why)
		}
	}
}

// The AI suite's manager names the opponent as a manager given the AIs as paths does (a
// 2012 AI crashed on a name no manager sent): RED hears of ./stratego-random by default,
// BLUE of ./stratego-hunter.
func TestStrategoOpponentIsAPath(t *testing.T) {
	for _, tc := range []struct {
		params live.Params
		want   string
	}{
		{live.Params{"seat": "RED"}, "RED ./stratego-random 10 10"},
		{live.Params{"seat": "BLUE", "others": "hunter"}, "BLUE ./stratego-hunter 10 10"},
	} {
		g, err := live.New("stratego", tc.params, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		outs := g.Judge.Start()
		for len(outs) > 0 && g.Judge.Awaiting() != g.Seat { // RED's setup, by the reference
			var next []judge.Out
			for _, o := range outs {
				if o.To >= 0 && o.To != g.Seat {
					for _, line := range g.Others[o.To].React(o.Line).Replies {
						n, _ := g.Judge.Take(line)
						next = append(next, n...)
					}
				}
			}
			outs = next
		}
		for _, o := range outs {
			if o.To == g.Seat {
				got = append(got, o.Line)
			}
		}
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("%v: the subject was sent %q, want %q", tc.params, got, tc.want)
		}
	}
}
