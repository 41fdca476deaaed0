package dealer2310

import "testing"

// The benchmark game: 30 sites with barriers at 0, 8, 15, 24 and 29, six players
// alternating 2310A and 2310B.
const (
	benchPath = "30;::-Mo2V12Ri2Do2V22Mo1Ri1::-V13Do1Mo2Ri3V21V12::-Mo3Ri2Do2V22V11Mo1Ri1Do1::-Ri2V23Mo2Do3::-"
	benchDeck = "12ABCDEABCDEAB"
)

var benchPlayers = []string{"2310A", "2310B", "2310A", "2310B", "2310A", "2310B"}

// BenchmarkSimulate30x6 plays whole games in-process as the programs would: the dealer's
// conversation, six players following HAP messages, every line formatted and parsed and
// every display rendered (by the dealer and by each player).
func BenchmarkSimulate30x6(b *testing.B) {
	path, deck := mustPath(b, benchPath), mustDeck(b, benchDeck)
	var ss []Strategy
	for _, n := range benchPlayers {
		ss = append(ss, Strategies[n])
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Simulate(path, deck, ss); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEngine30x6 plays whole games with the engine alone: the strategies choose on
// the dealer's game and Move applies, with no messages and no display.
func BenchmarkEngine30x6(b *testing.B) {
	path, deck := mustPath(b, benchPath), mustDeck(b, benchDeck)
	var ss []Strategy
	for _, n := range benchPlayers {
		ss = append(ss, Strategies[n])
	}
	b.ReportAllocs()
	for b.Loop() {
		g, err := New(path, deck, len(ss))
		if err != nil {
			b.Fatal(err)
		}
		for p := g.Next(); p >= 0; p = g.Next() {
			if _, err := g.Move(ss[p](&g, p)); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func TestBenchGameCompletes(t *testing.T) {
	var ss []Strategy
	for _, n := range benchPlayers {
		ss = append(ss, Strategies[n])
	}
	tr, err := Simulate(mustPath(t, benchPath), mustDeck(t, benchDeck), ss)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tr.Moves()); n < 6*4 {
		t.Errorf("only %d moves", n)
	}
}
