package mutants

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gauntlet/games/contract"
	dealer "gauntlet/games/dealer2310"
	game "gauntlet/games/referee"
	lucia "gauntlet/games/stlucia"
	"gauntlet/harness/grade"
)

var categories = map[string][]contract.Category{"dealer2310": dealer.Categories, "stlucia": lucia.Categories, "referee": game.Categories}

var programs = map[string]map[string]bool{
	"dealer2310": {"2310dealer": true, "2310A": true, "2310B": true},
	"stlucia":    {"stlucia": true, "EAIT": true, "SCIENCE": true, "HABS": true, "HASS": true, "MABS": true},
	"referee":    {"referee": true, "ttt-referee": true, "c4-referee": true},
}

// least is the smallest library each game keeps.
var least = map[string]int{"dealer2310": 40, "stlucia": 40, "referee": 8}

// Every mutant of both libraries applies (its text is in its file exactly once and the
// change is not empty), names a program of its game and marking categories of its game, and
// says why when it must survive; names are unique. (Building and grading them is the
// adequacy tests' job, in metatest.)
func TestLibraries(t *testing.T) {
	root, err := ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, game := range Games {
		cats := map[string]bool{}
		for _, c := range categories[game] {
			cats[c.Name] = true
		}
		lib := Library(game)
		if len(lib) < least[game] {
			t.Errorf("%s: %d mutants, want at least %d", game, len(lib), least[game])
		}
		seen := map[string]bool{}
		for _, m := range lib {
			if seen[m.Name] {
				t.Errorf("%s: %s twice", game, m.Name)
			}
			seen[m.Name] = true
			data, err := os.ReadFile(filepath.Join(root, m.File))
			if err != nil {
				t.Errorf("%s: %v", m.Name, err)
				continue
			}
			if n := strings.Count(string(data), m.Old); n != 1 || m.Old == m.New {
				t.Errorf("%s: its text is in %s %d times (want once), or the change is empty", m.Name, m.File, n)
			}
			if !programs[game][m.Prog] {
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
	if Library("stratego") != nil {
		t.Error("a library for a game without one")
	}
}

func TestFilter(t *testing.T) {
	for _, tc := range []struct{ game, prog, want string }{
		{"dealer2310", "2310dealer", "^(dealer_|game_)"},
		{"dealer2310", "2310A", "^player_"},
		{"stlucia", "stlucia", "^(hub_|game_)"},
		{"stlucia", "MABS", "^player_"},
		{"referee", "ttt-referee", "^ttt_referee_"},
		{"referee", "c4-referee", "^c4_referee_"},
		{"referee", "referee", "^referee_"},
	} {
		if got := Filter(tc.game, tc.prog); got != tc.want {
			t.Errorf("Filter(%s, %s) = %q, want %q", tc.game, tc.prog, got, tc.want)
		}
	}
}

// Judge counts only marked cases, ignores the absent programs' BUILD-FAIL, and weighs the
// marks lost outside the mutant's own, also and known categories.
func TestJudge(t *testing.T) {
	m := Mutant{Name: "x", Category: "own", Also: []string{"also"}, Known: []string{"known"}}
	rep := &grade.Report{
		Categories: []grade.CategoryReport{
			{Name: "own", Cases: 4, MaxMarks: 2}, {Name: "also", Cases: 2, MaxMarks: 1},
			{Name: "known", Cases: 10, MaxMarks: 1}, {Name: "other", Cases: 5, MaxMarks: 3},
		},
		Cases: []grade.CaseReport{
			{ID: "a", Category: "own", Counted: true, Verdict: grade.WrongExit},
			{ID: "b", Category: "own", Counted: true, Verdict: grade.Pass},
			{ID: "c", Category: "also", Counted: true, Verdict: grade.Protocol},
			{ID: "d", Category: "known", Counted: true, Verdict: grade.WrongStderr},
			{ID: "e", Category: "other", Counted: true, Verdict: grade.BuildFail},
			{ID: "f", Category: "other", Counted: false, Verdict: grade.Crash},
			{ID: "g", Category: "other", Counted: true, Verdict: grade.PassLenient},
		},
	}
	o := Judge(m, rep)
	if !o.Killed() || o.Outside != 0.1 || o.Unknown != 0 || len(o.Lenient) != 1 || len(o.Problems()) != 0 {
		t.Fatalf("outcome %+v, problems %v", o, o.Problems())
	}
	rep.Cases = append(rep.Cases, grade.CaseReport{ID: "h", Category: "other", Counted: true, Verdict: grade.Timeout})
	o = Judge(m, rep)
	if o.Unknown != 0.6 || len(o.Problems()) != 1 || !strings.Contains(o.Problems()[0], "blast radius 0.60") {
		t.Fatalf("outcome %+v, problems %v", o, o.Problems())
	}
	// A survivor is a problem unless it is an accepted alternative (with PASS-LENIENT) or
	// equivalent.
	none := &grade.Report{Cases: []grade.CaseReport{{ID: "a", Category: "own", Counted: true, Verdict: grade.Pass}}}
	if p := Judge(m, none).Problems(); len(p) != 1 || !strings.HasPrefix(p[0], "survived") {
		t.Errorf("survivor: %v", p)
	}
	if p := Judge(Mutant{Lenient: true, Why: "w"}, none).Problems(); len(p) != 1 || !strings.Contains(p[0], "without PASS-LENIENT") {
		t.Errorf("lenient without PASS-LENIENT: %v", p)
	}
	if p := Judge(Mutant{Equivalent: "e"}, none).Problems(); len(p) != 0 {
		t.Errorf("equivalent survivor: %v", p)
	}
	matrix := Matrix("g", []Outcome{Judge(m, rep), Judge(Mutant{Name: "y", Equivalent: "why"}, none)})
	for _, want := range []string{"x", "blast radius 0.70 marks", "y: equivalent: why", "2 mutants, 1 killed, 1 survive", "largest blast radius outside the mutant's categories: 0.70 marks (x)"} {
		if !strings.Contains(matrix, want) {
			t.Errorf("matrix lacks %q:\n%s", want, matrix)
		}
	}
}

// A twin is the same change in another program, named with that program's letter; a twin
// written by hand is kept, not made twice.
func TestWithTwins(t *testing.T) {
	own := []Mutant{
		{Name: "E-x", Prog: "EAIT", Category: "c", File: "f.go", Old: "a", New: "b"},
		{Name: "E-y", Prog: "EAIT", Category: "c", File: "f.go", Old: "c", New: "d"},
		{Name: "B-x", Prog: "HABS", Category: "c", File: "f.go", Old: "a", New: "b2"},
	}
	got := withTwins(own, []string{"E-x"}, map[string]string{"HABS": "B", "MABS": "M"})
	var names []string
	for _, m := range got {
		names = append(names, m.Name+"/"+m.Prog+"/"+m.New)
	}
	want := "E-x/EAIT/b E-y/EAIT/d B-x/HABS/b2 M-x/MABS/b"
	if g := strings.Join(names, " "); g != want {
		t.Errorf("twins %s, want %s", g, want)
	}
}

// Every shared St Lucia mutant has its twin in each other player.
func TestStLuciaTwins(t *testing.T) {
	have := map[string]string{}
	for _, m := range Library("stlucia") {
		have[m.Name] = m.Prog
	}
	for _, name := range stluciaShared {
		for letter, prog := range map[string]string{"S": "SCIENCE", "B": "HABS", "A": "HASS", "M": "MABS"} {
			twin := letter + strings.TrimPrefix(name, "E")
			if have[twin] != prog {
				t.Errorf("no twin %s of %s in %s", twin, name, prog)
			}
		}
	}
}
