package mutants

import (
	"regexp"
	"strings"
	"testing"

	"gauntlet/harness/grading/grade"
)

// Judge counts only marked cases, ignores the absent programs' BUILD-FAIL, and weighs the
// marks lost outside the mutant's own, also and known categories by the failed cases'
// weights (their shares of the category, grade.CaseWeights).
func TestJudge(t *testing.T) {
	m := Mutant{Name: "x", Category: "own", Also: []string{"also"}, Known: []string{"known"}}
	rep := &grade.Report{
		Categories: []grade.CategoryReport{
			{Name: "own", Cases: 4, MaxMarks: 2}, {Name: "also", Cases: 2, MaxMarks: 1},
			{Name: "known", Cases: 10, MaxMarks: 1}, {Name: "other", Cases: 5, MaxMarks: 3},
		},
		Cases: []grade.CaseReport{
			{ID: "a", Category: "own", Counted: true, Verdict: grade.WrongExit, Weight: 0.25},
			{ID: "b", Category: "own", Counted: true, Verdict: grade.Pass, Weight: 0.25},
			{ID: "c", Category: "also", Counted: true, Verdict: grade.Protocol, Weight: 0.5},
			{ID: "d", Category: "known", Counted: true, Verdict: grade.WrongStderr, Weight: 0.1},
			{ID: "e", Category: "other", Counted: true, Verdict: grade.BuildFail, Weight: 0.2},
			{ID: "f", Category: "other", Counted: false, Verdict: grade.Crash},
			{ID: "g", Category: "other", Counted: true, Verdict: grade.PassLenient, Weight: 0.2},
		},
	}
	o := Judge(m, rep)
	if !o.Killed() || !near(o.Outside, 0.1) || o.Unknown != 0 || len(o.Lenient) != 1 || len(o.Problems()) != 0 {
		t.Fatalf("outcome %+v, problems %v", o, o.Problems())
	}
	rep.Cases = append(rep.Cases, grade.CaseReport{ID: "h", Category: "other", Counted: true, Verdict: grade.Timeout, Weight: 0.2})
	o = Judge(m, rep)
	if !near(o.Unknown, 0.6) || len(o.Problems()) != 1 || !strings.Contains(o.Problems()[0], "blast radius 0.60") {
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

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// A twin is the same change in another program, named with that program's letter; a twin
// written by hand is kept, not made twice.
func TestWithTwins(t *testing.T) {
	own := []Mutant{
		{Name: "E-x", Prog: "EAIT", Category: "c", File: "f.go", Old: "a", New: "b"},
		{Name: "E-y", Prog: "EAIT", Category: "c", File: "f.go", Old: "c", New: "d"},
		{Name: "B-x", Prog: "HABS", Category: "c", File: "f.go", Old: "a", New: "b2"},
	}
	got := WithTwins(own, []string{"E-x"}, map[string]string{"HABS": "B", "MABS": "M"})
	var names []string
	for _, m := range got {
		names = append(names, m.Name+"/"+m.Prog+"/"+m.New)
	}
	want := "E-x/EAIT/b E-y/EAIT/d B-x/HABS/b2 M-x/MABS/b"
	if g := strings.Join(names, " "); g != want {
		t.Errorf("twins %s, want %s", g, want)
	}
}

// OwnCases keeps the cases of the mutant's category and its Also that the program's filter
// matches, as a filter of their exact ids; none is an error.
func TestOwnCases(t *testing.T) {
	cases := []grade.Case{
		{ID: "hub_args", Category: "hub/arguments"},
		{ID: "hub_args_more", Category: "hub/arguments"},
		{ID: "hub_faults", Category: "hub/faults"},
		{ID: "hub_games", Category: "hub/games"},
		{ID: "player_args", Category: "hub/arguments"},
	}
	for _, tc := range []struct {
		m    Mutant
		want string
	}{
		{Mutant{Name: "a", Category: "hub/arguments"}, "^(hub_args|hub_args_more)$"},
		{Mutant{Name: "b", Category: "hub/faults", Also: []string{"hub/games"}}, "^(hub_faults|hub_games)$"},
	} {
		got, err := OwnCases(tc.m, cases, "^hub_")
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.m.Name, got, err, tc.want)
		}
		re := regexp.MustCompile(got)
		if re.MatchString("hub_args_") || re.MatchString("xhub_args") {
			t.Errorf("%s: %q matches more than the ids", tc.m.Name, got)
		}
	}
	if got, err := OwnCases(Mutant{Name: "c", Prog: "X", Category: "players"}, cases, "^hub_"); err == nil {
		t.Errorf("a mutant without a case of its category: %q, no error", got)
	}
}
