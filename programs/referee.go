package programs

import (
	"time"

	game "gauntlet/games/referee"
	"gauntlet/harness/grade"
	hub "gauntlet/hub/referee"
	ex "gauntlet/players/referee"
)

// The referee protocol's match runner and the project's example referees and players.
func init() {
	RegisterGame(Registration{
		Programs: []Program{
			{Name: "referee-runner", Role: "hub", Main: hub.Main},
			{Name: "ttt-referee", Role: "referee", Main: ex.TTTReferee},
			{Name: "c4-referee", Role: "referee", Main: ex.C4Referee},
			{Name: "ttt-random", Role: "player", Main: func() int { return ex.TTTPlayer(false) }},
			{Name: "ttt-perfect", Role: "player", Main: func() int { return ex.TTTPlayer(true) }},
			{Name: "c4-random", Role: "player", Main: ex.C4Player},
			// The programs a submission builds for the suite, as the reference plays them.
			{Name: "ttt-player", Role: "player", Main: func() int { return ex.TTTPlayer(true) }},
			{Name: "c4-player", Role: "player", Main: ex.C4Player},
		},
		Examples: []Example{{
			Name:  "tictactoe",
			About: "a tic-tac-toe match judged by its referee: referee-runner ttt-referee ttt-perfect ttt-random",
			Args:  []string{"ttt-referee", "ttt-perfect", "ttt-random"},
		}},
		Grade: grade.Game{
			Name: "referee",
			Programs: []grade.Program{
				{Var: "TTT_REFEREE", Name: "ttt-referee", Role: "referee"},
				{Var: "TTT_PLAYER", Name: "ttt-player", Role: "player"},
				{Var: "C4_PLAYER", Name: "c4-player", Role: "player"},
			},
			Categories: game.Categories,
			Timeout:    20 * time.Second,
		},
	})
}
