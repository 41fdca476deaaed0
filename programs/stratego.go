package programs

import (
	"fmt"
	"math/rand/v2"
	"time"

	"gauntlet/games/judge"
	game "gauntlet/games/stratego"
	"gauntlet/harness/grade"
	"gauntlet/harness/live"
)

// Stratego's manager and reference AIs. The suite grades an AI, which a submission builds
// as the program "ai"; the reference "ai" is the hunter.
func init() {
	RegisterGame(Registration{
		Programs: []Program{
			{Name: "stratego", Role: "hub"},
			{Name: "stratego-random", Role: "player"},
			{Name: "stratego-hunter", Role: "player"},
			{Name: "ai", Role: "player"},
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
		Live: []Live{{
			Keys:         "seat=RED|BLUE [others=random|hunter] [seed=N] [turns=N] (the other AI defaults to random, seed 1, turns 5000)",
			Setup:        strategoLive,
			Conversation: strategoConversation,
			Variable:     "AI", Section: "Protocol", Category: "ai/play",
		}},
	})
}

// strategoLive is a Stratego game seen by one AI: the manager's judge and a reference AI.
func strategoLive(p live.Params, _ func(string) ([]byte, error)) (*live.Game, error) {
	seat, err := game.ParseColour(p["seat"])
	if err != nil {
		return nil, fmt.Errorf("live: seat= must be RED or BLUE")
	}
	turns := game.DefaultTurnLimit
	seed, err := p.Seed()
	if err != nil {
		return nil, err
	}
	if _, ok := p["turns"]; ok {
		if turns, err = p.Int("turns"); err != nil || turns <= 0 {
			return nil, fmt.Errorf("live: turns= must be a positive number")
		}
	}
	r := rand.New(rand.NewPCG(seed, 7))
	var brain game.Brain
	switch p["others"] {
	case "", "random":
		brain = game.Random{R: r}
	case "hunter":
		brain = game.NewHunter(r)
	default:
		return nil, fmt.Errorf("live: others= must be random or hunter")
	}
	names := [2]string{"subject", "subject"}
	names[seat.Other()] = "reference"
	others := make([]judge.Responder, 2)
	others[seat.Other()] = game.NewResponder(brain)
	return &live.Game{Judge: game.NewJudge(names, turns), Seat: int(seat), Others: others}, nil
}

// strategoConversation draws a live game for the fuzzer: a seat, the other AI and a seed.
func strategoConversation(r *rand.Rand) string {
	return fmt.Sprintf("judge stratego seat=%s others=%s seed=%d turns=1000\nlive\neof\nexit 0\n",
		pick(r, "RED", "BLUE"), pick(r, "random", "hunter"), 1+r.IntN(100000))
}

// pick is one of s, drawn by r.
func pick(r *rand.Rand, s ...string) string { return s[r.IntN(len(s))] }
