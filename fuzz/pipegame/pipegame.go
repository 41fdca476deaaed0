// Package pipegame is what a pipe game whose every line the spec fixes gives the black-box
// fuzzer (fuzz/blackbox): its adapter (Game: its programs, how its engine makes a base
// conversation or a base game, and how its messages go wrong), registered by name
// (Register, from the adapter's init), and the helpers adapters share. It stands apart
// from the fuzzer so that an adapter, which is its game's code (judges/<game>judges),
// imports it and not the fuzzer, whose tests then use the real games' adapters.
package pipegame

import (
	"errors"
	"math/rand/v2"
	"sort"
	"strings"

	"gauntlet/games/contract"
	"gauntlet/games/grammar"
	"gauntlet/games/judge"
)

// Role says which side of a game the subject plays.
type Role string

// The roles.
const (
	RolePlayer Role = "player"
	RoleHub    Role = "hub"
)

// HubSetup is a game as a hub is given it: input files, the arguments before the player
// programs, and the reference player each seat is taken by.
type HubSetup struct {
	Files   map[string]string // file name -> contents, written in the hub's folder
	Args    []string          // the hub's arguments before the programs (file names, numbers)
	Players []string          // the reference player of each seat, in order
}

// Clone returns an independent copy.
func (s HubSetup) Clone() HubSetup {
	c := HubSetup{Files: map[string]string{}, Args: append([]string(nil), s.Args...), Players: append([]string(nil), s.Players...)}
	for k, v := range s.Files {
		c.Files[k] = v
	}
	return c
}

// FileNames returns the setup's file names, sorted.
func (s HubSetup) FileNames() []string {
	var names []string
	for k := range s.Files {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// Game adapts one game to the fuzzer: its programs, how its engine makes a base
// conversation or a base game, and how its messages go wrong. Everything else (running,
// comparing, minimising, writing regressions) is the same for every game.
type Game interface {
	// Name is the game's name as the CLI knows it ("stlucia").
	Name() string
	// Hub and Players are the reference programs' names.
	Hub() string
	Players() []string
	// Hello is the handshake a player writes first.
	Hello() string

	// Conversation plays a random game in the engine, with player (a reference player's
	// name) in one seat, and returns that seat's arguments and its side of the game.
	Conversation(r *rand.Rand, player string) (args []string, events []judge.Line, err error)
	// Solicits reports whether a hub line asks the player for a reply.
	Solicits(line string) bool
	// Malformed returns line broken in one of the ways the game's grammar forbids.
	Malformed(r *rand.Rand, line string) string
	// Boundary returns line with one field at an edge of its range (a player beyond the
	// count, the largest number, ...), for a player with the given arguments.
	Boundary(r *rand.Rand, line string, args []string) string
	// Message returns a random well-formed hub message, for a player with these arguments.
	Message(r *rand.Rand, args []string) string
	// BadArgs returns wrong arguments for a player whose right ones are args.
	BadArgs(r *rand.Rand, args []string) []string

	// Setup returns a random valid game for the hub.
	Setup(r *rand.Rand) HubSetup
	// BadSetup returns s with one input the hub must refuse (a bad file, a bad number).
	BadSetup(r *rand.Rand, s HubSetup) HubSetup
	// BadReply returns a reply line a hub must refuse: malformed or illegal.
	BadReply(r *rand.Rand) string
	// Finite reports whether the honest game of s ends (or s is refused at once): the
	// minimiser skips setups whose game would run until the deadline.
	Finite(s HubSetup) bool
	// Smaller returns smaller versions of s's input files, for the minimiser (largest cut
	// first), in the files' own structure where they have one.
	Smaller(s HubSetup) []HubSetup

	// Category gives the suite section and marking category of a regression case found in
	// this role, for this reference program, with this mutation kind.
	Category(role Role, program, kind string) (section, category string)

	// Contract is the exit table of the programs that play role.
	Contract(role Role) contract.Table
	// Refusal replays the lines a hub sent to the reference player program (with these
	// arguments) through the engine's own player and names the rule of the first line it
	// refused: the codec's or the view's typed error ("" when it refused none).
	Refusal(program string, args, lines []string) string
	// LineRule names the rule of the spec that a line of the reference's output follows
	// (stream "stdout" or "stderr"): a short stable id ("display", "status") and the rule
	// in words; "" when the game has no name for that kind of line.
	LineRule(role Role, stream, line string) (id, words string)
}

var games = map[string]Game{}

// Register makes a game known to Lookup.
func Register(g Game) { games[g.Name()] = g }

// Lookup returns the adapter of the named game.
func Lookup(name string) (Game, bool) {
	g, ok := games[name]
	return g, ok
}

// Games lists the names of the games the fuzzer knows, sorted.
func Games() []string {
	var names []string
	for n := range games {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// SmallerBytes returns s with runs of bytes cut out of each file (a final newline is kept:
// a regression file cannot hold a file without one). It suits files that are a stream of
// symbols, such as a roll file.
func SmallerBytes(s HubSetup) []HubSetup {
	var out []HubSetup
	for _, name := range s.FileNames() {
		body, nl := s.Files[name], ""
		if strings.HasSuffix(body, "\n") {
			body, nl = strings.TrimSuffix(body, "\n"), "\n"
		}
		for _, ch := range Chunks(len(body)) {
			d := s.Clone()
			d.Files[name] = body[:ch[0]] + body[ch[1]:] + nl
			out = append(out, d)
		}
	}
	return out
}

// Pick returns a random element of xs.
func Pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

// Chunks returns the ways to cut a list of n items: for sizes n/2, n/4, ..., 1, every run of
// that many consecutive items, as [from, to) pairs. Cutting big runs first makes a long
// input short in few tries (the idea of delta debugging).
func Chunks(n int) [][2]int {
	var out [][2]int
	for size := n / 2; ; size /= 2 {
		if size < 1 {
			size = 1
		}
		for from := 0; from < n; from += size {
			out = append(out, [2]int{from, min(from+size, n)})
		}
		if size == 1 {
			return out
		}
	}
}

// ErrorRule names the rule an engine's error names: a codec error's Rule, or the error's
// text without its package prefix; "" for no error.
func ErrorRule(err error) string {
	if err == nil {
		return ""
	}
	var ge *grammar.Error
	if errors.As(err, &ge) {
		return ge.Rule
	}
	msg := err.Error()
	if _, rest, ok := strings.Cut(msg, ": "); ok {
		return rest
	}
	return msg
}

// IsCodecError reports whether err is a codec's typed error (grammar.Error).
func IsCodecError(err error) bool {
	var ge *grammar.Error
	return errors.As(err, &ge)
}
