package mutants_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gauntlet/harness/grading/mutants"
	"gauntlet/programs"
)

// least is the smallest library each of these games keeps; any other game's library has at
// least one mutant.
var least = map[string]int{"dealer2310": 40, "stlucia": 40, "referee": 8}

// The libraries are the games' registrations' (programs.Registration.Mutants): the games
// of St Lucia, 2310 and the referee protocol have one, and every library belongs to a game
// that is graded.
func TestLibrariesComeWithTheirGames(t *testing.T) {
	games := mutants.Games()
	for _, g := range []string{"dealer2310", "referee", "stlucia"} {
		if !slices.Contains(games, g) {
			t.Errorf("no mutant library registered for %s (games: %v)", g, games)
		}
	}
	for _, g := range games {
		if _, ok := programs.GradeGame(g); !ok {
			t.Errorf("a mutant library for %s, which is not a graded game", g)
		}
	}
	if mutants.Library("stratego") != nil || mutants.Filter("stratego", "ai") != "" {
		t.Error("a library for a game without one")
	}
}

// Every mutant of every library applies (its text is in its file exactly once and the
// change is not empty), names a program of its game's grade table and marking categories of
// its game, and says why when it must survive; names are unique. (Building and grading them
// is the adequacy tests' job, in acceptance.)
func TestLibraries(t *testing.T) {
	root, err := mutants.ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, game := range mutants.Games() {
		g, _ := programs.GradeGame(game)
		cats, progs := map[string]bool{}, map[string]bool{}
		for _, c := range g.Categories {
			cats[c.Name] = true
		}
		for _, p := range g.Programs {
			progs[p.Name] = true
		}
		lib := mutants.Library(game)
		if len(lib) < max(1, least[game]) {
			t.Errorf("%s: %d mutants, want at least %d", game, len(lib), max(1, least[game]))
		}
		seen := map[string]bool{}
		for _, m := range lib {
			if seen[m.Name] {
				t.Errorf("%s: %s twice", game, m.Name)
			}
			seen[m.Name] = true
			texts := map[string]string{} // each file as the edits before leave it
			for _, e := range m.Edits() {
				text, ok := texts[e.File]
				if !ok {
					data, err := os.ReadFile(filepath.Join(root, e.File))
					if err != nil {
						t.Errorf("%s: %v", m.Name, err)
						break
					}
					text = string(data)
				}
				if n := strings.Count(text, e.Old); n != 1 || e.Old == e.New {
					t.Errorf("%s: its text is in %s %d times (want once), or the change is empty", m.Name, e.File, n)
				}
				texts[e.File] = strings.Replace(text, e.Old, e.New, 1)
			}
			if !progs[m.Prog] {
				t.Errorf("%s: program %q is not one of %s's", m.Name, m.Prog, game)
			}
			for _, c := range append(append([]string{m.Category}, m.Also...), m.Known...) {
				if !cats[c] {
					t.Errorf("%s: %q is not a marking category of %s", m.Name, c, game)
				}
			}
			if m.Lenient && m.Why == "" || m.Lenient && m.Equivalent != "" {
				t.Errorf("%s: a lenient mutant says why, and is not also equivalent", m.Name)
			}
		}
	}
}

func TestFilter(t *testing.T) {
	want := map[[2]string]string{
		{"dealer2310", "2310dealer"}: "^(dealer_|game_)", {"dealer2310", "2310A"}: "^player_",
		{"stlucia", "stlucia"}: "^(hub_|game_)", {"stlucia", "MABS"}: "^player_",
		{"referee", "ttt-referee"}: "^ttt_referee_", {"referee", "c4-referee"}: "^c4_referee_",
		{"referee", "referee"}: "^referee_",
	}
	for gp, w := range want {
		if got := mutants.Filter(gp[0], gp[1]); got != w {
			t.Errorf("Filter(%s, %s) = %q, want %q", gp[0], gp[1], got, w)
		}
	}
}
