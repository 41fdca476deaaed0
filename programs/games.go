package programs

import (
	"gauntlet/harness/grade"
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

// GradeGames lists the games that can be graded.
func GradeGames() []string {
	var names []string
	for _, e := range Examples {
		if _, ok := gradeGames[e.Game]; ok && (len(names) == 0 || names[len(names)-1] != e.Game) {
			names = append(names, e.Game)
		}
	}
	return names
}
