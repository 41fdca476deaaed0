package referee

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"gauntlet/games/grammar/grammartest"
)

func TestCodec(t *testing.T) {
	for _, tc := range []struct {
		line string
		name string
		end  bool
		rule string
	}{
		{"feature write_lines", FeatureWriteLines, false, ""},
		{"feature no_last_move", FeatureNoLastMove, false, ""},
		{"feature_end", "", true, ""},
		{"feature telepathy", "telepathy", false, RuleUnknown},
		{"feature  write_lines", "", false, RuleFeature},
		{"features write_lines", "", false, RuleFeature},
		{"feature", "", false, RuleFeature},
	} {
		name, end, err := ParseFeature(tc.line)
		var fe *FormatError
		if tc.rule != "" {
			if !errors.As(err, &fe) || fe.Rule != tc.rule {
				t.Errorf("%q: %v, want rule %q", tc.line, err, tc.rule)
			}
			continue
		}
		if err != nil || name != tc.name || end != tc.end {
			t.Errorf("%q: %q %v %v", tc.line, name, end, err)
		}
	}
	for _, ok := range []string{"valid", "invalid", "valid end"} {
		if v, err := ParseVerdict(ok); err != nil || v.String() != ok {
			t.Errorf("%q: %v %v", ok, v, err)
		}
	}
	for _, bad := range []string{"Valid", "valid  end", "valid\r", "", "end"} {
		if _, err := ParseVerdict(bad); err == nil {
			t.Errorf("verdict %q accepted", bad)
		}
	}
	if s, err := ParseScores("3 -1", 2); err != nil || s[0] != 3 || s[1] != -1 || FormatScores(s) != "3 -1" {
		t.Errorf("scores: %v %v", s, err)
	}
	for _, bad := range []string{"1", "1 2 3", "1  2", "01 2", "+1 2", "a b", ""} {
		if _, err := ParseScores(bad, 2); err == nil {
			t.Errorf("scores %q accepted", bad)
		}
	}
	if p, text, end, err := ParseWriteLine("1 ..X....", 2); err != nil || p != 1 || text != "..X...." || end {
		t.Errorf("write line: %d %q %v %v", p, text, end, err)
	}
	for _, bad := range []string{"2 x", "-1 x", "x y", "01 x", "0"} {
		if _, _, _, err := ParseWriteLine(bad, 2); err == nil {
			t.Errorf("write line %q accepted", bad)
		}
	}
}

// The example referees refuse what their rules forbid: a move out of turn, onto an
// occupied square, off the board; a full column.
func TestExampleReferees(t *testing.T) {
	r := NewReferee(&TicTacToe{})
	if h := strings.Join(r.Hello(), "|"); h != "feature_end" {
		t.Errorf("tic-tac-toe's features: %q", h)
	}
	r.React("2")
	r.React("a")
	r.React("b")
	steps := []struct{ in, want string }{
		{"1 1 1", "invalid"}, // out of turn
		{"0 1 1", "valid"},
		{"1 1 1", "invalid"}, // occupied
		{"1 3 3", "invalid"}, // off the board
		{"1 0 0", "valid"},
		{"0 0 1", "valid"},
		{"1 2 2", "valid"},
		{"0 2 1", "valid end|2 0"}, // column 1: three Xs
	}
	for _, s := range steps {
		if got := strings.Join(r.React(s.in), "|"); got != s.want {
			t.Errorf("%q: %q, want %q", s.in, got, s.want)
		}
	}
	c := NewReferee(NewConnectFour())
	if h := strings.Join(c.Hello(), "|"); h != "feature write_lines|feature no_last_move|feature_end" {
		t.Errorf("connect four's features: %q", h)
	}
	c.React("2")
	c.React("a")
	start := c.React("b")
	if len(start) != 7 || start[0] != "0 ......." || start[6] != WriteEnd {
		t.Errorf("the first board: %q", start)
	}
	for i := 0; i < 6; i++ {
		c.React(MoveLine(i%2, "3"))
	}
	if got := c.React("0 3"); got[0] != "invalid" {
		t.Errorf("a full column: %q", got)
	}
}

// The perfect tic-tac-toe player never loses to the random one, in either seat.
func TestPerfectNeverLoses(t *testing.T) {
	if testing.Short() {
		t.Skip("a long test: it runs without -short")
	}
	r := rand.New(rand.NewPCG(1, 1))
	for g := 0; g < 30; g++ {
		perfectSeat := g % 2
		players := [2]*TTTPlayer{{R: r}, {R: r}}
		players[perfectSeat].Perfect = true
		ref := &TicTacToe{}
		last := StartMove
		for mover := 0; ; mover = 1 - mover {
			m := players[mover].React(last)
			if !ref.Move(mover, m) {
				t.Fatalf("game %d: player %d's %q refused", g, mover, m)
			}
			if over, scores := ref.Over(); over {
				if scores[perfectSeat] == 0 {
					t.Fatalf("game %d: the perfect player (seat %d) lost", g, perfectSeat)
				}
				break
			}
			last = m
		}
	}
}

func FuzzCodec(f *testing.F) {
	for _, s := range []string{"feature write_lines", "feature_end", "valid end", "1 2", "0 .......", "write_end"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if name, end, err := ParseFeature(line); err != nil {
			grammartest.Require(t, "ParseFeature", err, RuleFeature, RuleUnknown)
		} else if !end && "feature "+name != line {
			t.Fatalf("feature %q from %q", name, line)
		}
		if v, err := ParseVerdict(line); err == nil && v.String() != line {
			t.Fatalf("verdict %v from %q", v, line)
		}
		if s, err := ParseScores(line, 2); err != nil {
			grammartest.Require(t, "ParseScores", err, RuleScores)
		} else if FormatScores(s) != line {
			t.Fatalf("scores %v from %q", s, line)
		}
		if p, text, end, err := ParseWriteLine(line, 2); err != nil {
			grammartest.Require(t, "ParseWriteLine", err, RuleWriteLine)
		} else if !end && MoveLine(p, text) != line {
			t.Fatalf("write line %d %q from %q", p, text, line)
		}
	})
}
