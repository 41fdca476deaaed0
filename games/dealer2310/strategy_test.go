package dealer2310

import "testing"

type strategyCase struct {
	name string
	n    int
	haps []string // applied to the start position; "HAPp,0,0,m,c" sets money or cards in place
	me   int
	want int
}

func runStrategyCases(t *testing.T, s Strategy, path string, tests []strategyCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := setup(t, path, "", tc.n, tc.haps...)
			if got := s(&g, tc.me); got != tc.want {
				t.Errorf("move = %d, want %d", got, tc.want)
			}
			if tc.want >= 0 {
				if err := g.CheckMove(tc.me, tc.want); err != nil {
					t.Errorf("the strategy chose an illegal move: %v", err)
				}
			}
		})
	}
}

func TestStrategyA(t *testing.T) {
	// 0 ::, 1 Mo1, 2 Do1, 3 V11, 4 Ri1, 5 V21, 6 ::, 7 Do1, 8 ::
	const path = "9;::-Mo1Do1V11Ri1V21::-Do1::-"
	runStrategyCases(t, StrategyA, path, []strategyCase{
		{"1: money and a Do ahead, before the next Mo", 2, nil, 0, 2},
		{"1: any money will do", 2, []string{"HAP0,0,0,-6,0"}, 0, 2},
		{"1: Do full, 2: next site is Mo", 2, []string{"HAP1,2,0,0,0"}, 0, 1},
		{"2: no money, next site is Mo", 2, []string{"HAP0,0,0,-7,0"}, 0, 1},
		{"3: no money, Mo full: closest V1", 2, []string{"HAP0,0,0,-7,0", "HAP1,1,0,0,0"}, 0, 3},
		{"3: Ri is never chosen; Do past the barrier ignored", 2, []string{"HAP0,3,0,0,0"}, 0, 5},
		{"3: V2 full: the barrier", 2, []string{"HAP0,3,0,0,0", "HAP1,5,0,0,0"}, 0, 6},
		{"3: V1 full, V2 next", 2, []string{"HAP0,2,0,0,0", "HAP1,3,0,0,0"}, 0, 5},
		{"2: Mo must be the next site", 2, []string{"HAP0,2,3,-7,0"}, 0, 3},
		{"1: Do right after a barrier", 2, []string{"HAP0,6,0,0,0"}, 0, 7},
		{"3: no money after a barrier", 2, []string{"HAP0,6,0,-7,0"}, 0, 8},
		{"at the end: no move", 2, []string{"HAP0,8,0,0,0"}, 0, -1},
	})
	// Barriers side by side: the only move is the next barrier.
	runStrategyCases(t, StrategyA, "5;::-Do1::-::-::-", []strategyCase{
		{"barrier beside a barrier", 1, []string{"HAP0,2,0,0,0"}, 0, 3},
		{"Do before the barrier", 1, nil, 0, 1},
	})
	runStrategyCases(t, StrategyA, "2;::-::-", []strategyCase{
		{"two sites", 3, nil, 0, 1},
	})
}

func TestStrategyB(t *testing.T) {
	// 0 ::, 1 Mo1, 2 Ri2, 3 V22, 4 Mo1, 5 Do1, 6 ::, 7 Ri1, 8 ::
	const path = "9;::-Mo1Ri2V22Mo1Do1::-Ri1::-"
	runStrategyCases(t, StrategyB, path, []strategyCase{
		{"1: all others ahead, next has room", 3, []string{"HAP0,0,0,1,0", "HAP1,2,0,0,0", "HAP2,3,0,0,0"}, 0, 1},
		{"1: next full: falls through to 3", 3, []string{"HAP0,0,0,1,0", "HAP1,1,0,0,0", "HAP2,3,0,0,0"}, 0, 2},
		{"1: someone on my site is not ahead", 3, []string{"HAP0,0,0,1,0", "HAP2,3,0,0,0"}, 0, 2},
		{"1: alone, everyone else is vacuously ahead", 1, []string{"HAP0,0,0,1,0"}, 0, 1},
		{"1: the next site may be a barrier", 2, []string{"HAP0,5,0,0,0", "HAP1,7,0,0,0"}, 0, 6},
		{"2: odd money, closest Mo", 3, nil, 0, 1},
		{"2: odd money, first Mo full: the next Mo", 3, []string{"HAP1,1,0,0,0"}, 0, 4},
		{"2: odd money, every Mo full: 3", 3, []string{"HAP1,1,0,0,0", "HAP2,4,0,0,0"}, 0, 2},
		{"2: even money skips Mo: 3", 3, []string{"HAP0,0,0,1,0"}, 0, 2},
		{"3: strictly most cards", 3, []string{"HAP0,0,0,1,1"}, 0, 2},
		{"3: most cards counts all kinds", 3, []string{"HAP0,0,0,1,1", "HAP0,0,0,0,2", "HAP1,0,0,0,3"}, 0, 2},
		{"3: a tie is not most: 4", 3, []string{"HAP0,0,0,1,1", "HAP1,0,0,0,2"}, 0, 3},
		{"3: fewer cards: 4", 3, []string{"HAP0,0,0,1,0", "HAP1,0,0,0,2"}, 0, 3},
		{"3: most cards but Ri full: 4", 3, []string{"HAP0,1,0,1,1", "HAP1,2,0,0,0", "HAP2,2,0,0,0"}, 0, 3},
		{"3: Ri past the barrier ignored: 5, the earliest with room", 3, []string{"HAP0,3,0,1,0"}, 0, 4},
		{"4: V2 full: 5 takes the earliest with room", 3, []string{"HAP0,2,0,1,0", "HAP1,3,0,0,1", "HAP2,3,0,0,0"}, 0, 4},
		{"5: every site full: the barrier", 3, []string{"HAP0,3,0,1,0", "HAP1,4,0,0,1", "HAP2,5,0,0,0"}, 0, 6},
		{"3: after the barrier, everyone at zero", 3, []string{"HAP0,6,0,1,0"}, 0, 7},
		{"at the end: no move", 3, []string{"HAP0,8,0,0,0"}, 0, -1},
	})
	runStrategyCases(t, StrategyB, "5;::-Do1::-::-::-", []strategyCase{
		{"barrier beside a barrier", 2, []string{"HAP0,2,0,0,0"}, 0, 3},
	})
}

func TestStrategiesTable(t *testing.T) {
	g := setup(t, "9;::-Mo1Do1V11Ri1V21::-Do1::-", "", 1)
	for name, want := range map[string]int{"2310A": 2, "2310B": 1} {
		s, ok := Strategies[name]
		if !ok {
			t.Fatalf("no strategy %s", name)
		}
		if got := s(&g, 0); got != want {
			t.Errorf("%s moves to %d, want %d", name, got, want)
		}
	}
}
