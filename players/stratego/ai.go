// Package stratego holds the reference Stratego AIs: thin I/O loops over the strategies of
// gauntlet/games/stratego. An AI answers the setup query with its four rows, each turn
// query (START or a confirmation, then the 10 rows of its view) with a move, and exits 0 on
// QUIT.
package stratego

import (
	"bufio"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	game "gauntlet/games/stratego"
	"gauntlet/harness/lineio"
)

// Brain is an AI's decisions: its setup, and its move from its view.
type Brain interface {
	Setup(c game.Colour) game.Setup
	Move(view []string) game.Move
}

// Observer is a Brain that learns from confirmations: its own moves' (mine) and its
// opponent's.
type Observer interface {
	Observe(confirmation string, mine bool)
}

// Random plays any legal move, drawn at random, from a random setup.
type Random struct{ R *rand.Rand }

func (b Random) Setup(game.Colour) game.Setup { return game.RandomSetup(b.R) }
func (b Random) Move(view []string) game.Move { return game.RandomMove(view, b.R) }

// MainRandom is the stratego-random program: the seed is its first argument (default:
// from the clock, so that two games differ).
func MainRandom() int {
	seed := uint64(rand.Int64())
	if len(os.Args) > 1 {
		if n, err := strconv.ParseUint(os.Args[1], 10, 64); err == nil {
			seed = n
		}
	}
	return Run(Random{R: rand.New(rand.NewPCG(seed, seed^0x5eed))}, os.Stdin, os.Stdout)
}

// Run plays one game with brain b over the manager's lines and returns the exit status:
// 0 after QUIT, 1 when the manager is lost or sends what the protocol does not allow.
func Run(b Brain, stdin io.Reader, stdout io.Writer) int {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	in := lineio.NewReader(stdin)
	out := bufio.NewWriter(stdout)
	send := func(lines ...string) {
		for _, l := range lines {
			out.WriteString(l)
			out.WriteByte('\n')
		}
		out.Flush()
	}
	ownConfirmation := false // the next line confirms this AI's own move
	for {
		line, err := in.ReadLine()
		if err != nil {
			return 1
		}
		f := strings.Fields(line)
		switch {
		case len(f) > 0 && f[0] == "QUIT":
			return 0
		case ownConfirmation:
			ownConfirmation = false
			if o, ok := b.(Observer); ok {
				o.Observe(line, true)
			}
		case len(f) == 4 && (f[0] == "RED" || f[0] == "BLUE"):
			c, _ := game.ParseColour(f[0])
			send(b.Setup(c).Lines()...)
		default:
			// A turn query: START or the opponent's confirmation, then the 10 rows.
			if o, ok := b.(Observer); ok && line != "START" {
				o.Observe(line, false)
			}
			view := make([]string, game.Size)
			for i := range view {
				if view[i], err = in.ReadLine(); err != nil {
					return 1
				}
			}
			send(b.Move(view).String())
			ownConfirmation = true
		}
	}
}
