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
	RegisterGame(Registration{
		Programs: []Program{
			{Name: "stratego", Role: "hub", Main: hub.Main},
			{Name: "stratego-random", Role: "player", Main: ai.MainRandom, Player: ai.PlayRandom},
			{Name: "stratego-hunter", Role: "player", Main: ai.MainHunter, Player: ai.PlayHunter},
			{Name: "ai", Role: "player", Main: ai.MainHunter},
		},
		Examples: []Example{{
			Name:  "hunter-random",
			About: "the stronger reference AI against the random one: stratego -o stdout stratego-hunter stratego-random",
			Args:  []string{"-o", "stdout", "stratego-hunter", "stratego-random"},
		}},
		Grade: grade.Game{
			Name:       "stratego",
			Programs:   []grade.Program{{Var: "MANAGER", Name: "stratego", Role: "manager"}, {Var: "AI", Name: "ai", Role: "ai"}},
			Categories: game.Categories,
			Timeout:    30 * time.Second,
		},
	})
}
