package programs

import (
	"fmt"
	"math/rand/v2"
	"time"

	game "gauntlet/games/clue"
	"gauntlet/games/judge"
	"gauntlet/harness/grading/grade"
	"gauntlet/harness/judges/live"
)

// Clue over TCP: the server and the reference clients. A submission builds "clue-client",
// "clue-server" or both; the reference "clue-client" is the strong client.
func init() {
	progs := []Program{
		{Name: "clue-server", Role: "hub"},
		{Name: "clue-client", Role: "client"},
		// The six mock clients that judge a Clue server (judges/cluejudges).
		{Name: "mockclients", Role: "mock"},
	}
	for _, k := range game.BrainNames {
		progs = append(progs, Program{Name: "clue-" + k, Role: "client"})
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
		Live: []Live{{
			Keys:  "seat=0-5 [others=KIND,...] [seed=N] (a game on the Clue server's judge; the five others default to sensible; kinds: random, sensible, leech, strong)",
			Setup: clueLive,
		}},
	})
}

// clueLive is a Clue game seen by one client: the server's judge (ending at the first
// broken rule) and reference clients in the other five seats.
func clueLive(p live.Params, _ func(string) ([]byte, error)) (*live.Game, error) {
	seat, err := p.Int("seat")
	if err != nil || seat < 0 || seat >= game.Tokens {
		return nil, fmt.Errorf("live: seat= must be 0 to 5")
	}
	seed, err := p.Seed()
	if err != nil {
		return nil, err
	}
	names, err := p.Others(game.Tokens, "sensible", func(s string) bool { return game.NewBrain(s, nil) != nil })
	if err != nil {
		return nil, err
	}
	j := game.NewServer(game.ServerOptions{Seed: seed, EndOnViolation: true})
	return &live.Game{Judge: j, Seat: seat, Others: live.Seated(game.Tokens, seat, names, func(name string, s int) judge.Responder {
		return game.NewClient(name, game.NewBrain(name, rand.New(rand.NewPCG(seed, uint64(s)))))
	})}, nil
}
