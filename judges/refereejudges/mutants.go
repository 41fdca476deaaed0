package refereejudges

import "gauntlet/harness/grading/mutants"

// Mutants is the mutant library of the referee protocol's example referees: single bugs of
// the tic-tac-toe and connect-four referees and of the suite's referee of any game (the
// connect-four referee as `referee`, probed by the protocol/ cases), in games/referee and
// built into that referee's program only, each naming the marking category it belongs to.
var Mutants = []mutants.Mutant{
	{Name: "any-scores-comma", Prog: "referee", Category: "protocol/scores",
		File: "games/referee/codec.go",
		Old:  `return strings.Join(w, " ")`,
		New:  `return strings.Join(w, ",")`},
	{Name: "any-no-write-end", Prog: "referee", Category: "protocol/blocks",
		File: "games/referee/games.go",
		Old:  "return append(out, WriteEnd)",
		New:  "return out"},
	{Name: "any-verdicts-in-capitals", Prog: "referee", Category: "protocol/verdicts",
		// An unreadable "valid" ends every session at its first move: no game ends, so the
		// scores cannot be checked either.
		Also: []string{"protocol/scores"},
		File: "games/referee/codec.go",
		Old:  `var verdictText = [...]string{"valid", "invalid", "valid end"}`,
		New:  `var verdictText = [...]string{"VALID", "invalid", "valid end"}`},
	{Name: "ttt-wins-on-rows-only", Prog: "ttt-referee", Category: "referee/ends",
		File: "games/referee/games.go",
		Old:  "var tttLines = [8][3]int{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6}, {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6}}",
		New:  "var tttLines = [][3]int{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}}"},
	{Name: "ttt-no-diagonal-wins", Prog: "ttt-referee", Category: "referee/ends",
		File: "games/referee/games.go",
		Old:  "{2, 5, 8}, {0, 4, 8}, {2, 4, 6}}",
		New:  "{2, 5, 8}, {0, 1, 2}, {3, 4, 5}}"},
	{Name: "ttt-full-board-before-win", Prog: "ttt-referee", Category: "referee/ends",
		File: "games/referee/games.go",
		Old:  "switch w := t.winner(); {\n",
		New:  "switch w := t.winner(); {\n\tcase t.moves == 9:\n\t\treturn true, []int{1, 1}\n"},
	{Name: "ttt-occupied-accepted", Prog: "ttt-referee", Category: "referee/verdicts",
		File: "games/referee/games.go",
		Old:  "if !ok || p != t.Turn || t.Cells[i] != 0 || t.winner() >= 0 {",
		New:  "if !ok || p != t.Turn || t.winner() >= 0 {"},
	{Name: "ttt-out-of-turn-accepted", Prog: "ttt-referee", Category: "referee/verdicts",
		File: "games/referee/games.go",
		Old:  "if !ok || p != t.Turn || t.Cells[i] != 0 ||",
		New:  "if !ok || t.Cells[i] != 0 ||"},
	{Name: "c4-wins-across-only", Prog: "c4-referee", Category: "referee/connect-four",
		File: "games/referee/games.go",
		Old:  "for _, d := range [][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}} {",
		New:  "for _, d := range [][2]int{{0, 1}} {"},
	{Name: "c4-one-diagonal-only", Prog: "c4-referee", Category: "referee/connect-four",
		File: "games/referee/games.go",
		Old:  "{1, 1}, {1, -1}} {",
		New:  "{1, 1}} {"},
	{Name: "c4-full-board-not-a-draw", Prog: "c4-referee", Category: "referee/connect-four",
		File: "games/referee/games.go",
		Old:  "case c.moves == 42:",
		New:  "case c.moves == 43:"},
	{Name: "c4-features-swapped", Prog: "c4-referee", Category: "referee/connect-four",
		File:       "games/referee/codec.go",
		Old:        "\tif f.WriteLines {\n\t\tout = append(out, \"feature \"+FeatureWriteLines)\n\t}\n\tif f.NoLastMove {\n\t\tout = append(out, \"feature \"+FeatureNoLastMove)\n\t}\n",
		New:        "\tif f.NoLastMove {\n\t\tout = append(out, \"feature \"+FeatureNoLastMove)\n\t}\n\tif f.WriteLines {\n\t\tout = append(out, \"feature \"+FeatureWriteLines)\n\t}\n",
		Equivalent: "the feature lines may come in any order (the header fixes none), and the suite accepts either"},
}
