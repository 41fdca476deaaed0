package programs

import (
	"io"

	game "gauntlet/games/stlucia"
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
