package programs

import (
	"fmt"
	"math/rand/v2"
	"time"

	"gauntlet/games/judge"
	game "gauntlet/games/stratego"
	"gauntlet/harness/grading/grade"
	"gauntlet/harness/grading/tournament"
	"gauntlet/harness/judges/live"
	"gauntlet/judges/strategojudges"
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
			// Limits from the protocol (StrategoCPU): a program of a case may think for as
			// long as its moves allow, and a case last as long as both sides' moves.
			Timeout: 2 * StrategoCPU,
			CPU:     StrategoCPU,
			// A submission may be an AI, a manager, or both: graded on what it built.
			ProgramsOptional: true,
		},
		Live: []Live{{
			Keys:         "seat=RED|BLUE [others=random|hunter] [seed=N] [turns=N] (the other AI defaults to random, seed 1, turns 5000)",
			Setup:        strategoLive,
			Conversation: strategoConversation,
			Variable:     "AI", Section: "Protocol", Category: "ai/play",
		}},
		Tournament: &Tournament{
			Usage: "[flags] AI AI...",
			Turns: true,
			Match: func(boxes *tournament.Boxes, stop <-chan struct{}, _, perMove, turns string) tournament.Match {
				return strategojudges.Match(boxes, stop, "-T", perMove, "-m", turns)
			},
			CPU: strategoTournamentCPU,
		},
	})
}

// StrategoMoveTime is the time an AI has for each line it owes, as the protocol says (2
// seconds), and StrategoSuiteTurns the turn limit of the AI suite's games (the turns= of
// its cases). An AI makes at most StrategoSuiteTurns moves in a suite game, after its
// setup: StrategoCPU, the time all its lines may take, is the CPU time each process of a
// Stratego case may use (an AI stopped by a limit below it would be one the protocol
// lets play on); the wall deadline of a case's programs is twice that, both sides' lines.
// The manager cases end long before (their games are the reference AIs', under 500 moves),
// with deadlines of their own.
const (
	StrategoMoveTime   = 2 * time.Second
	StrategoSuiteTurns = 500
	StrategoCPU        = (StrategoSuiteTurns + 1) * StrategoMoveTime
)

// strategoTournamentCPU is the CPU time each AI of a tournament game may use: what the
// game's turn limit (a turn is one move of each AI) allows at its time per move (the
// manager stops an AI while its opponent moves), at least a minute.
func strategoTournamentCPU(perMove time.Duration, turns int) time.Duration {
	return max(time.Minute, time.Duration(turns)*perMove)
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
	other := p["others"]
	switch other {
	case "", "random":
		brain, other = game.Random{R: r}, "random"
	case "hunter":
		brain = game.NewHunter(r)
	default:
		return nil, fmt.Errorf("live: others= must be random or hunter")
	}
	// The opponent's name is what a real manager sends: the path it was given for the
	// other AI (OpponentName), never a word no 2012 manager sent.
	names := [2]string{"subject", "subject"}
	names[seat.Other()] = OpponentName(other)
	others := make([]judge.Responder, 2)
	others[seat.Other()] = game.NewResponder(brain)
	return &live.Game{Judge: game.NewJudge(names, turns), Seat: int(seat), Others: others}, nil
}

// OpponentName is the name the AI suite's manager gives an AI for its opponent, the
// reference AI of strategy kind (random or hunter): a path to that program in the
// manager's folder, as a manager given the AIs as paths (as the 2012 manual says) sends
// it, e.g. "./stratego-hunter".
func OpponentName(kind string) string { return "./stratego-" + kind }

// strategoConversation draws a live game for the fuzzer: a seat, the other AI and a seed.
// Only the play is judged: how the AI exits after QUIT is the suite's ai/end cases'.
func strategoConversation(r *rand.Rand) string {
	return fmt.Sprintf("judge stratego seat=%s others=%s seed=%d turns=%d\nlive\nend\n",
		pick(r, "RED", "BLUE"), pick(r, "random", "hunter"), 1+r.IntN(100000), StrategoSuiteTurns)
}

// pick is one of s, drawn by r.
func pick(r *rand.Rand, s ...string) string { return s[r.IntN(len(s))] }
