// Package programs is the table of every program gauntlet can act as: the spec-named
// reference hubs and players of each game, and the mock programs.
//
// One binary can be any of them: the gauntlet CLI runs as the program its file is named
// after (a link named 2310A runs the reference 2310A), and the testscript suites register
// the same table with testscript, so a script's `exec 2310dealer ...` runs the reference.
package programs

import (
	"fmt"
	"io"
	"os"
	"sort"

	"gauntlet/harness/judges/mockhub"
	"gauntlet/programs/standalone"
)

// Program is one program gauntlet can be.
type Program struct {
	Name string // the spec's name, e.g. "2310dealer", "EAIT"; or "mockplayer", "mockhub"
	Game string // the game it belongs to ("" for the mocks)
	Role string // "hub", "player" or "mock" (the mock player and hub; a game's own mock, such as Clue's mockclients, is its game's)
	// Main runs the program; left nil in a registration, it is the one of
	// gauntlet/programs/standalone, where every program but Later's is.
	Main func() int

	// Player is the in-process form of a reference player, for the mock player to wrap.
	Player func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

var table = map[string]Program{}

func register(ps ...Program) {
	for _, p := range ps {
		if _, dup := table[p.Name]; dup {
			panic("programs: " + p.Name + " registered twice")
		}
		if p.Main == nil {
			s, ok := standalone.Lookup(p.Name)
			if !ok {
				panic("programs: " + p.Name + " has no Main, here or in standalone")
			}
			p.Main, p.Player = s.Main, s.Player
		}
		table[p.Name] = p
	}
}

func init() {
	register(
		Program{Name: "mockplayer", Role: "mock"},
		Program{Name: "mockhub", Role: "mock", Main: func() int {
			return mockhub.Main(os.Args[1:], os.Stdout, os.Stderr)
		}},
	)
}

// Lookup finds a program by name.
func Lookup(name string) (Program, bool) {
	p, ok := table[name]
	return p, ok
}

// All lists every program, sorted by game then name.
func All() []Program {
	var out []Program
	for _, p := range table {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Game != out[j].Game {
			return out[i].Game < out[j].Game
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Called returns the program this process was started as, if any: the one the file the
// kernel ran is named after, when it is named after one, else the one argv[0] names. The
// grader hands a subject each reference program as a hard link named after it, so that a
// subject allowed to run one (a hub starting reference players) cannot make it another
// program (the reference hub) by the argv[0] it passes; a symbolic link named after a
// program (gauntlet play's, the tests') resolves to the binary's own name, and argv[0]
// decides.
func Called() (Program, bool) {
	name, ok := standalone.CalledName(func(name string) bool {
		_, ok := table[name]
		return ok
	})
	if !ok {
		return Program{}, false
	}
	return table[name], true
}

// Commands maps every program's name to its Main in the form testscript.Main takes: each
// exits with its program's status.
func Commands() map[string]func() {
	m := map[string]func(){}
	for name, p := range table {
		m[name] = func() { os.Exit(p.Main()) }
	}
	return m
}

// Game lists the programs of one game, hub first.
func Game(game string) []Program {
	var out []Program
	for _, p := range All() {
		if p.Game == game {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Role == "hub" && out[j].Role != "hub" })
	return out
}

// Describe is a one-line description of the program, for listings.
func (p Program) Describe() string {
	if p.Game == "" {
		return fmt.Sprintf("%-12s %s", p.Name, p.Role)
	}
	return fmt.Sprintf("%-12s %s %s", p.Name, p.Game, p.Role)
}
