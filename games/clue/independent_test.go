package clue

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// An independent reading of Clue's suggestion and accusation rules (docs/clue.md), without
// the engine's code: cards by their protocol names (a suspect's token number, a weapon, a
// room letter), hands as sets of names, the disprover found by walking the seats after the
// suggester in turn order. It checks every suggestion and accusation of many seeded whole
// games the engine's server plays (the account it logs), so that the expectations of the
// Clue suites do not rest on the engine they test.

// cardName is a card's protocol name from its number, as docs/clue.md numbers them: the
// six suspects 0-5, then the weapons, then the rooms in this order.
func cardName(c int) string {
	weapons := []string{"candlestick", "knife", "pipe", "revolver", "rope", "wrench"}
	rooms := "KBCDRLUHT"
	switch {
	case c < 6:
		return fmt.Sprint(c)
	case c < 12:
		return weapons[c-6]
	}
	return string(rooms[c-12])
}

var (
	moveLine    = regexp.MustCompile(`^(\w+) (?:rolled \d+|did not roll): \((\S+) (\S+)\)$`)
	suggestLine = regexp.MustCompile(`^(\w+) suggested \((\S+) (\S+) (\S+)\): (?:not disproved|disproved by (\w+) with (\S+))$`)
	accuseLine  = regexp.MustCompile(`^(\w+) accused \((\S+) (\S+) (\S+)\): (right|wrong)$`)
)

func TestIndependentSuggestionsAndAccusations(t *testing.T) {
	names := []string{"Scarlet", "Mustard", "White", "Green", "Peacock", "Plum"}
	seat := map[string]int{}
	for i, n := range names {
		seat[n] = i
	}
	mixes := [][Tokens]string{
		{"random", "sensible", "leech", "strong", "sensible", "random"},
		{"strong", "strong", "sensible", "sensible", "random", "leech"},
	}
	suggestions, disproved, accusations := 0, 0, 0
	for seed := range uint64(60) {
		sol, hands := Deal(seed)
		// The deal: six hands of three, with the solution, every card exactly once.
		held := [Tokens]map[string]bool{}
		seen := map[string]int{}
		for _, c := range sol.Cards() {
			seen[cardName(int(c))]++
		}
		for s, h := range hands {
			held[s] = map[string]bool{}
			if len(h) != 3 {
				t.Fatalf("seed %d: seat %d was dealt %d cards", seed, s, len(h))
			}
			for _, c := range h {
				held[s][cardName(int(c))] = true
				seen[cardName(int(c))]++
			}
		}
		if len(seen) != 21 {
			t.Fatalf("seed %d: the deal covers %d of the 21 cards", seed, len(seen))
		}
		solution := []string{}
		for _, c := range sol.Cards() {
			solution = append(solution, cardName(int(c)))
		}
		g := play(t, seed, mixes[seed%2])
		room := map[string]string{} // where each token's own move left it: "L V"
		for _, l := range g.Log() {
			if m := moveLine.FindStringSubmatch(l); m != nil {
				room[m[1]] = m[2] + " " + m[3]
				continue
			}
			if m := suggestLine.FindStringSubmatch(l); m != nil {
				suggestions++
				who, tr := seat[m[1]], m[2:5]
				// A suggestion names the room the suggester's move ended in.
				if !strings.HasPrefix(room[m[1]], tr[2]+" ") {
					t.Fatalf("seed %d: %q, but %s's move ended at (%s)", seed, l, m[1], room[m[1]])
				}
				want := -1
				for i := 1; i < Tokens && want < 0; i++ {
					d := (who + i) % Tokens
					for _, c := range tr {
						if held[d][c] {
							want = d
						}
					}
				}
				switch {
				case want < 0 && m[5] != "":
					t.Fatalf("seed %d: %q: nobody else holds one of the three", seed, l)
				case want >= 0 && m[5] != names[want]:
					t.Fatalf("seed %d: %q: the first after %s holding one is %s", seed, l, m[1], names[want])
				case want >= 0 && (!held[want][m[6]] || (m[6] != tr[0] && m[6] != tr[1] && m[6] != tr[2])):
					t.Fatalf("seed %d: %q: %s showed a card it does not hold or not of the suggestion", seed, l, m[5])
				}
				if want >= 0 {
					disproved++
				}
				continue
			}
			if m := accuseLine.FindStringSubmatch(l); m != nil {
				accusations++
				right := m[2] == solution[0] && m[3] == solution[1] && m[4] == solution[2]
				if right != (m[5] == "right") {
					t.Fatalf("seed %d: %q, the solution is %v", seed, l, solution)
				}
			}
		}
	}
	if suggestions < 500 || disproved == suggestions || disproved == 0 || accusations < 60 {
		t.Errorf("only %d suggestions (%d disproved) and %d accusations checked", suggestions, disproved, accusations)
	}
	t.Logf("%d suggestions (%d disproved), %d accusations", suggestions, disproved, accusations)
}
