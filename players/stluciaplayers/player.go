// Package stluciaplayers is the runtime of the reference players of King of St Lucia (EAIT,
// SCIENCE, HABS, HASS, MABS): argument checks, the '!' handshake, and a loop that echoes
// each hub line to stderr and answers with the strategy's reply.
//
// The decisions themselves are the pure strategies and view of gauntlet/games/stlucia.
package stluciaplayers

import (
	"gauntlet/harness/runtime/csignal"
	"io"
	"os"

	"gauntlet/games/stlucia"
	"gauntlet/harness/runtime/respond"
)

// Main runs the player whose strategy is named name (a key of stlucia.Strategies) on the
// process's arguments and standard streams, and returns its exit status. Each player
// binary's main is this call with its own name; the binary's file name plays no part, so
// a renamed copy behaves the same.
func Main(name string) int {
	csignal.Player() // a lost hub shows as the read failure that follows (exit 4), not SIGPIPE
	s, ok := stlucia.Strategies[name]
	if !ok {
		panic("stlucia: no strategy " + name)
	}
	return Run(s, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// Run plays strategy s with the arguments args (without the program name), reading the
// hub's messages from stdin and answering on stdout, and returns the exit status: the
// game's responder (games/stlucia) on the one player runtime (harness/runtime/respond).
func Run(s stlucia.Strategy, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	n, me, status := stlucia.ParsePlayerArgs(args)
	if status != stlucia.PlayerExitOK {
		io.WriteString(stderr, stlucia.PlayerContract.Status(status).Stderr())
		return status
	}
	return respond.Run(stlucia.NewResponder(s, n, me), stdin, stdout, stderr)
}
