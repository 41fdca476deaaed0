package blackbox

import (
	"gauntlet/fuzz/pipegame"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

func TestChunks(t *testing.T) {
	tests := []struct {
		n    int
		want [][2]int
	}{
		{0, nil},
		{1, [][2]int{{0, 1}}},
		{4, [][2]int{{0, 2}, {2, 4}, {0, 1}, {1, 2}, {2, 3}, {3, 4}}},
		{5, [][2]int{{0, 2}, {2, 4}, {4, 5}, {0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}}},
	}
	for _, tc := range tests {
		if got := pipegame.Chunks(tc.n); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("pipegame.Chunks(%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
}

func TestShorter(t *testing.T) {
	if got := shorter("abc"); !reflect.DeepEqual(got, []string{"bc", "ac", "ab"}) {
		t.Errorf("shorter(abc) = %q", got)
	}
	if got := shorter("aab"); !reflect.DeepEqual(got, []string{"ab", "aa"}) {
		t.Errorf("shorter(aab) = %q (repeats must be offered once)", got)
	}
	long := strings.Repeat("x", 100)
	if got := shorter(long); len(got) != 3 || len(got[0]) != 50 || len(got[2]) != 75 {
		t.Errorf("shorter(100 bytes) gives lengths %d", len(got))
	}
	if shorter("") != nil {
		t.Error("shorter of nothing")
	}
}

func TestShorterRule(t *testing.T) {
	tests := []struct {
		rule string
		want []string
	}{
		{`reply 4 line "ab"`, []string{`reply 1 line "ab"`, `reply 2 line "ab"`, `reply 3 line "ab"`, `reply 4 line "b"`, `reply 4 line "a"`}},
		{`reply 1 long 1000`, []string{`reply 1 long 500`}},
		{`after 2 signal SEGV`, []string{`after 1 signal SEGV`, `after 1 signal SEGV`, `after 1 signal SEGV`}},
		{`hello send "x'"`, []string{`hello send "\x27"`, `hello send "x"`}},
		{`end hang`, nil},
	}
	for _, tc := range tests {
		if got := shorterRule(tc.rule); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("shorterRule(%q) = %q, want %q", tc.rule, got, tc.want)
		}
	}
}

// TestMinimisePlayerCase shrinks a long case against a predicate that stands for a bug: the
// player "fails" when it is sent a line containing "Q" after a SIGHUP. The minimiser must
// keep exactly those two steps, shorten the line to "Q", and drop the rest.
func TestMinimisePlayerCase(t *testing.T) {
	g, _ := pipegame.Lookup("stlucia")
	c := &PlayerCase{Ref: "EAIT", Args: []string{"2", "A"}}
	for i := 0; i < 40; i++ {
		c.Steps = append(c.Steps, Step{Op: OpSend, Text: "points B 1"})
		if i == 25 {
			c.Steps = append(c.Steps, Step{Op: OpSignal, Sig: syscall.SIGHUP}, Step{Op: OpSend, Text: "points Q 1"})
		}
		if i%10 == 3 {
			c.Steps = append(c.Steps, Step{Op: OpSleep, Delay: time.Millisecond})
		}
	}
	fails := func(s shrinker) bool {
		hup := false
		for _, st := range s.(*PlayerCase).Steps {
			hup = hup || st.Op == OpSignal
			if hup && strings.Contains(st.Text, "Q") {
				return true
			}
		}
		return false
	}
	small, tries := minimise(g, c, fails, Budget{Tries: 10000, Time: time.Minute}, 1)
	got := small.(*PlayerCase).Steps
	want := []Step{{Op: OpSignal, Sig: syscall.SIGHUP}, {Op: OpSend, Text: "Q"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("minimised to %+v after %d tries, want %+v", got, tries, want)
	}
	// Trying variants four at a time keeps the same case after the same count of tries.
	if small4, tries4 := minimise(g, c, fails, Budget{Tries: 10000, Time: time.Minute}, 4); !reflect.DeepEqual(small4, small) || tries4 != tries {
		t.Errorf("four at a time: %+v after %d tries; one at a time: %+v after %d", small4.(*PlayerCase).Steps, tries4, got, tries)
	}
	// The budget is respected, and a cut budget ends on the same case either way. Variants
	// run beside the first kept are not counted (a one-at-a-time minimiser would not have
	// run them), but a batch never goes past the budget: a case where nothing is kept runs
	// exactly the budget.
	for _, budget := range []int{7, 30, 61} {
		one, n1 := minimise(g, c, fails, Budget{Tries: budget, Time: time.Minute}, 1)
		four, n4 := minimise(g, c, fails, Budget{Tries: budget, Time: time.Minute}, 4)
		if n1 > budget || n4 != n1 || !reflect.DeepEqual(four, one) {
			t.Errorf("a budget of %d tries: %d tries one at a time, %d four at a time, the same case: %v",
				budget, n1, n4, reflect.DeepEqual(four, one))
		}
	}
	var runs atomic.Int64
	never := func(shrinker) bool { runs.Add(1); return false }
	if _, tries := minimise(g, c, never, Budget{Tries: 7, Time: time.Minute}, 4); tries != 7 || runs.Load() != 7 {
		t.Errorf("a budget of 7 tries counted %d and ran %d", tries, runs.Load())
	}
}

// TestMinimiseHubCase: seats, file bytes and fault rules go; the rule's string shortens.
func TestMinimiseHubCase(t *testing.T) {
	g, _ := pipegame.Lookup("stlucia")
	c := NewHubCase(HubSetup{
		Files:   map[string]string{"game.roll": "123HAP\nAAAPPP123\n"},
		Args:    []string{"game.roll", "10"},
		Players: []string{"EAIT", "HABS", "MABS", "HASS"},
	})
	c.Faults[1] = []string{`reply 3 line "garbage"`}
	c.Faults[2] = []string{"after 2 exit 0", "reply 1 sleep 300ms"}
	// The "bug": a seat whose reply line contains "g", in a game of at least two seats with
	// at least one die.
	fails := func(s shrinker) bool {
		h := s.(*HubCase)
		if len(h.Setup.Players) < 2 || len(strings.TrimSpace(h.Setup.Files["game.roll"])) == 0 {
			return false
		}
		for _, rules := range h.Faults {
			for _, r := range rules {
				if strings.Contains(r, "line") && strings.Contains(r, "g") {
					return true
				}
			}
		}
		return false
	}
	small, tries := minimise(g, c, fails, Budget{Tries: 10000, Time: time.Minute}, 1)
	if small3, tries3 := minimise(g, c, fails, Budget{Tries: 10000, Time: time.Minute}, 3); !reflect.DeepEqual(small3, small) || tries3 != tries {
		t.Errorf("three at a time: %s after %d tries; one at a time: %s after %d", small3.(*HubCase).Describe(), tries3, small.(*HubCase).Describe(), tries)
	}
	h := small.(*HubCase)
	if len(h.Setup.Players) != 2 || len(h.Setup.Files["game.roll"]) != 2 {
		t.Errorf("kept %d seats and roll file %q", len(h.Setup.Players), h.Setup.Files["game.roll"])
	}
	var rules []string
	for _, f := range h.Faults {
		rules = append(rules, f...)
	}
	if !slices.Equal(rules, []string{`reply 1 line "g"`}) {
		t.Errorf("kept rules %q", rules)
	}
}
