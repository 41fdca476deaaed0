// Package stlucia is the runtime of the reference players of King of St Lucia (EAIT,
// SCIENCE, HABS, HASS, MABS): argument checks, the '!' handshake, and a loop that echoes
// each hub line to stderr and answers with the strategy's reply.
//
// The decisions themselves are the pure strategies and view of gauntlet/games/stlucia.
package stlucia

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"

	game "gauntlet/games/stlucia"
	"gauntlet/harness/lineio"
)

// Main runs the player whose strategy is named name (a key of game.Strategies) on the
// process's arguments and standard streams, and returns its exit status. Each player
// binary's main is this call with its own name; the binary's file name plays no part, so
// a renamed copy behaves the same.
func Main(name string) int {
	s, ok := game.Strategies[name]
	if !ok {
		panic("stlucia: no strategy " + name)
	}
	// A hub that dies must not kill the player by SIGPIPE: the player notices the loss by
	// the read failure that follows (exit 4).
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	return Run(s, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// Run plays strategy s with the arguments args (without the program name), reading the
// hub's messages from stdin and answering on stdout, and returns the exit status. Write
// errors are ignored: a lost hub shows up as the read failure that follows.
func Run(s game.Strategy, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	errw := bufio.NewWriter(stderr)
	defer errw.Flush()
	fail := func(status int) int {
		errw.WriteString(game.PlayerContract.Status(status).Stderr())
		return status
	}
	n, me, status := game.ParsePlayerArgs(args)
	if status != game.PlayerExitOK {
		return fail(status)
	}
	out := bufio.NewWriter(stdout)
	out.WriteByte('!')
	out.Flush()

	p := game.NewPlayer(s, n, me)
	in := lineio.NewReader(stdin)
	for {
		errw.Flush()
		line, err := in.ReadLine()
		if errors.Is(err, lineio.ErrTooLong) {
			// The line is not kept, so it cannot be echoed; it is a bad message all the same.
			return fail(game.PlayerExitBadMsg)
		}
		if err != nil {
			return fail(game.PlayerExitLost)
		}
		errw.WriteString("From StLucia:")
		errw.WriteString(line)
		errw.WriteByte('\n')
		reply, ok, done, err := p.Handle(line)
		switch {
		case err != nil:
			return fail(game.PlayerExitBadMsg)
		case done:
			return game.PlayerExitOK
		case ok:
			out.WriteString(reply.String())
			out.WriteByte('\n')
			out.Flush()
		}
	}
}
