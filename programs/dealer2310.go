package programs

import (
	"io"
	"time"

	game "gauntlet/games/dealer2310"
	"gauntlet/harness/grade"
	hub "gauntlet/hub/dealer2310"
	player "gauntlet/players/dealer2310"
)

// 2310dealer: the dealer and the two reference players.
func init() {
	progs := []Program{{Name: "2310dealer", Role: "hub", Main: hub.Main}}
	for name, s := range game.Strategies {
		progs = append(progs, Program{Name: name, Role: "player",
			Main: func() int { return player.Main(name) },
			Player: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
				return player.Run(s, args, stdin, stdout, stderr)
			}})
	}
	RegisterGame(Registration{
		Programs: progs,
		Examples: []Example{{
			Name:  "spec",
			About: "the spec's example session: 2310dealer d1.deck p1.path 2310A 2310A",
			Files: map[string]string{"d1.deck": "7ABACDEE\n", "p1.path": "7;::-Mo1V11V22Mo1Mo1::-\n"},
			Args:  []string{"d1.deck", "p1.path", "2310A", "2310A"},
		}},
		Grade: grade.Game{
			Name: "dealer2310",
			Programs: []grade.Program{
				{Var: "DEALER", Name: "2310dealer", Role: "hub"},
				{Var: "PLAYER_A", Name: "2310A", Role: "players"}, {Var: "PLAYER_B", Name: "2310B", Role: "players"},
			},
			Categories: game.Categories,
			Timeout:    10 * time.Second,
		},
	})
}
