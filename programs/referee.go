package programs

import (
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
	)
}
