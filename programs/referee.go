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
	register(
		Program{Name: "referee-runner", Game: "referee", Role: "hub", Main: hub.Main},
		Program{Name: "ttt-referee", Game: "referee", Role: "referee", Main: ex.TTTReferee},
		Program{Name: "c4-referee", Game: "referee", Role: "referee", Main: ex.C4Referee},
		Program{Name: "ttt-random", Game: "referee", Role: "player", Main: func() int { return ex.TTTPlayer(false) }},
		Program{Name: "ttt-perfect", Game: "referee", Role: "player", Main: func() int { return ex.TTTPlayer(true) }},
		Program{Name: "c4-random", Game: "referee", Role: "player", Main: ex.C4Player},
		// The programs a submission builds for the suite, as the reference plays them.
		Program{Name: "ttt-player", Game: "referee", Role: "player", Main: func() int { return ex.TTTPlayer(true) }},
		Program{Name: "c4-player", Game: "referee", Role: "player", Main: ex.C4Player},
	)
	registerExample(
		Example{
			Game: "referee", Name: "tictactoe",
			About: "a tic-tac-toe match judged by its referee: referee-runner ttt-referee ttt-perfect ttt-random",
			Args:  []string{"ttt-referee", "ttt-perfect", "ttt-random"},
		},
	)
	registerGame(grade.Game{
		Name: "referee",
		Programs: []grade.Program{
			{Var: "TTT_REFEREE", Name: "ttt-referee", Role: "referee"},
			{Var: "TTT_PLAYER", Name: "ttt-player", Role: "player"},
			{Var: "C4_PLAYER", Name: "c4-player", Role: "player"},
		},
		Categories: game.Categories,
		Timeout:    20 * time.Second,
	})
}
