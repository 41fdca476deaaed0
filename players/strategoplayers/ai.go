// Package strategoplayers holds the reference Stratego AIs' programs: each is a brain of
// gauntlet/games/stratego (its setup and its moves, pure) behind that package's responder,
// reading the manager's lines on stdin and answering on stdout.
package strategoplayers

import (
	"gauntlet/harness/runtime/csignal"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"gauntlet/games/stratego"
	"gauntlet/harness/runtime/respond"
)

// seed is the first of args, or def.
func seed(args []string, def uint64) uint64 {
	if len(args) > 0 {
		if n, err := strconv.ParseUint(args[0], 10, 64); err == nil {
			return n
		}
	}
	return def
}

// NewRandom and NewHunter are the reference brains with their seed: the same seed, the
// same game.
func NewRandom(seed uint64) stratego.Brain {
	return stratego.Random{R: rand.New(rand.NewPCG(seed, seed^0x5eed))}
}
func NewHunter(seed uint64) stratego.Brain {
	return stratego.NewHunter(rand.New(rand.NewPCG(seed, seed^0xbeef)))
}

// MainRandom is the stratego-random program: its seed is its first argument, or drawn
// from the clock so that two games differ.
func MainRandom() int {
	csignal.Player()
	return play(NewRandom(seed(os.Args[1:], uint64(rand.Int64()))), os.Stdin, os.Stdout)
}

// MainHunter is the stratego-hunter program (seeded as MainRandom).
func MainHunter() int {
	csignal.Player()
	return play(NewHunter(seed(os.Args[1:], uint64(rand.Int64()))), os.Stdin, os.Stdout)
}

// PlayRandom and PlayHunter are the in-process forms of the AIs, for the mock player: the
// seed is the first argument, 1 by default, so that a game the mock plays is the same every
// time.
func PlayRandom(args []string, stdin io.Reader, stdout, _ io.Writer) int {
	return Run(NewRandom(seed(args, 1)), stdin, stdout)
}

func PlayHunter(args []string, stdin io.Reader, stdout, _ io.Writer) int {
	return Run(NewHunter(seed(args, 1)), stdin, stdout)
}

// Run plays one game with brain b over the manager's lines and returns the exit status:
// 0 after QUIT, 1 when the manager is lost. It is the game's responder (games/stratego)
// on the one player runtime (harness/runtime/respond).
//
// In the process of another program (the mock player) a lost manager must not kill it by
// SIGPIPE either: Run catches SIGPIPE (Notify, not Ignore: that program may start others).
func Run(b stratego.Brain, stdin io.Reader, stdout io.Writer) int {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	return play(b, stdin, stdout)
}

// play is Run without the SIGPIPE handling: the AI programs ignore it (csignal.Player).
func play(b stratego.Brain, stdin io.Reader, stdout io.Writer) int {
	return respond.Run(stratego.NewResponder(b), stdin, stdout, io.Discard)
}
