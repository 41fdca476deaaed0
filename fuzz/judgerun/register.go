package judgerun

import (
	"maps"
	"slices"
)

// Fuzzer is a game's own judged fuzzer, for a game that a random live conversation (fuzz/live)
// does not fuzz: `gauntlet fuzz GAME` runs it. Each registers itself from its package's init
// (fuzz/clue, fuzz/referee), as the differential fuzzer's adapters do (fuzz/blackbox).
type Fuzzer struct {
	About string   // what it fuzzes, for the usage: "clue (over TCP)"
	Roles []string // the values -role takes (none: the fuzzer takes no -role)
	// Run fuzzes the campaign's program in the role given ("" when Roles is empty).
	Run func(role string, c Campaign) ([]Finding, error)
}

var fuzzers = map[string]Fuzzer{}

// Register makes a game's judged fuzzer known to `gauntlet fuzz`; a game registered
// twice panics.
func Register(game string, f Fuzzer) {
	if _, dup := fuzzers[game]; dup {
		panic("judgerun: " + game + " registered twice")
	}
	fuzzers[game] = f
}

// Lookup finds a game's judged fuzzer.
func Lookup(game string) (Fuzzer, bool) {
	f, ok := fuzzers[game]
	return f, ok
}

// Games lists the games with a judged fuzzer of their own, sorted.
func Games() []string { return slices.Sorted(maps.Keys(fuzzers)) }
