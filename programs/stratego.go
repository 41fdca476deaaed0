package programs

import (
	"time"

	game "gauntlet/games/stratego"
	"gauntlet/harness/grade"
	hub "gauntlet/hub/stratego"
	ai "gauntlet/players/stratego"
)

// Stratego's manager and reference AIs. The suite grades an AI, which a submission builds
// as the program "ai"; the reference "ai" is the hunter.
func init() {
	register(
		Program{Name: "stratego", Game: "stratego", Role: "hub", Main: hub.Main},
		Program{Name: "stratego-random", Game: "stratego", Role: "player", Main: ai.MainRandom, Player: ai.PlayRandom},
		Program{Name: "stratego-hunter", Game: "stratego", Role: "player", Main: ai.MainHunter, Player: ai.PlayHunter},
		Program{Name: "ai", Game: "stratego", Role: "player", Main: ai.MainHunter},
	)
	registerExample(
		Example{
			Game: "stratego", Name: "hunter-random",
			About: "the stronger reference AI against the random one: stratego -o stdout stratego-hunter stratego-random",
			Args:  []string{"-o", "stdout", "stratego-hunter", "stratego-random"},
		},
	)
	registerGame(grade.Game{
		Name:       "stratego",
		Programs:   []grade.Program{{Var: "MANAGER", Name: "stratego", Role: "manager"}, {Var: "AI", Name: "ai", Role: "ai"}},
		Categories: game.Categories,
		Timeout:    30 * time.Second,
	})
}
