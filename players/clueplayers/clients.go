// Package clueplayers holds the reference Clue clients' programs: each connects to a server at
// the host and port of its command line, sends its name, and plays with one of the pure
// brains of gauntlet/games/clue behind that package's client responder.
package clueplayers

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"time"

	"gauntlet/games/clue"
	"gauntlet/games/judge"
	"gauntlet/harness/runtime/csignal"
	"gauntlet/harness/runtime/respond"
	"gauntlet/harness/runtime/tcp"
)

// Main returns the program of the client playing the strategy kind (one of
// clue.BrainNames): clue-KIND HOST PORT [NAME [SEED]].
func Main(kind string) func() int {
	return func() int {
		csignal.Default()
		return Run(kind, os.Args[1:], os.Stderr)
	}
}

// Run connects and plays; it returns the exit status (docs/clue.md).
func Run(kind string, args []string, stderr io.Writer) int {
	if len(args) < 2 || len(args) > 4 {
		fmt.Fprintf(stderr, "Usage: clue-%s host port [name [seed]]\n", kind)
		return clue.ExitUsage
	}
	name, seed := kind, uint64(rand.Int64())
	if len(args) > 2 {
		name = args[2]
	}
	if len(args) > 3 {
		n, err := strconv.ParseUint(args[3], 10, 64)
		if err != nil {
			fmt.Fprintf(stderr, "Usage: clue-%s host port [name [seed]]\n", kind)
			return clue.ExitUsage
		}
		seed = n
	}
	port, err := tcp.ParsePort(args[1])
	if err != nil {
		fmt.Fprintf(stderr, "Usage: clue-%s host port [name [seed]]\n", kind)
		return clue.ExitUsage
	}
	conn, err := tcp.Dial(args[0], port, 5*time.Second)
	if err != nil {
		fmt.Fprintln(stderr, "Cannot connect to server")
		return clue.ExitConnect
	}
	defer conn.Close()
	brain := clue.NewBrain(kind, rand.New(rand.NewPCG(seed, seed^0xc10e)))
	return Play(clue.NewClient(name, brain), conn, stderr)
}

// Play plays the client r over a connection to the server.
func Play(r judge.Responder, conn io.ReadWriter, stderr io.Writer) int {
	return respond.Run(r, conn, conn, stderr)
}
