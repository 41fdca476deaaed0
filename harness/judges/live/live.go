// Package live sets up a game for live judging: the game's judge (games/judge) as the hub,
// the reference responders in every seat but the subject's, from the few settings a case
// gives (files, the number of players, the subject's seat, the others' strategies). The mock
// hub uses it for its `judge` and `live` steps. Each game gives its set-up in its
// registration (programs.RegisterGame), with the helpers here for the settings every game
// reads.
package live

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"gauntlet/games/judge"
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

var games = map[string]Setup{}

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
var Keys = map[string]string{}

// Int is the number setting key (key=N).
func (p Params) Int(key string) (int, error) {
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

// File reads the file the setting key names (key=FILE) with read and parses it: what a
// game's input file settings share (a rolls file, a path, a deck). Errors name the setting.
func File[T any](p Params, key string, read func(string) ([]byte, error), parse func([]byte) (T, error)) (T, error) {
	var v T
	data, err := read(p[key])
	if err == nil {
		v, err = parse(data)
	}
	if err != nil {
		return v, fmt.Errorf("live: %s=: %w", key, err)
	}
	return v, nil
}

// Seed is the seed= setting, 1 when not given.
func (p Params) Seed() (uint64, error) {
	if _, ok := p["seed"]; !ok {
		return 1, nil
	}
	n, err := p.Int("seed")
	if err != nil || n < 0 {
		return 0, fmt.Errorf("live: seed= must be a number")
	}
	return uint64(n), nil
}

// Others returns the strategy names of the n-1 other seats (others=NAME,...; each def when
// not given), each one known.
func (p Params) Others(n int, def string, known func(string) bool) ([]string, error) {
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

// Seated fills every seat but seat with a responder made by mk from the others' names.
func Seated(n, seat int, names []string, mk func(name string, s int) judge.Responder) []judge.Responder {
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
