package programs

import (
	"fmt"
	"math/rand/v2"
	"time"

	"gauntlet/games/judge"
	game "gauntlet/games/referee"
	"gauntlet/harness/grading/grade"
	"gauntlet/harness/grading/mutants"
	"gauntlet/harness/grading/tournament"
	"gauntlet/harness/judges/live"
	"gauntlet/harness/judges/mockhub"
	"gauntlet/judges/refereejudges"
)

// The referee protocol's match runner and the project's example referees and players.
func init() {
	RegisterGame(Registration{
		Programs: []Program{
			{Name: "referee-runner", Role: "hub"},
			{Name: "ttt-referee", Role: "referee"},
			{Name: "c4-referee", Role: "referee"},
			{Name: "ttt-random", Role: "player"},
			{Name: "ttt-perfect", Role: "player"},
			{Name: "c4-random", Role: "player"},
			// The programs a submission builds for the suite, as the reference plays them
			// ("referee", a referee of any game: the connect-four referee).
			{Name: "referee", Role: "referee"},
			{Name: "ttt-player", Role: "player"},
			{Name: "c4-player", Role: "player"},
		},
		Examples: []Example{{
			Name:  "tictactoe",
			About: "a tic-tac-toe match judged by its referee: referee-runner ttt-referee ttt-perfect ttt-random",
			Args:  []string{"ttt-referee", "ttt-perfect", "ttt-random"},
		}},
		Grade: grade.Game{
			Name: "referee",
			Programs: []grade.Program{
				{Var: "REFEREE", Name: "referee", Role: "referee"},
				{Var: "TTT_REFEREE", Name: "ttt-referee", Role: "referee"},
				{Var: "C4_REFEREE", Name: "c4-referee", Role: "referee"},
				{Var: "TTT_PLAYER", Name: "ttt-player", Role: "player"},
				{Var: "C4_PLAYER", Name: "c4-player", Role: "player"},
			},
			Categories: game.Categories,
			Timeout:    20 * time.Second,
		},
		// A player is judged live in a match of each example game.
		Live: []Live{
			{
				Name:  "tictactoe",
				Keys:  "seat=0|1 [others=random|perfect] [seed=N] (a referee-protocol match: the runner and the tic-tac-toe referee judge the player)",
				Setup: func(p live.Params, _ func(string) ([]byte, error)) (*live.Game, error) { return refereeLive(p, false) },
				Conversation: func(r *rand.Rand) string {
					return fmt.Sprintf("judge tictactoe seat=%d others=%s seed=%d\nlive\nclose\neof\n",
						r.IntN(2), pick(r, "random", "perfect"), 1+r.IntN(100000))
				},
				Variable: "TTT_PLAYER", Section: "Runner and players", Category: "player/tic-tac-toe",
			},
			{
				Name:  "connectfour",
				Keys:  "seat=0|1 [seed=N] (a referee-protocol match with write_lines and no_last_move; the other player is random)",
				Setup: func(p live.Params, _ func(string) ([]byte, error)) (*live.Game, error) { return refereeLive(p, true) },
				Conversation: func(r *rand.Rand) string {
					return fmt.Sprintf("judge connectfour seat=%d seed=%d\nlive\nclose\neof\n", r.IntN(2), 1+r.IntN(100000))
				},
				Variable: "C4_PLAYER", Section: "Runner and players", Category: "player/connect-four",
			},
		},
		// A tournament's games are judged by the user's referee, of any game.
		Tournament: &Tournament{
			Usage:   "-referee REFEREE [flags] PLAYER PLAYER...",
			Referee: true,
			Match: func(boxes *tournament.Boxes, stop <-chan struct{}, referee, perMove, _ string) tournament.Match {
				return refereejudges.Match(boxes, stop, referee, "-t", perMove, "-T", perMove)
			},
		},
		// Each referee has cases of its own, named after it.
		Mutants: &mutants.Set{Mutants: refereejudges.Mutants, Cases: mutants.CasesNamedAfter},
		// A referee of any game is probed as the match runner would: a conversation's
		// `referee check=PART ...` line (the protocol/ cases, gauntlet fuzz referee).
		Probes: map[string]mockhub.Probe{"referee": refereejudges.Parse},
	})
}

// refereeLive is a referee-protocol match of an example game, seen by a player: the
// runner and the game's referee as the hub, a reference player in the other seat.
func refereeLive(p live.Params, c4 bool) (*live.Game, error) {
	seat, err := p.Int("seat")
	if err != nil || seat < 0 || seat > 1 {
		return nil, fmt.Errorf("live: seat= must be 0 or 1")
	}
	seed, err := p.Seed()
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(seed, 9))
	others := make([]judge.Responder, 2)
	if c4 {
		others[1-seat] = game.NewC4Responder(&game.C4Player{R: r})
		return &live.Game{Judge: game.NewMatchJudge(game.NewConnectFour()), Seat: seat, Others: others}, nil
	}
	switch p["others"] {
	case "", "random":
		others[1-seat] = game.NewTTTResponder(&game.TTTPlayer{R: r})
	case "perfect":
		others[1-seat] = game.NewTTTResponder(&game.TTTPlayer{R: r, Perfect: true})
	default:
		return nil, fmt.Errorf("live: others= must be random or perfect")
	}
	return &live.Game{Judge: game.NewMatchJudge(&game.TicTacToe{}), Seat: seat, Others: others}, nil
}
