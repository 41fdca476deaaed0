package blackbox

import (
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gauntlet/fuzz/pipegame"
	dl "gauntlet/games/dealer2310"
	"gauntlet/games/judge"
	st "gauntlet/games/stlucia"
	"gauntlet/harness/judges/faults"
)

// parsers says, for each game, whether a line is a well-formed hub-to-player message (the
// first line of a dealer2310 conversation is the path).
var parsers = map[string]func(line string) bool{
	"stlucia": func(line string) bool { _, err := st.ParseMsg(line); return err == nil },
	"dealer2310": func(line string) bool {
		_, perr := dl.ParsePath(line)
		_, merr := dl.ParseDealerMsg(line)
		return perr == nil || merr == nil
	},
}

// TestAdapters checks each game's adapter against its codec, over many random draws:
// conversations are well formed and end with the player's exit; Malformed lines never
// parse; Boundary and Message lines always do; Solicits marks exactly the lines the
// conversations answer; setups are finite games.
func TestAdapters(t *testing.T) {
	for _, name := range pipegame.Games() {
		g, _ := pipegame.Lookup(name)
		parses := parsers[name]
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			for i := 0; i < 100; i++ {
				player := pipegame.Pick(r, g.Players()...)
				args, events, err := g.Conversation(r, player)
				if err != nil {
					t.Fatal(err)
				}
				if len(args) != 2 || len(events) == 0 {
					t.Fatalf("conversation %q with %d events", args, len(events))
				}
				var lines []string
				for k, e := range events {
					if e.FromPlayer {
						continue
					}
					if !parses(e.Text) {
						t.Fatalf("the engine's line %q does not parse", e.Text)
					}
					answered := k+1 < len(events) && events[k+1].FromPlayer
					if g.Solicits(e.Text) != answered {
						t.Fatalf("Solicits(%q) = %v, but the conversation answers it: %v", e.Text, !answered, answered)
					}
					lines = append(lines, e.Text)
				}
				for _, l := range lines {
					if bad := g.Malformed(r, l); parses(bad) {
						t.Errorf("Malformed(%q) = %q parses", l, bad)
					}
					if edge := g.Boundary(r, l, args); !parses(edge) {
						t.Errorf("Boundary(%q) = %q does not parse", l, edge)
					}
				}
				if m := g.Message(r, args); !parses(m) {
					t.Errorf("Message = %q does not parse", m)
				}
				if s := g.Setup(r); !g.Finite(s) || len(s.Players) == 0 || len(s.Files) == 0 {
					t.Errorf("Setup = %+v", s)
				}
			}
		})
	}
}

// TestMutationsDeterministic: every mutation kind applies to a conversation, and the same
// seed gives the same mutated case.
func TestMutationsDeterministic(t *testing.T) {
	for _, name := range pipegame.Games() {
		g, _ := pipegame.Lookup(name)
		for _, kind := range PlayerMutations {
			build := func() *PlayerCase {
				r := rand.New(rand.NewPCG(7, 7))
				args, events, err := g.Conversation(r, g.Players()[0])
				if err != nil {
					t.Fatal(err)
				}
				c := NewPlayerCase(g.Players()[0], args, events)
				if !c.Mutate(g, r, kind) {
					t.Fatalf("%s: %s did not apply", name, kind)
				}
				return c
			}
			a, b := build(), build()
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s %s: two cases from one seed differ", name, kind)
			}
			if a.Kind != kind || len(a.Notes) != 1 {
				t.Errorf("%s %s: kind %q notes %q", name, kind, a.Kind, a.Notes)
			}
		}
		for _, kind := range HubFaults {
			r := rand.New(rand.NewPCG(7, 7))
			c := NewHubCase(g.Setup(r))
			if !c.Mutate(g, r, kind) || c.Kind != kind {
				t.Errorf("%s: hub fault %s did not apply", name, kind)
			}
			if kind != "args" {
				n := 0
				for _, f := range c.Faults {
					n += len(f)
				}
				if n == 0 {
					t.Errorf("%s: hub fault %s gave no rule", name, kind)
				}
			}
		}
	}
}

// TestNewPlayerCase: the hub's lines become steps, waiting where the player answered.
func TestNewPlayerCase(t *testing.T) {
	c := NewPlayerCase("EAIT", []string{"2", "B"}, []judge.Line{
		{Text: "rolled A 123333"}, {Text: "turn 111AAA"}, {FromPlayer: true, Text: "reroll AAA"},
		{Text: "rerolled 1111HA"}, {FromPlayer: true, Text: "reroll HA"}, {Text: "winner B"},
	})
	want := []Step{{Op: OpSend, Text: "rolled A 123333"}, {Op: OpSend, Text: "turn 111AAA", Await: true},
		{Op: OpSend, Text: "rerolled 1111HA", Await: true}, {Op: OpSend, Text: "winner B"}}
	if !reflect.DeepEqual(c.Steps, want) {
		t.Errorf("steps %+v, want %+v", c.Steps, want)
	}
}

func TestHubFaultRulesParse(t *testing.T) {
	for _, name := range pipegame.Games() {
		g, _ := pipegame.Lookup(name)
		r := rand.New(rand.NewPCG(3, 3))
		for i := 0; i < 200; i++ {
			kind := pipegame.Pick(r, HubFaults...)
			if kind == "args" {
				continue
			}
			for _, rule := range hubFault(g, r, kind) {
				if strings.Contains(rule, "'") {
					t.Errorf("rule %q holds a single quote", rule)
				}
				if _, err := faults.Parse(rule); err != nil {
					t.Errorf("%s rule %q: %v", kind, rule, err)
				}
			}
		}
	}
}

// TestSmaller: the minimiser's smaller inputs keep a dealer2310 deck and path valid (with
// their counts right) and cut a roll file as a stream of dice.
func TestSmaller(t *testing.T) {
	s := HubSetup{Files: map[string]string{"game.deck": "6ABCDEA\n", "game.path": "5;::-Mo1V11::-::-\n"}}
	g, _ := pipegame.Lookup("dealer2310")
	decks, paths := map[string]bool{}, map[string]bool{}
	for _, v := range g.Smaller(s) {
		if _, err := dl.ParseDeckFile([]byte(v.Files["game.deck"])); err != nil {
			t.Errorf("deck %q: %v", v.Files["game.deck"], err)
		}
		if _, err := dl.ParsePathFile([]byte(v.Files["game.path"])); err != nil {
			t.Errorf("path %q: %v", v.Files["game.path"], err)
		}
		decks[v.Files["game.deck"]], paths[v.Files["game.path"]] = true, true
	}
	for _, want := range []string{"5BCDEA\n", "5ACDEA\n", "5ABCDE\n"} {
		if !decks[want] {
			t.Errorf("no deck %q among %v", want, decks)
		}
	}
	for _, want := range []string{"4;::-V11::-::-\n", "4;::-Mo1::-::-\n", "4;::-Mo1V11::-\n"} {
		if !paths[want] {
			t.Errorf("no path %q among %v", want, paths)
		}
	}
	g, _ = pipegame.Lookup("stlucia")
	vs := g.Smaller(HubSetup{Files: map[string]string{"game.roll": "12\nHA\n"}})
	var got []string
	for _, v := range vs {
		got = append(got, v.Files["game.roll"])
	}
	// Runs of 2 ("12", "\nH", "A"), then single bytes; the final newline stays.
	want := []string{"\nHA\n", "12A\n", "12\nH\n", "2\nHA\n", "1\nHA\n", "12HA\n", "12\nA\n", "12\nH\n"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("roll files %q, want %q", got, want)
	}
}

// The adapters' lists of reference players are the engines' strategies, no more, no less
// (the lists keep their order, which seeds depend on).
func TestAdapterPlayersAreTheEnginesStrategies(t *testing.T) {
	for name, strategies := range map[string][]string{"dealer2310": keys(dl.Strategies), "stlucia": keys(st.Strategies)} {
		got := slices.Sorted(slices.Values(game(t, name).Players()))
		if !slices.Equal(got, strategies) {
			t.Errorf("%s: players %v, the engine's strategies %v", name, got, strategies)
		}
	}
}

func keys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
