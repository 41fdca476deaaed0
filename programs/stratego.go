package programs

import (
	hub "gauntlet/hub/stratego"
	ai "gauntlet/players/stratego"
)

// Stratego's manager and AIs. The game has no conformance suite yet, so it is not a grade
// game: its programs are here so that one gauntlet binary (and `gauntlet exec`) can be them.
func init() {
	register(
		Program{Name: "stratego", Game: "stratego", Role: "hub", Main: hub.Main},
		Program{Name: "stratego-random", Game: "stratego", Role: "player", Main: ai.MainRandom},
		Program{Name: "stratego-hunter", Game: "stratego", Role: "player", Main: ai.MainHunter},
	)
}
