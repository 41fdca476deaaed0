package programs

import (
	"time"

	game "gauntlet/games/clue"
	"gauntlet/harness/grade"
	server "gauntlet/hub/clue"
	client "gauntlet/players/clue"
)

// Clue over TCP: the server and the reference clients. A submission builds "clue-client",
// "clue-server" or both; the reference "clue-client" is the strong client.
func init() {
	progs := []Program{
		{Name: "clue-server", Role: "hub", Main: server.Main},
		{Name: "clue-client", Role: "client", Main: client.Main("strong")},
	}
	for _, k := range game.BrainNames {
		progs = append(progs, Program{Name: "clue-" + k, Role: "client", Main: client.Main(k)})
	}
	RegisterGame(Registration{
		Programs: progs,
		Examples: []Example{{
			Name:  "bots",
			About: "a Clue server whose six seats are all bots, one of each kind: clue-server -clients 0 -bots strong,random,sensible,leech,sensible,random 0",
			Args:  []string{"-clients", "0", "-bots", "strong,random,sensible,leech,sensible,random", "0"},
		}},
		Grade: grade.Game{
			Name:       "clue",
			Programs:   []grade.Program{{Var: "SERVER", Name: "clue-server", Role: "server"}, {Var: "CLIENT", Name: "clue-client", Role: "client"}},
			Categories: game.Categories,
			Timeout:    30 * time.Second,
		},
	})
}
