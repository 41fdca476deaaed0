// Package stlucia is the reference hub of King of St Lucia (the stlucia program): it checks
// its arguments, starts the players, and runs the game's judge (gauntlet/games/stlucia's
// NewJudge, the shape every game offers: games/judge) over the players' pipes, printing what
// the spec asks on stderr.
//
// All game rules live in the engine; this package only moves lines between the judge, the
// processes (gauntlet/harness/hubrt) and stderr, and carries out the shutdown procedure.
package stlucia

import (
	"bufio"
	"errors"
	"gauntlet/harness/csignal"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"gauntlet/games/judge"
	game "gauntlet/games/stlucia"
	"gauntlet/harness/hubrt"
	"gauntlet/harness/lineio"
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
		w.WriteString(game.HubContract.Status(status).Stderr())
		return status
	}

	a, status := game.ParseHubArgs(args)
	if status != game.ExitOK {
		return fail(status)
	}
	data, err := os.ReadFile(a.RollFile)
	if err != nil {
		return fail(game.ExitRollAccess)
	}
	rolls, err := game.ParseRollFile(data)
	if err != nil {
		return fail(game.ExitRollContent)
	}
	n := len(a.Programs)
	j, err := game.NewJudge(rolls.Dice(), a.Winscore, n)
	if err != nil {
		return fail(game.ExitRollContent) // unreachable: the arguments were checked
	}

	count := strconv.Itoa(n)
	h, err := hubrt.Start(a.Programs, func(i int) []string {
		return []string{count, string(game.Label(i))}
	})
	if err != nil {
		return fail(game.ExitStart)
	}
	h.Watch(os.Interrupt)
	r := &run{j: j, h: h, w: w}
	select {
	case <-early:
		r.interrupted = true
	default:
	}
	return r.play()
}

// run is one game between started players.
type run struct {
	j           judge.Judge
	h           *hubrt.Hub
	w           *bufio.Writer
	last        time.Time // when the last line was sent to a player (at the end: the game's last winner, eliminated or shutdown message)
	interrupted bool      // SIGINT arrived before the hub watched for it
}

// play does the handshakes, runs the game and shuts down; it returns the exit status.
func (r *run) play() int {
	if r.interrupted {
		return r.shutdown(game.ExitSIGINT)
	}
	for i := 0; i < r.h.Len(); i++ {
		b, err := r.h.ReadHandshake(i)
		if errors.Is(err, hubrt.ErrInterrupted) {
			return r.shutdown(game.ExitSIGINT)
		}
		if err != nil || b != '!' {
			// The game never started: kill everyone, report no exits (rules section 5).
			r.h.Kill()
			r.w.WriteString(game.HubContract.Status(game.ExitStart).Stderr())
			return game.ExitStart
		}
	}
	r.emit(r.j.Start())
	for !r.j.Over() {
		p := r.j.Awaiting()
		r.w.Flush()
		line, err := r.h.ReadLine(p)
		switch {
		case errors.Is(err, hubrt.ErrInterrupted):
			return r.shutdown(game.ExitSIGINT)
		case errors.Is(err, lineio.ErrTooLong):
			return r.shutdown(game.ExitMalformed)
		case err != nil:
			return r.shutdown(game.ExitQuit)
		}
		outs, v := r.j.Take(line)
		r.emit(outs) // with a violation: the shutdown the rules give
		if v != nil {
			return r.finish(v.Status)
		}
	}
	return r.shutdown(game.ExitOK)
}

// emit carries out the judge's outputs in order.
func (r *run) emit(outs []judge.Out) {
	for _, o := range outs {
		if o.To == judge.Log {
			r.w.WriteString(o.Line)
			r.w.WriteByte('\n')
			continue
		}
		r.h.Send(o.To, o.Line)
		r.last = time.Now()
	}
}

// shutdown is the one way out once players run (spec "Shutting down stlucia"): shutdown to
// the remaining players unless the game was won, up to Grace for them to exit, SIGKILL for
// the rest, a line per player that did not exit with status 0, then the error message.
func (r *run) shutdown(status int) int {
	r.emit(r.j.Abort())
	return r.finish(status)
}

// finish waits up to Grace after the last message for the players to exit, kills the rest,
// and reports their exits and the hub's status.
func (r *run) finish(status int) int {
	r.w.Flush()
	exits := r.h.WaitUntil(r.last.Add(Grace))
	for i, e := range exits {
		if l := game.ExitLine(i, e.Code, int(e.Signal)); l != "" {
			r.w.WriteString(l)
			r.w.WriteByte('\n')
		}
	}
	r.w.WriteString(game.HubContract.Status(status).Stderr())
	return status
}
