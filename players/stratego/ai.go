// Package stratego holds the reference Stratego AIs' programs: each is a brain of
// gauntlet/games/stratego (its setup and its moves, pure) behind that package's responder,
// reading the manager's lines on stdin and answering on stdout.
package stratego

import (
	"bufio"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	game "gauntlet/games/stratego"
	"gauntlet/harness/lineio"
)

// seed is the program's first argument, or one drawn from the clock (two games differ).
func seed() uint64 {
	if len(os.Args) > 1 {
		if n, err := strconv.ParseUint(os.Args[1], 10, 64); err == nil {
			return n
		}
	}
	return uint64(rand.Int64())
}

// MainRandom is the stratego-random program.
func MainRandom() int {
	s := seed()
	return Run(game.Random{R: rand.New(rand.NewPCG(s, s^0x5eed))}, os.Stdin, os.Stdout)
}

// MainHunter is the stratego-hunter program.
func MainHunter() int {
	s := seed()
	return Run(game.NewHunter(rand.New(rand.NewPCG(s, s^0xbeef))), os.Stdin, os.Stdout)
}

// Run plays one game with brain b over the manager's lines and returns the exit status:
// 0 after QUIT, 1 when the manager is lost.
func Run(b game.Brain, stdin io.Reader, stdout io.Writer) int {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	r := game.NewResponder(b)
	in := lineio.NewReader(stdin)
	out := bufio.NewWriter(stdout)
	for {
		line, err := in.ReadLine()
		if err != nil {
			return r.Lost().Status
		}
		x := r.React(line)
		for _, l := range x.Replies {
			out.WriteString(l)
			out.WriteByte('\n')
		}
		out.Flush()
		if x.Done {
			return x.Status
		}
	}
}
