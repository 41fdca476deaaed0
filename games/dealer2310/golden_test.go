package dealer2310

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"
)

const fixtures = "../../fixtures/dealer2310"

func goldenDir(t *testing.T, dir string) *goldie.Goldie {
	return goldie.New(t, goldie.WithFixtureDir(filepath.Join(fixtures, dir)))
}

func strategiesOf(t *testing.T, names []string) []Strategy {
	t.Helper()
	var out []Strategy
	for _, n := range names {
		s, ok := Strategies[n]
		if !ok {
			t.Fatalf("no strategy %s", n)
		}
		out = append(out, s)
	}
	return out
}

// TestSpecSession plays the spec's example session in-process and compares it with the
// spec: the dealer's stdout (with the padding the notes restore), what player 0 received
// and what it sent. The golden files were written from the spec and notes, not from this
// code.
func TestSpecSession(t *testing.T) {
	deckFile, err := os.ReadFile(filepath.Join(fixtures, "spec", "d1.deck"))
	if err != nil {
		t.Fatal(err)
	}
	pathFile, err := os.ReadFile(filepath.Join(fixtures, "spec", "p1.path"))
	if err != nil {
		t.Fatal(err)
	}
	deck, err := ParseDeckFile(deckFile)
	if err != nil {
		t.Fatal(err)
	}
	path, err := ParsePathFile(pathFile)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Simulate(path, deck, strategiesOf(t, []string{"2310A", "2310A"}))
	if err != nil {
		t.Fatal(err)
	}
	g := goldenDir(t, "spec")
	g.Assert(t, "stdout", []byte(tr.Stdout))
	g.Assert(t, "player0_stdin", []byte(tr.Players[0].Stdin))
	g.Assert(t, "player0_stdout", []byte(tr.Players[0].Stdout))
	if tr.Players[0].Stderr != tr.Stdout || tr.Players[1].Stderr != tr.Stdout {
		t.Errorf("players' stderr differs from the dealer's stdout")
	}
}

// handGame is a game traced by hand from the rules, move by move, before its golden file
// was accepted: the moves (HAP lines), each player's final status line and the scores are
// written here from the trace, and the golden file holds the full transcript.
type handGame struct {
	name    string
	deck    string
	path    string
	players []string
	moves   []string // the HAP lines, in order
	final   []string // each player's status line after its last move
	scores  string
}

var handGames = []handGame{
	{
		// Every player goes straight to the end; B cannot use rule 1 while player 2 is
		// still on site 0, so rule 5 takes it to the barrier.
		name: "two_sites_ABA", deck: "4ABCD", path: "2;::-::-",
		players: []string{"2310A", "2310B", "2310A"},
		moves:   []string{"HAP0,1,0,0,0", "HAP1,1,0,0,0", "HAP2,1,0,0,0"},
		final: []string{
			"Player 0 Money=7 V1=0 V2=0 Points=0 A=0 B=0 C=0 D=0 E=0",
			"Player 1 Money=7 V1=0 V2=0 Points=0 A=0 B=0 C=0 D=0 E=0",
			"Player 2 Money=7 V1=0 V2=0 Points=0 A=0 B=0 C=0 D=0 E=0",
		},
		scores: "Scores: 0,0,0",
	},
	{
		// All B: rule 2 (odd money to Mo), rule 3 (everyone at zero: Ri), rule 1 (all
		// others ahead), rule 4 (V2, capacity 2), rule 5 skipping full sites, Do with odd
		// money (7 -> 3 points), and 6 draws from a 4-card deck (ABCD then AB again).
		name: "allB3_wrap", deck: "4ABCD", path: "8;::-Ri2Mo1V22Ri1Do2Ri3::-",
		players: []string{"2310B", "2310B", "2310B"},
		moves: []string{
			"HAP0,2,0,3,0",  // p0: odd money, Mo at 2
			"HAP1,1,0,0,1",  // p1: Mo full; no cards anywhere: Ri at 1, draws A
			"HAP2,1,0,0,2",  // p2: all others ahead, Ri2 has room: one step, draws B
			"HAP2,3,0,0,0",  // p2 (latest on 1): Mo full, tie on cards: V2
			"HAP1,3,0,0,0",  // p1: V2 has room (capacity 2)
			"HAP0,4,0,0,3",  // p0: V2 full, even money: earliest with room, Ri1, draws C
			"HAP1,5,3,-7,0", // p1 (latest on 3): Ri full: Do, 7 money -> 3 points
			"HAP2,5,3,-7,0", // p2: same
			"HAP0,6,0,0,4",  // p0: Do full: Ri3, draws D
			"HAP2,6,0,0,1",  // p2 (latest on 5): Ri3 has room, draws A (the deck wraps)
			"HAP1,6,0,0,2",  // p1: all others ahead: one step, draws B
			"HAP1,7,0,0,0",  // p1 (latest on 6)
			"HAP2,7,0,0,0",  // p2
			"HAP0,7,0,0,0",  // p0: all others ahead
		},
		final: []string{
			"Player 0 Money=10 V1=0 V2=0 Points=0 A=0 B=0 C=1 D=1 E=0",
			"Player 1 Money=0 V1=0 V2=1 Points=3 A=1 B=1 C=0 D=0 E=0",
			"Player 2 Money=0 V1=0 V2=1 Points=3 A=1 B=1 C=0 D=0 E=0",
		},
		scores: "Scores: 3,7,7", // CD = 3; 3 + 1 + AB 3 = 7; 7
	},
	{
		// A and B with two barriers side by side (sites 4 and 5), Do sites of capacity 1
		// and 2, Mo of capacity 2.
		name: "mixed4_ABAB_barriers", deck: "5BCADE", path: "10;::-Mo2Do1V11::-::-Ri2V21Do2::-",
		players: []string{"2310A", "2310B", "2310A", "2310B"},
		moves: []string{
			"HAP0,2,3,-7,0",  // p0 A: money, Do at 2
			"HAP1,1,0,3,0",   // p1 B: odd money, Mo
			"HAP2,1,0,3,0",   // p2 A: Do full, next site Mo has room
			"HAP3,3,0,0,0",   // p3 B: Mo full, no Ri/V2: earliest with room, V1
			"HAP2,4,0,0,0",   // p2 A (latest on 1): Do full, V1 full: barrier
			"HAP1,4,0,0,0",   // p1 B: even money, rule 5: barrier
			"HAP0,4,0,0,0",   // p0 A: no money, V1 full: barrier
			"HAP3,4,0,0,0",   // p3 B: all others ahead
			"HAP3,5,0,0,0",   // p3 (latest on 4): the barrier beside
			"HAP0,5,0,0,0",   // p0
			"HAP1,5,0,0,0",   // p1
			"HAP2,5,0,0,0",   // p2
			"HAP2,8,5,-10,0", // p2 A (latest on 5): Do at 8, 10 money -> 5 points
			"HAP1,6,0,0,2",   // p1 B: even money, no cards anywhere: Ri, draws B
			"HAP0,7,0,0,0",   // p0 A: no money: V2
			"HAP3,6,0,0,3",   // p3 B: all others ahead: one step, draws C
			"HAP3,8,3,-7,0",  // p3 B (latest on 6): V2 full, cards tied: earliest with room, Do
			"HAP1,9,0,0,0",   // p1 B: 7 and 8 full: barrier
			"HAP0,9,0,0,0",   // p0 A
			"HAP3,9,0,0,0",   // p3 B (latest on 8)
			"HAP2,9,0,0,0",   // p2 A: no money
		},
		final: []string{
			"Player 0 Money=0 V1=0 V2=1 Points=3 A=0 B=0 C=0 D=0 E=0",
			"Player 1 Money=10 V1=0 V2=0 Points=0 A=0 B=1 C=0 D=0 E=0",
			"Player 2 Money=0 V1=0 V2=0 Points=5 A=0 B=0 C=0 D=0 E=0",
			"Player 3 Money=0 V1=1 V2=0 Points=3 A=0 B=0 C=1 D=0 E=0",
		},
		scores: "Scores: 4,1,5,5",
	},
	{
		// Five players, capacities 2 and 3; B with the most cards but no Ri ahead.
		name: "mixed5_BABAB", deck: "4EEAB", path: "6;::-V12Mo3Ri1V22::-",
		players: []string{"2310B", "2310A", "2310B", "2310A", "2310B"},
		moves: []string{
			"HAP0,2,0,3,0", // p0 B: odd money, Mo3
			"HAP1,1,0,0,0", // p1 A: closest V1
			"HAP2,2,0,3,0", // p2 B: Mo3 has room
			"HAP3,1,0,0,0", // p3 A: V12 has room
			"HAP4,2,0,3,0", // p4 B: V1 full (rule 1 fails), Mo3 has room
			"HAP3,4,0,0,0", // p3 A (latest on 1): Mo full: V2
			"HAP1,4,0,0,0", // p1 A: V22 has room
			"HAP4,3,0,0,5", // p4 B (latest on 2): no cards anywhere: Ri, draws E
			"HAP2,5,0,0,0", // p2 B: Ri and V2 full: barrier
			"HAP0,5,0,0,0", // p0 B
			"HAP4,5,0,0,0", // p4 B: most cards but no Ri ahead, V2 full: barrier
			"HAP1,5,0,0,0", // p1 A (latest on 4)
			"HAP3,5,0,0,0", // p3 A
		},
		final: []string{
			"Player 0 Money=10 V1=0 V2=0 Points=0 A=0 B=0 C=0 D=0 E=0",
			"Player 1 Money=7 V1=1 V2=1 Points=0 A=0 B=0 C=0 D=0 E=0",
			"Player 2 Money=10 V1=0 V2=0 Points=0 A=0 B=0 C=0 D=0 E=0",
			"Player 3 Money=7 V1=1 V2=1 Points=0 A=0 B=0 C=0 D=0 E=0",
			"Player 4 Money=10 V1=0 V2=0 Points=0 A=0 B=0 C=0 D=0 E=1",
		},
		scores: "Scores: 0,2,0,2,1",
	},
	{
		// Six players: A on Do (capacity 2) and barriers, B with the most cards taking Ri
		// after a barrier, V2 of capacity 3 filling up.
		name: "mixed6_ABBABA", deck: "4BDCA", path: "8;::-Ri3Do2Mo2::-V23Ri2::-",
		players: []string{"2310A", "2310B", "2310B", "2310A", "2310B", "2310A"},
		moves: []string{
			"HAP0,2,3,-7,0", // p0 A: Do
			"HAP1,3,0,3,0",  // p1 B: odd money, Mo
			"HAP2,3,0,3,0",  // p2 B: Mo2 has room
			"HAP3,2,3,-7,0", // p3 A: Do2 has room
			"HAP4,1,0,0,2",  // p4 B: Mo full, no cards anywhere: Ri, draws B
			"HAP5,4,0,0,0",  // p5 A: Do full, next is Ri: barrier
			"HAP4,4,0,0,0",  // p4 B: most cards, no Ri ahead; 2 and 3 full: barrier
			"HAP3,4,0,0,0",  // p3 A (latest on 2): no money, Mo full: barrier
			"HAP0,4,0,0,0",  // p0 A
			"HAP2,4,0,0,0",  // p2 B (latest on 3): even money: barrier
			"HAP1,4,0,0,0",  // p1 B: all others ahead
			"HAP1,5,0,0,0",  // p1 B (latest on 4): fewer cards than p4: V2
			"HAP2,5,0,0,0",  // p2 B: V2
			"HAP0,5,0,0,0",  // p0 A: V23 has room
			"HAP3,7,0,0,0",  // p3 A: V2 full: barrier
			"HAP4,6,0,0,4",  // p4 B: most cards: Ri, draws D
			"HAP5,7,0,0,0",  // p5 A: V2 full: barrier
			"HAP0,7,0,0,0",  // p0 A (latest on 5)
			"HAP2,6,0,0,3",  // p2 B: fewer cards: rule 5, Ri2 has room, draws C
			"HAP1,7,0,0,0",  // p1 B: Ri full: barrier
			"HAP2,7,0,0,0",  // p2 B (latest on 6)
			"HAP4,7,0,0,0",  // p4 B: all others ahead
		},
		final: []string{
			"Player 0 Money=0 V1=0 V2=1 Points=3 A=0 B=0 C=0 D=0 E=0",
			"Player 1 Money=10 V1=0 V2=1 Points=0 A=0 B=0 C=0 D=0 E=0",
			"Player 2 Money=10 V1=0 V2=1 Points=0 A=0 B=0 C=1 D=0 E=0",
			"Player 3 Money=0 V1=0 V2=0 Points=3 A=0 B=0 C=0 D=0 E=0",
			"Player 4 Money=7 V1=0 V2=0 Points=0 A=0 B=1 C=0 D=1 E=0",
			"Player 5 Money=7 V1=0 V2=0 Points=0 A=0 B=0 C=0 D=0 E=0",
		},
		scores: "Scores: 4,1,2,3,3,0",
	},
	{
		// One B player: rule 1 holds vacuously at every step.
		name: "solo_B", deck: "4ABCD", path: "5;::-Mo1Ri1V21::-",
		players: []string{"2310B"},
		moves:   []string{"HAP0,1,0,3,0", "HAP0,2,0,0,1", "HAP0,3,0,0,0", "HAP0,4,0,0,0"},
		final:   []string{"Player 0 Money=10 V1=0 V2=1 Points=0 A=1 B=0 C=0 D=0 E=0"},
		scores:  "Scores: 2",
	},
}

// twoSitesStdout is the dealer's stdout of two_sites_ABA, written by hand.
const twoSitesStdout = `:: :: 
2     
1     
0     
Player 0 Money=7 V1=0 V2=0 Points=0 A=0 B=0 C=0 D=0 E=0
:: :: 
2  0  
1     
Player 1 Money=7 V1=0 V2=0 Points=0 A=0 B=0 C=0 D=0 E=0
:: :: 
2  0  
   1  
Player 2 Money=7 V1=0 V2=0 Points=0 A=0 B=0 C=0 D=0 E=0
:: :: 
   0  
   1  
   2  
Scores: 0,0,0
`

func TestHandGames(t *testing.T) {
	g := goldenDir(t, "games")
	for _, hg := range handGames {
		t.Run(hg.name, func(t *testing.T) {
			tr, err := Simulate(mustPath(t, hg.path), mustDeck(t, hg.deck), strategiesOf(t, hg.players))
			if err != nil {
				t.Fatal(err)
			}
			if got := tr.Moves(); strings.Join(got, "\n") != strings.Join(hg.moves, "\n") {
				t.Errorf("moves:\n%s\nhand trace:\n%s", strings.Join(got, "\n"), strings.Join(hg.moves, "\n"))
			}
			lines := strings.Split(strings.TrimSuffix(tr.Stdout, "\n"), "\n")
			if last := lines[len(lines)-1]; last != hg.scores {
				t.Errorf("last line %q, want %q", last, hg.scores)
			}
			for p, want := range hg.final {
				got := ""
				prefix := fmt.Sprintf("Player %d ", p)
				for _, l := range lines {
					if strings.HasPrefix(l, prefix) {
						got = l
					}
				}
				if got != want {
					t.Errorf("final status of player %d:\n got %s\nwant %s", p, got, want)
				}
			}
			for p, pt := range tr.Players {
				if pt.Status != 0 || pt.Stderr != tr.Stdout {
					t.Errorf("player %d: status %d, stderr equal to the dealer's stdout: %v", p, pt.Status, pt.Stderr == tr.Stdout)
				}
				if !strings.HasPrefix(pt.Stdin, hg.path+"\n") || !strings.HasSuffix(pt.Stdin, "\nDONE\n") {
					t.Errorf("player %d's input does not run from the path to DONE", p)
				}
			}
			if hg.name == "two_sites_ABA" && tr.Stdout != twoSitesStdout {
				t.Errorf("stdout:\n%s\nwant (by hand):\n%s", tr.Stdout, twoSitesStdout)
			}
			g.Assert(t, hg.name, []byte(render(hg, tr)))
		})
	}
}

// render writes a transcript as a golden file: the inputs, the dealer's stdout, and each
// player's input and output. The players' stderr is left out: it equals the dealer's
// stdout, which the test checks.
func render(hg handGame, tr Transcript) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# deck: %s\n# path: %s\n# players: %s\n", hg.deck, hg.path, strings.Join(hg.players, " "))
	fmt.Fprintf(&b, "== dealer stdout (exit %d)\n%s", tr.Status, tr.Stdout)
	for i, p := range tr.Players {
		fmt.Fprintf(&b, "== player %d (%s) stdin\n%s", i, hg.players[i], p.Stdin)
		fmt.Fprintf(&b, "== player %d stdout (exit %d)\n%s\n", i, p.Status, p.Stdout)
	}
	return b.String()
}
