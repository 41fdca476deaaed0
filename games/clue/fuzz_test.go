package clue

// Native fuzz targets for every parser of the Clue protocol, and a structured one for the
// engine. The parsers' contract: no input makes one panic, and whatever parses prints back
// to exactly the input (the protocol has one way to write each message). Seeds replay in
// every `go test`; run one with
// `go test ./games/clue -run '^$' -fuzz '^FuzzParseState$' -fuzztime 10s`.

import (
	"math/rand/v2"
	"testing"

	gofuzz "github.com/google/gofuzz"
)

// roundTrip checks a parser's contract on s.
func roundTrip[T interface{ String() string }](t *testing.T, s string, parse func(string) (T, error)) {
	v, err := parse(s)
	if err != nil {
		if err.Error() == "" {
			t.Fatalf("%q: an empty error", s)
		}
		return
	}
	if got := v.String(); got != s {
		t.Fatalf("round trip: %q became %q", s, got)
	}
}

func FuzzParseState(f *testing.F) {
	f.Add("((17 24) (24 17) (15 0) (10 0) (0 6) (0 19))")
	f.Add("((U V) (24 17) (15 0) (10 0) (0 6) (U S))")
	f.Add("((17 24) (17 24) (15 0) (10 0) (0 6) (0 19))")
	f.Add("((17 24)(24 17) (15 0) (10 0) (0 6) (0 19))")
	f.Fuzz(func(t *testing.T, s string) {
		roundTrip(t, s, ParseState)
		if st, err := ParseState(s); err == nil {
			if err := st.Check(); err != nil {
				t.Fatalf("%q parsed but does not pass Check: %v", s, err)
			}
		}
	})
}

func FuzzParseDestination(f *testing.F) {
	for _, s := range []string{"(U V)", "(16 19)", "(U S)", "(24 24)", "(25 0)", "(007 1)", "(-1 3)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		roundTrip(t, s, ParseDestination)
		if p, err := ParseDestination(s); err == nil && p.InRoom() && p.Mark != 'V' {
			t.Fatalf("%q: a destination marked %c", s, p.Mark)
		}
	})
}

func FuzzParseTriple(f *testing.F) {
	for _, s := range []string{"(5 rope U)", "(0 candlestick K)", "(rope 5 U)", "(6 rope U)", "(5 Rope U)", "(5 rope S)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { roundTrip(t, s, ParseTriple) })
}

func FuzzParseMessages(f *testing.F) {
	for _, s := range []string{"(0 (rope 3 C))", "(((U V) (24 17) (15 0) (10 0) (0 6) (U S)) 0 (5 rope U) 3)",
		"(((U V) (24 17) (15 0) (10 0) (0 6) (U S)) 0 - -)", "(rope 3)", "(- -)", "12", "0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		roundTrip(t, s, ParseHello)
		roundTrip(t, s, ParseMoved)
		roundTrip(t, s, ParseCounter)
		roundTrip(t, s, func(s string) (Card, error) { return ParseCard(s) })
		if n, err := ParseRolled(s); err == nil && (n == 1 || n > 12) {
			t.Fatalf("%q: roll %d", s, n)
		}
	})
}

// FuzzGame plays whole games between clients whose kinds and seeds the fuzzer picks
// (structured by gofuzz): the reference clients never break a rule, every destination the
// engine offers it accepts, and the game ends.
func FuzzGame(f *testing.F) {
	f.Add([]byte("seed"))
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7})
	f.Fuzz(func(t *testing.T, data []byte) {
		var in struct {
			Seed  uint64
			Kinds [Tokens]uint8
		}
		gofuzz.NewFromGoFuzz(data).Fuzz(&in)
		var kinds [Tokens]string
		for i, k := range in.Kinds {
			kinds[i] = BrainNames[int(k)%len(BrainNames)]
		}
		play(t, in.Seed, kinds)
		// Every destination offered for any roll from any state reached is accepted.
		g := NewGame(in.Seed)
		r := rand.New(rand.NewPCG(in.Seed, 1))
		for range 50 {
			steps := 2 + r.IntN(11)
			opts := g.Board.Destinations(g.Turn, steps)
			if len(opts) == 0 {
				t.Fatalf("no destination for %d from %v", steps, g.Board[g.Turn])
			}
			if _, err := g.Move(steps, opts[r.IntN(len(opts))]); err != nil {
				t.Fatalf("an offered destination refused: %v", err)
			}
			if err := g.Board.Check(); err != nil {
				t.Fatalf("the board after a move: %v", err)
			}
			g.Next()
		}
	})
}
