// Package stluciahub is the reference hub of King of St Lucia (the stlucia program): it checks
// its arguments, starts the players, and runs the game's judge (gauntlet/games/stlucia's
// NewJudge, the shape every game offers: games/judge) over the players' pipes, printing what
// the spec asks on stderr.
//
// All game rules live in the engine, and the loop between the judge and the players'
// processes is the one of every reference hub (gauntlet/harness/runtime/hubrt's Play): this package
// gives that loop its policy (the handshake, the statuses, the grace before SIGKILL, what
// SIGINT does) and prints the final lines on stderr.
package stluciahub

import (
	"bufio"
	"errors"
	"gauntlet/harness/runtime/csignal"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"gauntlet/games/stlucia"
	"gauntlet/harness/runtime/hubrt"
	"gauntlet/harness/runtime/lineio"
)

// Grace is how long players have to exit after the last winner, eliminated or shutdown
// message before they are killed with SIGKILL.
const Grace = 2 * time.Second

// Main runs the hub on the process's arguments and stderr and returns its exit status.
func Main() int {
	csignal.Default()
	// Notify (rather than Ignore) keeps SIGPIPE from killing the hub on a write to a closed
	// stderr, while the players it starts still get the default SIGPIPE action: an ignored
	// signal would be inherited across exec.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	return Run(os.Args[1:], os.Stderr)
}

// Run runs the hub with the arguments args (without the program name), writing its
// messages to stderr, and returns the exit status. It handles SIGINT itself (exit 9).
func Run(args []string, stderr io.Writer) int {
	// SIGINT is caught from the start, so that one arriving before the players run cannot
	// kill the hub with its default action.
	early := make(chan os.Signal, 1)
	signal.Notify(early, os.Interrupt)
	defer signal.Stop(early)

	w := bufio.NewWriter(stderr)
	defer w.Flush()
	fail := func(status int) int {
		w.WriteString(stlucia.HubContract.Status(status).Stderr())
		return status
	}

	a, status := stlucia.ParseHubArgs(args)
	if status != stlucia.ExitOK {
		return fail(status)
	}
	data, err := os.ReadFile(a.RollFile)
	if err != nil {
		return fail(stlucia.ExitRollAccess)
	}
	rolls, err := stlucia.ParseRollFile(data)
	if err != nil {
		return fail(stlucia.ExitRollContent)
	}
	n := len(a.Programs)
	j, err := stlucia.NewJudge(rolls.Dice(), a.Winscore, n)
	if err != nil {
		return fail(stlucia.ExitRollContent) // unreachable: the arguments were checked
	}

	count := strconv.Itoa(n)
	h, err := hubrt.Start(a.Programs, func(i int) []string {
		return []string{count, string(stlucia.Label(i))}
	})
	if err != nil {
		return fail(stlucia.ExitStart)
	}
	h.Watch(os.Interrupt)
	select {
	case sig := <-early:
		h.Interrupt(sig)
	default:
	}
	e := hubrt.Play(j, h, w, policy)
	if e.How != hubrt.HandshakeFailed {
		// A line per player that did not exit with status 0 (spec "Shutting down
		// stlucia"), unless a handshake failed: the game never started, and no exits are
		// reported (rules section 5).
		for i, x := range e.Exits {
			if l := stlucia.ExitLine(i, x.Code, int(x.Signal)); l != "" {
				w.WriteString(l)
				w.WriteByte('\n')
			}
		}
	}
	return fail(e.Status)
}

// policy is how the hub plays a game (hubrt.Play, the loop of every reference hub): a '!'
// handshake; on a lost player or SIGINT, shutdown to the remaining players; up to Grace
// after the last message for the players to exit, then SIGKILL.
var policy = hubrt.Policy{
	Handshake:    '!',
	BadHandshake: stlucia.ExitStart,
	ReadStatus: func(err error) int {
		if errors.Is(err, lineio.ErrTooLong) {
			return stlucia.ExitMalformed
		}
		return stlucia.ExitQuit
	},
	Grace:             Grace,
	GraceFromLastSend: true,
	InterruptStatus:   stlucia.ExitSIGINT,
}
