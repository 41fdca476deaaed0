package programs

import (
	"fmt"
	"gauntlet/judges/dealer2310judges"
	"time"

	game "gauntlet/games/dealer2310"
	"gauntlet/games/judge"
	"gauntlet/harness/grading/grade"
	"gauntlet/harness/grading/mutants"
	"gauntlet/harness/judges/live"
)

// 2310dealer: the dealer and the two reference players.
func init() {
	progs := []Program{{Name: "2310dealer", Role: "hub"}}
	for name := range game.Strategies {
		progs = append(progs, Program{Name: name, Role: "player"})
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
				{Var: "PLAYER_A", Name: "2310A", Role: "players", Mock: []string{"-as", "2310A", "-reference"}},
				{Var: "PLAYER_B", Name: "2310B", Role: "players", Mock: []string{"-as", "2310B", "-reference"}},
			},
			Categories: game.Categories,
			Timeout:    10 * time.Second,
		},
		Live: []Live{{
			Keys:  "path=FILE deck=FILE players=N seat=N [others=STRATEGY,...] (others default to 2310A)",
			Setup: dealerLive,
		}},
		Mutants: &mutants.Set{Mutants: dealer2310judges.Mutants, Cases: mutants.CasesOfRole("2310dealer", "(dealer_|game_)")},
	})
}

// dealerLive is a 2310 game seen by one player (`judge dealer2310 path=FILE deck=FILE players=N
// seat=N [others=...]`): the dealer's judge and reference players elsewhere.
func dealerLive(p live.Params, read func(string) ([]byte, error)) (*live.Game, error) {
	path, err := live.File(p, "path", read, game.ParsePathFile)
	if err != nil {
		return nil, err
	}
	deck, err := live.File(p, "deck", read, game.ParseDeckFile)
	if err != nil {
		return nil, err
	}
	n, err := p.Int("players")
	if err != nil {
		return nil, err
	}
	seat, err := p.Int("seat")
	if err != nil || seat < 0 || seat >= n {
		return nil, fmt.Errorf("live: seat= must be a player number from 0 to %d", n-1)
	}
	names, err := p.Others(n, "2310A", func(s string) bool { _, ok := game.Strategies[s]; return ok })
	if err != nil {
		return nil, err
	}
	j, err := game.NewJudge(path, deck, n)
	if err != nil {
		return nil, err
	}
	return &live.Game{Judge: j, Seat: seat, Others: live.Seated(n, seat, names, func(name string, s int) judge.Responder {
		return game.NewResponder(game.Strategies[name], n, s)
	})}, nil
}
