package programs

import (
	"io/fs"
	"maps"
	"math/rand/v2"
	"slices"
	"time"

	"gauntlet/fuzz/livefuzz"
	"gauntlet/harness/grading/grade"
	"gauntlet/harness/grading/mutants"
	"gauntlet/harness/grading/scriptcmds"
	"gauntlet/harness/grading/tournament"
	"gauntlet/harness/judges/live"
	"gauntlet/harness/judges/mockhub"
)

// Registration is everything gauntlet knows of one game, given in one call to RegisterGame:
// its programs, its built-in examples, its grade table, its suite, and for a game whose
// programs choose their moves, how to judge it live. From it, `gauntlet grade`, `play`,
// `fuzz`, `exec` and `programs`, the usage text and the mock hub's judge steps and probes
// know the game; nothing else needs a change (docs/adding-a-game.md).
type Registration struct {
	Programs []Program  // every program, each with its Role; Main runs it
	Examples []Example  // complete games of the reference programs; the first is play's default
	Grade    grade.Game // the suite's variables, the roles they play, the categories, the deadline
	// Suite holds the game's cases (*.txtar at its root). Nil for the games built into the
	// binary, whose cases are its testscripts/<game> folder.
	Suite fs.FS
	Live  []Live // how the game is judged live (none: it is not)
	// Mutants is the game's mutant library, for `gauntlet adequacy` and the adequacy tests
	// (nil: it has none).
	Mutants *mutants.Set
	// Tournament is how `gauntlet tournament` plays the game's programs against each other
	// (nil: the game has no tournaments).
	Tournament *Tournament
	// Probes are the game's kinds of mock hub conversation that are not steps, by the
	// word that starts their line (mockhub.RegisterProbe; the referee protocol's
	// `referee`).
	Probes map[string]mockhub.Probe
}

// Tournament is how `gauntlet tournament GAME` plays a round robin of a game's programs
// (harness/grading/tournament) through its reference hub.
type Tournament struct {
	// Usage is what follows "gauntlet tournament GAME" in the usage line, e.g.
	// "[flags] AI AI...".
	Usage string
	// Referee: each game is judged by a program the user names with -referee, boxed
	// beside the players. Turns: the game has a turn limit, -m.
	Referee, Turns bool
	// Match plays one game between two programs: boxes run the programs (nil: unboxed),
	// closing stop ends a game at once, referee is -referee's program, perMove and turns
	// the -T and -m flags as given (checked already).
	Match func(boxes *tournament.Boxes, stop <-chan struct{}, referee, perMove, turns string) tournament.Match
	// CPU is the CPU time each program of a game may use, from the time per line (-T)
	// and the turn limit (-m). Nil: an hour, for a game whose length its hub does not bound.
	CPU func(perMove time.Duration, turns int) time.Duration
}

// tournaments are the registered games' tournaments.
var tournaments = map[string]Tournament{}

// TournamentOf returns a game's tournament, if it has one.
func TournamentOf(game string) (Tournament, bool) {
	t, ok := tournaments[game]
	return t, ok
}

// TournamentGames lists the games with tournaments, sorted.
func TournamentGames() []string { return slices.Sorted(maps.Keys(tournaments)) }

// Live is how a game is judged live: the mock hub's `judge NAME KEY=VALUE...` set-up, and
// what the live fuzzer (`gauntlet fuzz NAME PROGRAM`) draws and writes.
type Live struct {
	Name  string     // the judge's name in a conversation (default: the game's)
	Keys  string     // the set-up's settings, for people
	Setup live.Setup // the judge and the reference seats, from the settings
	// Conversation draws a random conversation that judges the program in its seat
	// (nil: the game is not fuzzed live); a finding becomes a case of this suite
	// variable, section and category.
	Conversation                func(r *rand.Rand) string
	Variable, Section, Category string
}

// suites are the registered games' own suites.
var suites = map[string]fs.FS{}

// RegisterGame makes a game known to every command. Call it from an init function; a
// name or program registered twice panics.
func RegisterGame(r Registration) {
	for i, p := range r.Programs {
		r.Programs[i].Game = r.Grade.Name
		if p.Role == "mock" {
			// A game's own mock program judges the subject from inside a case (Clue's
			// mock clients): it runs as the harness's user and starts the subject itself.
			scriptcmds.RegisterJudge(p.Name)
		}
	}
	register(r.Programs...)
	for i := range r.Examples {
		r.Examples[i].Game = r.Grade.Name
	}
	registerExample(r.Examples...)
	registerGame(r.Grade)
	if r.Suite != nil {
		suites[r.Grade.Name] = r.Suite
	}
	for _, l := range r.Live {
		name := l.Name
		if name == "" {
			name = r.Grade.Name
		}
		live.Register(name, l.Keys, l.Setup)
		if l.Conversation != nil {
			livefuzz.Register(name, l.Variable, l.Section, l.Category, l.Conversation)
		}
	}
	if r.Mutants != nil {
		mutants.Register(r.Grade.Name, *r.Mutants)
	}
	if r.Tournament != nil {
		tournaments[r.Grade.Name] = *r.Tournament
	}
	for word, p := range r.Probes {
		mockhub.RegisterProbe(word, p)
	}
}

// BuiltIn reports whether a graded game is one of gauntlet's own, built into the binary
// with its cases in testscripts/<game>, rather than one a test registers with its own
// suite (cmd/gauntlet/toy_test.go): the games the docs and the CI set-ups must name.
func BuiltIn(game string) bool {
	_, graded := gradeGames[game]
	_, own := suites[game]
	return graded && !own
}

// Suite returns a game's registered suite, or false for a game whose cases are built into
// the binary (testscripts/<game>).
func Suite(game string) (fs.FS, bool) {
	s, ok := suites[game]
	return s, ok
}
