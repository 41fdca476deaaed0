package main

import (
	"slices"
	"strings"
	"testing"

	"gauntlet/fuzz/judgerun"
	"gauntlet/fuzz/pipegame"
	"gauntlet/programs"
)

// Every game built into gauntlet can be fuzzed: the differential fuzzer has an adapter
// for it (fuzz/blackbox), it has a judged fuzzer of its own (fuzz/judgerun.Register), or
// its registration gives a random live conversation (programs.Live.Conversation). A game
// registered without any of them fails here.
func TestEveryBuiltInGameIsFuzzed(t *testing.T) {
	games := fuzzGames()
	for _, g := range programs.GradeGames() {
		if programs.BuiltIn(g) && !slices.Contains(games, g) {
			t.Errorf("%s cannot be fuzzed: no fuzz/blackbox adapter, no judged fuzzer (judgerun.Register) and no live Conversation (fuzz games: %v)", g, games)
		}
	}
	for _, g := range pipegame.Games() {
		if !programs.BuiltIn(g) {
			t.Errorf("the differential fuzzer has an adapter for %s, which is no game built into gauntlet", g)
		}
	}
}

// The help of the judged fuzzers (written by hand) speaks of every game fuzzed against its
// judge, and the help of `gauntlet fuzz` lists every game it takes.
func TestFuzzHelpNamesEveryGame(t *testing.T) {
	for _, g := range judgedGames() {
		if !strings.Contains(fuzzClueUsage, g) && !slices.Contains(testGames(), g) {
			t.Errorf("the judged fuzzers' help (fuzzClueUsage) does not speak of %s", g)
		}
	}
	help := fuzzUsageText()
	for _, g := range fuzzGames() {
		if !strings.Contains(help, g) {
			t.Errorf("gauntlet fuzz -help does not name %s", g)
		}
	}
	if len(judgerun.Games()) == 0 {
		t.Error("no judged fuzzer registered (fuzz/clue and fuzz/referee register theirs)")
	}
}

// testGames are the games this package's tests register (toy_test.go).
func testGames() []string {
	var out []string
	for _, g := range programs.GradeGames() {
		if !programs.BuiltIn(g) {
			out = append(out, g)
		}
	}
	return out
}

// The tournament's help (its prose written by hand) speaks of every built-in game with
// tournaments, whose usage lines come from the registrations.
func TestTournamentHelpNamesEveryGame(t *testing.T) {
	help := tournamentUsage()
	for _, g := range programs.TournamentGames() {
		tour, _ := programs.TournamentOf(g)
		if !strings.Contains(help, "gauntlet tournament "+g+" "+tour.Usage+"\n") {
			t.Errorf("the tournament's usage has no line for %s", g)
		}
		if programs.BuiltIn(g) && !strings.Contains(tournamentAbout, "("+g) {
			t.Errorf("the tournament's help (tournamentAbout) does not speak of %s", g)
		}
	}
	for _, g := range []string{"stratego", "referee"} {
		if _, ok := programs.TournamentOf(g); !ok {
			t.Errorf("%s has no tournament", g)
		}
	}
}
