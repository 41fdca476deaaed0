package stratego_test

// Native fuzz targets for the Stratego codec and the board view. Each checks the codec's
// contract: no input makes a parser panic; what parses formats back to itself; what does
// not yields a *FormatError naming one of the package's rules; and the engine accepts
// every move the view-based move list offers. Seeds replay in every `go test`; run one with
// `go test ./games/stratego -run '^$' -fuzz '^FuzzParseMove$' -fuzztime 10s`.

import (
	"math/rand/v2"
	"strings"
	"testing"

	gofuzz "github.com/google/gofuzz"

	"gauntlet/games/grammar/grammartest"
	. "gauntlet/games/stratego"
)

var setupRules = []string{RuleSetupRows, RuleSetupWidth, RuleSetupPiece, RuleSetupCounts}
var moveRules = []string{RuleMoveWords, RuleMoveNumber, RuleMoveDir}

func FuzzParseSetup(f *testing.F) {
	f.Add("123344455s\n5566667777\n8888899999\n999BBBBBBF")
	f.Add("123344455s\n5566667777\n8888899999\n999BBBBBBB")
	f.Add("F\n\n\n")
	f.Fuzz(func(t *testing.T, text string) {
		lines := strings.Split(text, "\n")
		s, err := ParseSetup(lines)
		if err != nil {
			grammartest.Require(t, "ParseSetup", err, setupRules...)
			return
		}
		if got := strings.Join(s.Lines(), "\n"); got != text {
			t.Fatalf("round trip: %q became %q", text, got)
		}
	})
}

func FuzzParseMove(f *testing.F) {
	for _, s := range []string{"0 3 DOWN", "9 6 UP 3", "SURRENDER", "1 1 LEFT 01", "0 3 UP\r", " 0 3 UP"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		m, err := ParseMove(line)
		if err != nil {
			grammartest.Require(t, "ParseMove", err, moveRules...)
			return
		}
		if m.String() != line {
			t.Fatalf("round trip: %q became %q", line, m.String())
		}
	})
}

// FuzzBoardView plays a few random moves from random setups (the fuzzer's bytes seed the
// choices, structured by gofuzz) and checks that every move offered by a side's view is
// one the engine accepts, and that the view shows the board as the rules say.
func FuzzBoardView(f *testing.F) {
	f.Add([]byte("seed"))
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7})
	f.Fuzz(func(t *testing.T, data []byte) {
		var seed struct {
			A, B  uint64
			Moves uint8
		}
		gofuzz.NewFromGoFuzz(data).Fuzz(&seed)
		r := rand.New(rand.NewPCG(seed.A, seed.B))
		g := New(RandomSetup(r), RandomSetup(r), 0)
		for i := 0; i < int(seed.Moves); i++ {
			if over, _, _ := g.Over(); over {
				return
			}
			view := g.View(g.Turn())
			if len(view) != Size {
				t.Fatalf("a view of %d rows", len(view))
			}
			for y, row := range view {
				for x := range Size {
					if Lake(x, y) != (row[x] == ViewLake) {
						t.Fatalf("(%d,%d) is %q in the view", x, y, row[x])
					}
				}
			}
			for _, m := range ViewMoves(view) {
				if err := g.Check(m); err != nil {
					t.Fatalf("the view offers %s, the engine says %v", m, err)
				}
			}
			if _, err := g.Play(RandomMove(view, r)); err != nil {
				t.Fatal(err)
			}
		}
	})
}
