package programs

import (
	"io"
	"time"

	game "gauntlet/games/stlucia"
	"gauntlet/harness/grade"
	hub "gauntlet/hub/stlucia"
	player "gauntlet/players/stlucia"
)

// King of St Lucia: the hub and the five reference players.
func init() {
	progs := []Program{{Name: "stlucia", Role: "hub", Main: hub.Main}}
	for name, s := range game.Strategies {
		progs = append(progs, Program{Name: name, Role: "player",
			Main: func() int { return player.Main(name) },
			Player: func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
				return player.Run(s, args, stdin, stdout, stderr)
			}})
	}
	RegisterGame(Registration{
		Programs: progs,
		Examples: []Example{
			{
				Name:  "x",
				About: "the rules file's first worked example: stlucia x.roll 10 EAIT EAIT",
				Files: map[string]string{"x.roll": "HAHPPPPPPPP1233331111\nAAAA1232322AAA\n"},
				Args:  []string{"x.roll", "10", "EAIT", "EAIT"},
			},
			{
				Name:  "z",
				About: "the rules file's second worked example: stlucia z.roll 10 EAIT EAIT",
				Files: map[string]string{"z.roll": "1221AAHHAAHHAAHH12333\n331221AAHHHPPPPP\nPAPAPHHAPPA123\n"},
				Args:  []string{"z.roll", "10", "EAIT", "EAIT"},
			},
		},
		Grade: grade.Game{
			Name: "stlucia",
			Programs: []grade.Program{
				{Var: "STLUCIA", Name: "stlucia", Role: "hub"},
				{Var: "EAIT", Name: "EAIT", Role: "players"}, {Var: "SCIENCE", Name: "SCIENCE", Role: "players"},
				{Var: "HABS", Name: "HABS", Role: "players"}, {Var: "HASS", Name: "HASS", Role: "players"},
				{Var: "MABS", Name: "MABS", Role: "players"},
			},
			Categories: game.Categories,
			Timeout:    10 * time.Second,
		},
	})
}
