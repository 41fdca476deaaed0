// Package refereehub is the reference match runner of the referee protocol (the
// referee-runner program): it starts a referee and two players, negotiates the referee's
// features, relays moves to the referee for judgement, forwards the lines the referee
// writes to players, and prints the result. The match is the engine's runner judge
// (games/referee NewRunner) run by the one loop of the reference hubs, hubrt.Play: no write
// waits for a program (what a stopped player cannot take yet waits in a bounded buffer),
// and SIGINT or SIGTERM kills every program and ends the runner. docs/referee.md has the
// protocol and every decision.
package refereehub

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"gauntlet/games/judge"
	"gauntlet/games/referee"
	"gauntlet/harness/runtime/csignal"
	"gauntlet/harness/runtime/hubrt"
)

// Grace is how long the players and the referee have to exit at the end before SIGKILL.
const Grace = 2 * time.Second

// grace is the Grace a match gets: the package's tests, which kill programs that never
// exit on purpose, give them less (main_test.go).
var grace = Grace

// ExitMatchError is the exit status when the match itself failed (a referee that broke the
// protocol, a program that could not start): no result line is printed.
const ExitMatchError = referee.StatusMatchError

const usage = `usage: referee-runner [-t MOVE_TIME] [-T REFEREE_TIME] REFEREE PLAYER0 PLAYER1

Plays one game between PLAYER0 (who moves first) and PLAYER1, judged by REFEREE, and
prints the result line "SCORE0 SCORE1 REASON": REASON is "end" (the referee's scores),
"invalid N", "timeout N" or "lost N" (player N broke the rules, was too slow, or could not
be read: it died, closed its output or wrote a line over 1 MiB; it scores 0, its
opponent 1). Exit 0 after a game; 1 on a usage error;
2 when the match failed (a referee that breaks its protocol, a program that cannot start),
with "ERROR ..." on stderr and no result line.
`

// Main runs the runner on the process's arguments and streams.
func Main() int {
	csignal.Default()
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	return RunStop(os.Args[1:], os.Stdout, os.Stderr, nil, sigs)
}

// Run runs one match and returns the exit status.
func Run(args []string, stdout, stderr io.Writer) int {
	return RunWith(args, stdout, stderr, nil)
}

// RunWith is Run with the referee and the players started as launch says
// (hubrt.StartWith): a tournament's starts each as a sandbox user in a box.
func RunWith(args []string, stdout, stderr io.Writer, launch hubrt.Launch) int {
	return RunStop(args, stdout, stderr, launch, nil)
}

// RunStop is RunWith ended early by a signal that comes on stop (SIGINT or SIGTERM for the
// program, a stopped tournament's): every program is killed at once, no result line is
// printed, and the status is 128 plus the signal's number.
func RunStop(args []string, stdout, stderr io.Writer, launch hubrt.Launch, stop <-chan os.Signal) int {
	fs := flag.NewFlagSet("referee-runner", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	moveTime := fs.Duration("t", 2*time.Second, "")
	refTime := fs.Duration("T", 2*time.Second, "")
	if err := fs.Parse(args); err != nil || fs.NArg() != 3 || *moveTime <= 0 || *refTime <= 0 {
		io.WriteString(stderr, usage)
		return 1
	}
	progs := fs.Args()
	h, err := hubrt.StartWith(progs, func(int) []string { return nil }, launch)
	if err != nil {
		fmt.Fprintf(stderr, "ERROR starting the match: %v\n", err)
		return ExitMatchError
	}
	defer h.InterruptOn(stop)()
	j := referee.NewRunner([2]string{progs[1], progs[2]})
	var result strings.Builder
	resultW := bufio.NewWriter(&result)
	e := hubrt.Play(j, h, resultW, policy(j, *moveTime, *refTime))
	if status, done := report(e, j, h, *refTime, stderr); done {
		return status
	}
	io.WriteString(stdout, result.String())
	return 0
}

// policy is how the loop runs a match: each program's time, the players stopped but on
// their turn (the referee never), every input closed at the end, a signal killing all.
func policy(j *referee.Runner, moveTime, refTime time.Duration) hubrt.Policy {
	return hubrt.Policy{
		ReadStatus: func(error) int { return 0 },
		Grace:      grace,
		SeatTimeout: func(s int) time.Duration {
			if s == referee.RefereeSeat {
				return refTime
			}
			return moveTime
		},
		PauseIdle:       true,
		PauseSeat:       func(s int) bool { return s != referee.RefereeSeat && j.Playing() },
		Lost:            func(_ int, err error) judge.Lost { return judge.Lost{Timeout: errors.Is(err, hubrt.ErrTimeout)} },
		CloseAtEnd:      true,
		KillOnInterrupt: true,
	}
}

// report writes the runner's account of how the match ended on stderr; done is set, with
// the exit status, when there is no result line (a signal, a broken referee).
func report(e hubrt.Ending, j *referee.Runner, h *hubrt.Hub, refTime time.Duration, stderr io.Writer) (status int, done bool) {
	switch {
	case e.How == hubrt.Interrupted:
		sig := h.Caught().(syscall.Signal)
		fmt.Fprintf(stderr, "ERROR stopped by %v: every program killed, no result\n", sig)
		return 128 + int(sig), true
	case e.How == hubrt.RuleBroken && e.Violation.Seat == referee.RefereeSeat:
		fmt.Fprintf(stderr, "ERROR referee: %s\n", e.Violation.Rule)
		return ExitMatchError, true
	case e.Seat == referee.RefereeSeat && e.How == hubrt.ReadFailed:
		what := j.Expecting()
		if errors.Is(e.Err, hubrt.ErrTimeout) {
			fmt.Fprintf(stderr, "ERROR referee: no %s within %v\n", what, refTime)
		} else {
			fmt.Fprintf(stderr, "ERROR referee: no %s: %v\n", what, e.Err)
		}
		return ExitMatchError, true
	case e.How == hubrt.ReadFailed && errors.Is(e.Err, hubrt.ErrInputFull):
		fmt.Fprintf(stderr, "ERROR player %d did not take its input (more than %d bytes waited)\n", e.Seat-1, hubrt.MaxPending)
	case e.How == hubrt.ReadFailed && !errors.Is(e.Err, hubrt.ErrTimeout):
		fmt.Fprintf(stderr, "ERROR reading move from player %d\n", e.Seat-1)
	}
	return 0, false
}
