// Package live sets up a game for live judging: the game's judge (games/judge) as the hub,
// the reference responders in every seat but the subject's, from the few settings a case
// gives (files, the number of players, the subject's seat, the others' strategies). The mock
// hub uses it for its `judge` and `live` steps.
package live

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"gauntlet/games/clue"
	"gauntlet/games/dealer2310"
	"gauntlet/games/judge"
	"gauntlet/games/referee"
	"gauntlet/games/stlucia"
	"gauntlet/games/stratego"
)

// Game is a game set up for live judging.
type Game struct {
	Judge  judge.Judge
	Seat   int               // the subject's seat
	Others []judge.Responder // one per seat; nil at Seat
}

// Params are a case's settings, "key=value" words.
type Params map[string]string

// Setup builds a game from params, reading the files they name with read.
type Setup func(p Params, read func(string) ([]byte, error)) (*Game, error)

// Register makes a game judgeable live under name, with keys documenting its settings (as
// Keys does): how a game registered in one place (programs.RegisterGame) joins the mock
// hub's judge steps and the live fuzzer.
func Register(name, keys string, s Setup) {
	if _, dup := games[name]; dup {
		panic("live: " + name + " registered twice")
	}
	games[name] = s
	Keys[name] = keys
}

var games = map[string]Setup{
	"stlucia":     stluciaGame,
	"dealer2310":  dealerGame,
	"stratego":    strategoGame,
	"clue":        clueGame,
	"tictactoe":   func(p Params, _ func(string) ([]byte, error)) (*Game, error) { return refereeGame(p, false) },
	"connectfour": func(p Params, _ func(string) ([]byte, error)) (*Game, error) { return refereeGame(p, true) },
}

// Games lists the games that can be judged live.
func Games() []string {
	var out []string
	for g := range games {
		out = append(out, g)
	}
	sort.Strings(out)
	return out
}

// New sets up game from params (see the game's keys in Keys).
func New(game string, p Params, read func(string) ([]byte, error)) (*Game, error) {
	s, ok := games[game]
	if !ok {
		return nil, fmt.Errorf("live: no game %q (games: %s)", game, strings.Join(Games(), ", "))
	}
	return s(p, read)
}

// Keys documents each game's settings.
var Keys = map[string]string{
	"stlucia":     "rolls=FILE winscore=N players=N seat=LABEL [others=STRATEGY,...] (others default to EAIT)",
	"dealer2310":  "path=FILE deck=FILE players=N seat=N [others=STRATEGY,...] (others default to 2310A)",
	"clue":        "seat=0-5 [others=KIND,...] [seed=N] (a game on the Clue server's judge; the five others default to sensible; kinds: random, sensible, leech, strong)",
	"stratego":    "seat=RED|BLUE [others=random|hunter] [seed=N] [turns=N] (the other AI defaults to random, seed 1, turns 5000)",
	"tictactoe":   "seat=0|1 [others=random|perfect] [seed=N] (a referee-protocol match: the runner and the tic-tac-toe referee judge the player)",
	"connectfour": "seat=0|1 [seed=N] (a referee-protocol match with write_lines and no_last_move; the other player is random)",
}

func (p Params) int(key string) (int, error) {
	v, ok := p[key]
	if !ok {
		return 0, fmt.Errorf("live: %s= is missing", key)
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("live: %s=%q is not a number", key, v)
	}
	return n, nil
}

// seed is the seed= setting, 1 when not given.
func (p Params) seed() (uint64, error) {
	if _, ok := p["seed"]; !ok {
		return 1, nil
	}
	n, err := p.int("seed")
	if err != nil || n < 0 {
		return 0, fmt.Errorf("live: seed= must be a number")
	}
	return uint64(n), nil
}

// others returns the strategy names of the n-1 other seats, each from known.
func (p Params) others(n int, def string, known func(string) bool) ([]string, error) {
	names := make([]string, n-1)
	for i := range names {
		names[i] = def
	}
	if v, ok := p["others"]; ok {
		names = strings.Split(v, ",")
		if len(names) != n-1 {
			return nil, fmt.Errorf("live: others= names %d strategies for %d other seats", len(names), n-1)
		}
	}
	for _, s := range names {
		if !known(s) {
			return nil, fmt.Errorf("live: no strategy %q", s)
		}
	}
	return names, nil
}

// seated fills every seat but seat with a responder made by mk from the others' names.
func seated(n, seat int, names []string, mk func(name string, s int) judge.Responder) []judge.Responder {
	rs := make([]judge.Responder, n)
	k := 0
	for s := range rs {
		if s != seat {
			rs[s] = mk(names[k], s)
			k++
		}
	}
	return rs
}

func stluciaGame(p Params, read func(string) ([]byte, error)) (*Game, error) {
	data, err := read(p["rolls"])
	if err != nil {
		return nil, fmt.Errorf("live: rolls=: %w", err)
	}
	rf, err := stlucia.ParseRollFile(data)
	if err != nil {
		return nil, fmt.Errorf("live: rolls=: %w", err)
	}
	win, err := p.int("winscore")
	if err != nil {
		return nil, err
	}
	n, err := p.int("players")
	if err != nil {
		return nil, err
	}
	label := p["seat"]
	if len(label) != 1 || label[0] < 'A' || int(label[0]-'A') >= n {
		return nil, fmt.Errorf("live: seat=%q is not the label of one of %d players", label, n)
	}
	seat := int(label[0] - 'A')
	names, err := p.others(n, "EAIT", func(s string) bool { _, ok := stlucia.Strategies[s]; return ok })
	if err != nil {
		return nil, err
	}
	j, err := stlucia.NewJudge(rf.Dice(), win, n)
	if err != nil {
		return nil, err
	}
	return &Game{Judge: j, Seat: seat, Others: seated(n, seat, names, func(name string, s int) judge.Responder {
		return stlucia.NewResponder(stlucia.Strategies[name], n, s)
	})}, nil
}

func dealerGame(p Params, read func(string) ([]byte, error)) (*Game, error) {
	pathData, err := read(p["path"])
	if err != nil {
		return nil, fmt.Errorf("live: path=: %w", err)
	}
	path, err := dealer2310.ParsePathFile(pathData)
	if err != nil {
		return nil, fmt.Errorf("live: path=: %w", err)
	}
	deckData, err := read(p["deck"])
	if err != nil {
		return nil, fmt.Errorf("live: deck=: %w", err)
	}
	deck, err := dealer2310.ParseDeckFile(deckData)
	if err != nil {
		return nil, fmt.Errorf("live: deck=: %w", err)
	}
	n, err := p.int("players")
	if err != nil {
		return nil, err
	}
	seat, err := p.int("seat")
	if err != nil || seat < 0 || seat >= n {
		return nil, fmt.Errorf("live: seat= must be a player number from 0 to %d", n-1)
	}
	names, err := p.others(n, "2310A", func(s string) bool { _, ok := dealer2310.Strategies[s]; return ok })
	if err != nil {
		return nil, err
	}
	j, err := dealer2310.NewJudge(path, deck, n)
	if err != nil {
		return nil, err
	}
	return &Game{Judge: j, Seat: seat, Others: seated(n, seat, names, func(name string, s int) judge.Responder {
		return dealer2310.NewResponder(dealer2310.Strategies[name], n, s)
	})}, nil
}

func strategoGame(p Params, _ func(string) ([]byte, error)) (*Game, error) {
	seat, err := stratego.ParseColour(p["seat"])
	if err != nil {
		return nil, fmt.Errorf("live: seat= must be RED or BLUE")
	}
	turns := stratego.DefaultTurnLimit
	seed, err := p.seed()
	if err != nil {
		return nil, err
	}
	if _, ok := p["turns"]; ok {
		if turns, err = p.int("turns"); err != nil || turns <= 0 {
			return nil, fmt.Errorf("live: turns= must be a positive number")
		}
	}
	r := rand.New(rand.NewPCG(seed, 7))
	var brain stratego.Brain
	switch p["others"] {
	case "", "random":
		brain = stratego.Random{R: r}
	case "hunter":
		brain = stratego.NewHunter(r)
	default:
		return nil, fmt.Errorf("live: others= must be random or hunter")
	}
	names := [2]string{"subject", "subject"}
	names[seat.Other()] = "reference"
	others := make([]judge.Responder, 2)
	others[seat.Other()] = stratego.NewResponder(brain)
	return &Game{Judge: stratego.NewJudge(names, turns), Seat: int(seat), Others: others}, nil
}

// refereeGame is a referee-protocol match of an example game, seen by a player: the
// runner and the game's referee as the hub, a reference player in the other seat.
func refereeGame(p Params, c4 bool) (*Game, error) {
	seat, err := p.int("seat")
	if err != nil || seat < 0 || seat > 1 {
		return nil, fmt.Errorf("live: seat= must be 0 or 1")
	}
	seed, err := p.seed()
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(seed, 9))
	others := make([]judge.Responder, 2)
	if c4 {
		others[1-seat] = referee.NewC4Responder(&referee.C4Player{R: r})
		return &Game{Judge: referee.NewMatchJudge(referee.NewConnectFour()), Seat: seat, Others: others}, nil
	}
	switch p["others"] {
	case "", "random":
		others[1-seat] = referee.NewTTTResponder(&referee.TTTPlayer{R: r})
	case "perfect":
		others[1-seat] = referee.NewTTTResponder(&referee.TTTPlayer{R: r, Perfect: true})
	default:
		return nil, fmt.Errorf("live: others= must be random or perfect")
	}
	return &Game{Judge: referee.NewMatchJudge(&referee.TicTacToe{}), Seat: seat, Others: others}, nil
}

// clueGame is a Clue game seen by one client: the server's judge (ending at the first
// broken rule) and reference clients in the other five seats.
func clueGame(p Params, _ func(string) ([]byte, error)) (*Game, error) {
	seat, err := p.int("seat")
	if err != nil || seat < 0 || seat >= clue.Tokens {
		return nil, fmt.Errorf("live: seat= must be 0 to 5")
	}
	seed, err := p.seed()
	if err != nil {
		return nil, err
	}
	names, err := p.others(clue.Tokens, "sensible", func(s string) bool { return clue.NewBrain(s, nil) != nil })
	if err != nil {
		return nil, err
	}
	j := clue.NewServer(clue.ServerOptions{Seed: seed, EndOnViolation: true})
	return &Game{Judge: j, Seat: seat, Others: seated(clue.Tokens, seat, names, func(name string, s int) judge.Responder {
		return clue.NewClient(name, clue.NewBrain(name, rand.New(rand.NewPCG(seed, uint64(s)))))
	})}, nil
}
