package programs

import (
	"fmt"
	"gauntlet/judges/stluciajudges"
	"time"

	"gauntlet/games/judge"
	game "gauntlet/games/stlucia"
	"gauntlet/harness/grading/grade"
	"gauntlet/harness/grading/mutants"
	"gauntlet/harness/judges/live"
)

// King of St Lucia: the hub and the five reference players.
func init() {
	progs := []Program{{Name: "stlucia", Role: "hub"}}
	for name := range game.Strategies {
		progs = append(progs, Program{Name: name, Role: "player"})
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
				{Var: "EAIT", Name: "EAIT", Role: "players", Mock: []string{"-as", "EAIT", "-reference"}},
				{Var: "SCIENCE", Name: "SCIENCE", Role: "players", Mock: []string{"-as", "SCIENCE", "-reference"}},
				{Var: "HABS", Name: "HABS", Role: "players", Mock: []string{"-as", "HABS", "-reference"}},
				{Var: "HASS", Name: "HASS", Role: "players", Mock: []string{"-as", "HASS", "-reference"}},
				{Var: "MABS", Name: "MABS", Role: "players", Mock: []string{"-as", "MABS", "-reference"}},
			},
			Categories: game.Categories,
			Timeout:    10 * time.Second,
		},
		Live: []Live{{
			Keys:  "rolls=FILE winscore=N players=N seat=LABEL [others=STRATEGY,...] (others default to EAIT)",
			Setup: stluciaLive,
		}},
		Mutants: &mutants.Set{Mutants: stluciajudges.Mutants, Cases: mutants.CasesOfRole("stlucia", "(hub_|game_)")},
	})
}

// stluciaLive is a St Lucia game seen by one player (`judge stlucia rolls=FILE winscore=N
// players=N seat=LABEL [others=...]`): the hub's judge and reference players elsewhere.
func stluciaLive(p live.Params, read func(string) ([]byte, error)) (*live.Game, error) {
	rf, err := live.File(p, "rolls", read, game.ParseRollFile)
	if err != nil {
		return nil, err
	}
	win, err := p.Int("winscore")
	if err != nil {
		return nil, err
	}
	n, err := p.Int("players")
	if err != nil {
		return nil, err
	}
	label := p["seat"]
	if len(label) != 1 || label[0] < 'A' || int(label[0]-'A') >= n {
		return nil, fmt.Errorf("live: seat=%q is not the label of one of %d players", label, n)
	}
	seat := int(label[0] - 'A')
	names, err := p.Others(n, "EAIT", func(s string) bool { _, ok := game.Strategies[s]; return ok })
	if err != nil {
		return nil, err
	}
	j, err := game.NewJudge(rf.Dice(), win, n)
	if err != nil {
		return nil, err
	}
	return &live.Game{Judge: j, Seat: seat, Others: live.Seated(n, seat, names, func(name string, s int) judge.Responder {
		return game.NewResponder(game.Strategies[name], n, s)
	})}, nil
}
