package programs

import (
	"io"
	"time"

	game "gauntlet/games/stlucia"
	"gauntlet/harness/grade"
	hub "gauntlet/hub/stlucia"
	player "gauntlet/players/stlucia"
)

func init() {
	register(Program{Name: "stlucia", Game: "stlucia", Role: "hub", Main: hub.Main})
	for name, s := range game.Strategies {
		name, s := name, s
		register(Program{Name: name, Game: "stlucia", Role: "player",
			Main: func() int { return player.Main(name) },
			Player: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
				return player.Run(s, args, stdin, stdout, stderr)
			}})
	}
}

func init() {
	registerGame(grade.Game{
		Name: "stlucia",
		Programs: []grade.Program{
			{Var: "STLUCIA", Name: "stlucia", Hub: true},
			{Var: "EAIT", Name: "EAIT"}, {Var: "SCIENCE", Name: "SCIENCE"}, {Var: "HABS", Name: "HABS"},
			{Var: "HASS", Name: "HASS"}, {Var: "MABS", Name: "MABS"},
		},
		Categories: game.Categories,
		Timeout:    10 * time.Second,
	})
}
