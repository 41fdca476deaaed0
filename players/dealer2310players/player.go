// Package dealer2310players is the runtime of the reference players of the 2310 path game (2310A
// and 2310B): argument checks, the '^' handshake, and a loop that hands each line from the
// dealer to the pure player of gauntlet/games/dealer2310 and carries out its reaction.
package dealer2310players

import (
	"gauntlet/harness/runtime/csignal"
	"io"
	"os"

	"gauntlet/games/dealer2310"
	"gauntlet/harness/runtime/respond"
)

// MainA is the 2310A program.
func MainA() int { return Main("2310A") }

// MainB is the 2310B program.
func MainB() int { return Main("2310B") }

// Main runs the player whose strategy is named name (a key of dealer2310.Strategies) on the
// process's arguments and standard streams, and returns its exit status. The binary's own
// file name plays no part, so a renamed copy behaves the same.
func Main(name string) int {
	csignal.Player() // a lost dealer shows as the read failure that follows, not SIGPIPE
	s, ok := dealer2310.Strategies[name]
	if !ok {
		panic("dealer2310: no strategy " + name)
	}
	return Run(s, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// Run plays strategy s with the arguments args (without the program name), reading the
// dealer's messages from stdin, answering on stdout and echoing the game on stderr, and
// returns the exit status: the game's responder (games/dealer2310) on the one player
// runtime (harness/runtime/respond).
func Run(s dealer2310.Strategy, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	n, me, status := dealer2310.ParsePlayerArgs(args)
	if status != dealer2310.PlayerExitOK {
		io.WriteString(stderr, dealer2310.PlayerContract.Status(status).Stderr())
		return status
	}
	return respond.Run(dealer2310.NewResponder(s, n, me), stdin, stdout, stderr)
}
