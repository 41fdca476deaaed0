package clue

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"gauntlet/games/judge"
)

// The assignment's own example lines parse and print back byte for byte.
func TestAssignmentExamples(t *testing.T) {
	h, err := ParseHello("(0 (rope 3 C))")
	if err != nil || h.Token != 0 || h.String() != "(0 (rope 3 C))" {
		t.Errorf("hello: %v %v", h, err)
	}
	const moved = "(((U V) (24 17) (15 0) (10 0) (0 6) (U S)) 0 (5 rope U) 3)"
	m, err := ParseMoved(moved)
	if err != nil {
		t.Fatal(err)
	}
	if m.Mover != 0 || m.Disprover != 3 || *m.Suggestion != (Triple{5, 4, 'U'}) || m.String() != moved {
		t.Errorf("moved: %+v %q", m, m.String())
	}
	if s := InitialState().String(); s != "((17 24) (24 17) (15 0) (10 0) (0 6) (0 19))" {
		t.Errorf("initial state %s", s)
	}
	for _, d := range []string{"(U V)", "(16 19)"} {
		if p, err := ParseDestination(d); err != nil || p.String() != d {
			t.Errorf("destination %q: %v %v", d, p, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	bad := map[string]func(string) error{
		"(0 (rope 3))":      func(s string) error { _, err := ParseHello(s); return err },
		"(0 (rope rope C))": func(s string) error { _, err := ParseHello(s); return err },
		"(6 (rope 3 C))":    func(s string) error { _, err := ParseHello(s); return err },
		"(0  (rope 3 C))":   func(s string) error { _, err := ParseHello(s); return err },
		"(U S)":             func(s string) error { _, err := ParseDestination(s); return err },
		"(25 3)":            func(s string) error { _, err := ParseDestination(s); return err },
		"(03 3)":            func(s string) error { _, err := ParseDestination(s); return err },
		"(S V)":             func(s string) error { _, err := ParseDestination(s); return err },
		"(rope 5 U)":        func(s string) error { _, err := ParseTriple(s); return err },
		"(5 rope U )":       func(s string) error { _, err := ParseTriple(s); return err },
		"(5 rope)":          func(s string) error { _, err := ParseTriple(s); return err },
		"(- 3)":             func(s string) error { _, err := ParseCounter(s); return err },
		"1":                 func(s string) error { _, err := ParseRolled(s); return err },
		"13":                func(s string) error { _, err := ParseRolled(s); return err },
		"((17 24) (17 24) (15 0) (10 0) (0 6) (0 19))": func(s string) error { _, err := ParseState(s); return err },
		"((0 0) (24 17) (15 0) (10 0) (0 6) (0 19))":   func(s string) error { _, err := ParseState(s); return err },
		"((17 24) (24 17) (15 0) (10 0) (0 6) (0 6))":  func(s string) error { _, err := ParseState(s); return err },
	}
	for s, f := range bad {
		if f(s) == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

func TestDestinations(t *testing.T) {
	s := InitialState()
	// Scarlet at (17 24): two steps reach (17 22), (17 23), (18 23) or nowhere; (16 23) is the Library.
	var got []string
	for _, p := range s.Destinations(0, 2) {
		got = append(got, p.String())
	}
	if want := "(17 22) (17 23) (17 24) (18 23)"; strings.Join(got, " ") != want {
		t.Errorf("Scarlet with 2: %s, want %s", strings.Join(got, " "), want)
	}
	// From (18 21), the Study's door, one step enters the Study.
	s[0] = Cell(18, 21)
	if !s.CanReach(0, 2, InRoom('T', 'V')) || s.CanReach(0, 2, InRoom('H', 'V')) {
		t.Error("door (18 21) should open into the Study only")
	}
	// Another token on the only way blocks it; start squares are never entered again.
	s[1] = Cell(23, 17)
	s[0] = Cell(22, 17)
	if s.CanReach(0, 3, Cell(24, 17)) || s.CanReach(0, 3, Cell(23, 17)) {
		t.Error("moved onto a start square or another token")
	}
	// No roll: stay or take the passage; not from a corridor.
	s[0] = InRoom('K', 'V')
	if d := s.Destinations(0, 0); len(d) != 2 || d[1] != InRoom('T', 'V') {
		t.Errorf("no roll from the Kitchen: %v", d)
	}
	s[0] = Cell(7, 3)
	if d := s.Destinations(0, 0); d != nil {
		t.Errorf("no roll from a corridor: %v", d)
	}
	// Through walls never: (7 3) is one step from the Kitchen, far from the Lounge.
	if !s.CanReach(0, 2, InRoom('K', 'V')) || s.CanReach(0, 12, InRoom('U', 'V')) {
		t.Error("walls")
	}
}

func TestDeal(t *testing.T) {
	sol, hands := Deal(7)
	seen := map[Card]bool{}
	for _, c := range sol.Cards() {
		seen[c] = true
	}
	for _, h := range hands {
		if len(h) != HandSize {
			t.Fatalf("hand %v", h)
		}
		for _, c := range h {
			if seen[c] {
				t.Fatalf("%v dealt twice", c)
			}
			seen[c] = true
		}
	}
	if len(seen) != Cards {
		t.Errorf("%d cards dealt", len(seen))
	}
	if sol2, hands2 := Deal(7); sol2 != sol || fmt.Sprint(hands2) != fmt.Sprint(hands) {
		t.Error("the same seed dealt differently")
	}
}

// play plays a whole game in process between the named strategies.
func play(t testing.TB, seed uint64, kinds [Tokens]string) judge.Game {
	j := NewServer(ServerOptions{Seed: seed, EndOnViolation: true})
	rs := make([]judge.Responder, Tokens)
	for i, k := range kinds {
		rs[i] = NewClient(k, NewBrain(k, rand.New(rand.NewPCG(seed, uint64(i)))))
	}
	g, err := judge.Play(j, rs, 100000)
	if err != nil {
		t.Fatal(err)
	}
	if g.Violation != nil {
		t.Fatalf("seed %d: %v", seed, g.Violation)
	}
	for s, x := range g.Exits {
		if x.Done && x.Status != 0 {
			t.Fatalf("seed %d: seat %d exited %d: %s", seed, s, x.Status, g.Stderr[s])
		}
	}
	return g
}

func TestWholeGames(t *testing.T) {
	mix := [Tokens]string{"random", "sensible", "leech", "strong", "sensible", "random"}
	for seed := range uint64(20) {
		g := play(t, seed, mix)
		log := g.Log()
		if len(log) < 2 || !strings.HasPrefix(log[len(log)-1], "solution ") {
			t.Fatalf("seed %d: log ends %q", seed, log[len(log)-2:])
		}
		again := play(t, seed, mix)
		if fmt.Sprint(again.Events) != fmt.Sprint(g.Events) {
			t.Fatalf("seed %d: not the same game twice", seed)
		}
	}
}

// The strong client wins most games against the others, whatever its seat.
func TestStrongWins(t *testing.T) {
	games := 200
	if testing.Short() {
		games = 40
	}
	wins, ends := 0, map[string]int{}
	for i := range games {
		kinds := [Tokens]string{"random", "sensible", "leech", "sensible", "random", "leech"}
		seat := i % Tokens
		kinds[seat] = "strong"
		g := play(t, uint64(i), kinds)
		log := g.Log()
		w := log[len(log)-2]
		ends[w]++
		if w == "winner "+Suspects[seat] {
			wins++
		}
	}
	t.Logf("strong won %d of %d games", wins, games)
	if wins*2 <= games {
		t.Errorf("strong won %d of %d games: %v", wins, games, ends)
	}
}

// docs/clue.md: a suggestion marks the suggested token S in the room also when it was
// already there (V), and a token that names itself keeps its V.
func TestSuggestionMarksATokenAlreadyInTheRoom(t *testing.T) {
	g := NewGame(1)
	g.Turn = 0
	g.Board[0] = InRoom('U', 'V')
	g.Board[5] = InRoom('U', 'V')
	if _, err := g.Suggest(Triple{Suspect: 5, Weapon: 0, Room: 'U'}); err != nil {
		t.Fatal(err)
	}
	if g.Board[5] != InRoom('U', 'S') {
		t.Errorf("Plum, already in the Lounge, is %v after the suggestion, want (U S)", g.Board[5])
	}
	if _, err := g.Suggest(Triple{Suspect: 0, Weapon: 0, Room: 'U'}); err != nil {
		t.Fatal(err)
	}
	if g.Board[0] != InRoom('U', 'V') {
		t.Errorf("Scarlet, naming herself, is %v, want (U V)", g.Board[0])
	}
}
