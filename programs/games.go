package programs

import (
	"slices"

	"gauntlet/harness/grading/grade"
)

// gradeGames are the games the grader knows: the programs their suites name through
// variables, and their marking categories.
var gradeGames = map[string]grade.Game{}

func registerGame(g grade.Game) {
	for _, p := range g.Programs {
		if p.Role == "" {
			panic("programs: " + g.Name + "'s program " + p.Name + " has no role")
		}
	}
	gradeGames[g.Name] = g
}

// GradeGame returns what the grader needs to know about a game.
func GradeGame(name string) (grade.Game, bool) {
	g, ok := gradeGames[name]
	return g, ok
}

// GradeGames lists the games that can be graded: those with examples in the order of
// their examples, then the others by name.
func GradeGames() []string {
	var names []string
	for _, e := range Examples {
		if _, ok := gradeGames[e.Game]; ok && !slices.Contains(names, e.Game) {
			names = append(names, e.Game)
		}
	}
	var rest []string
	for name := range gradeGames {
		if !slices.Contains(names, name) {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	return append(names, rest...)
}
