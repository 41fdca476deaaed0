// Package dealer2310 is the reference dealer of the 2310 path game (the 2310dealer
// program): it checks its arguments and input files, starts the players, and runs the
// game's judge (gauntlet/games/dealer2310's NewJudge, the shape every game offers:
// games/judge) over their pipes, printing the game on stdout.
//
// All game rules live in the pure package; this one only moves lines between it, the
// player processes (gauntlet/harness/hubrt) and the standard streams.
package dealer2310

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

	game "gauntlet/games/dealer2310"
	"gauntlet/games/judge"
	"gauntlet/harness/hubrt"
)

// Grace is how long players have to exit after DONE or EARLY before the dealer kills
// them with SIGKILL; the dealer reaps every player before it exits.
const Grace = 2 * time.Second

// ExitHangup is the dealer's exit status after SIGHUP made it kill and reap its players.
// The spec does not test it; 128 + SIGHUP is what a shell reports for a death by SIGHUP.
const ExitHangup = 128 + int(syscall.SIGHUP)

// Main runs the dealer on the process's arguments and standard streams and returns its
// exit status.
func Main() int {
	csignal.Default()
	// Notify (rather than Ignore) keeps SIGPIPE from killing the dealer on a write to a
	// closed stdout, while the players it starts keep the default action: an ignored
	// signal would be inherited across exec. Writes to a dead player's pipe fail with
	// EPIPE and are ignored; the read that follows reports the loss.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	return Run(os.Args[1:], os.Stdout, os.Stderr)
}

// Run runs the dealer with the arguments args (without the program name), printing the
// game on stdout and errors on stderr, and returns its exit status. On SIGHUP it kills
// and reaps every player it started and returns ExitHangup.
func Run(args []string, stdout, stderr io.Writer) int {
	// SIGHUP is caught from the start, so that one arriving before the players run cannot
	// kill the dealer by its default action and leave them orphaned.
	early := make(chan os.Signal, 1)
	signal.Notify(early, syscall.SIGHUP)
	defer signal.Stop(early)

	out := bufio.NewWriter(stdout)
	defer out.Flush()
	fail := func(status int) int {
		out.Flush()
		io.WriteString(stderr, game.DealerContract.Status(status).Stderr())
		return status
	}

	a, status := game.ParseDealerArgs(args)
	if status != game.ExitOK {
		return fail(status)
	}
	data, err := os.ReadFile(a.DeckFile)
	if err != nil {
		return fail(game.ExitDeck)
	}
	deck, err := game.ParseDeckFile(data)
	if err != nil {
		return fail(game.ExitDeck)
	}
	data, err = os.ReadFile(a.PathFile)
	if err != nil {
		return fail(game.ExitPath)
	}
	path, err := game.ParsePathFile(data)
	if err != nil {
		return fail(game.ExitPath)
	}
	n := len(a.Programs)
	d, err := game.NewJudge(path, deck, n)
	if err != nil {
		return fail(game.ExitPath) // unreachable: the path was checked and n >= 1
	}
	if hungUp(early) {
		return ExitHangup
	}

	count := strconv.Itoa(n)
	h, err := hubrt.Start(a.Programs, func(i int) []string {
		return []string{count, strconv.Itoa(i)}
	})
	if err != nil {
		return fail(game.ExitStart)
	}
	h.Watch(syscall.SIGHUP)
	if hungUp(early) {
		h.Kill()
		return ExitHangup
	}
	r := &run{d: d, h: h, out: out}

	for i := 0; i < n; i++ {
		b, err := h.ReadHandshake(i)
		if errors.Is(err, hubrt.ErrInterrupted) {
			return r.hangup()
		}
		if err != nil || b != game.Hello {
			h.Kill()
			return fail(game.ExitStart)
		}
		r.emit(d.Welcome(i))
	}

	r.emit(d.Start())
	for !d.Over() {
		out.Flush()
		line, err := h.ReadLine(d.Awaiting())
		if errors.Is(err, hubrt.ErrInterrupted) {
			return r.hangup()
		}
		if err != nil {
			r.emit(d.Abort())
			r.finish()
			return fail(game.ExitComms)
		}
		outs, v := d.Take(line)
		r.emit(outs) // with a violation: the EARLY the rules give
		if v != nil {
			r.finish()
			return fail(v.Status)
		}
	}
	r.finish()
	return game.ExitOK
}

// hungUp reports whether SIGHUP has arrived on ch.
func hungUp(ch <-chan os.Signal) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// run is one game between started players.
type run struct {
	d   judge.Judge
	h   *hubrt.Hub
	out *bufio.Writer
}

// emit carries out the judge's outputs in order.
func (r *run) emit(outs []judge.Out) {
	for _, o := range outs {
		if o.To == judge.Log {
			r.out.WriteString(o.Line)
			r.out.WriteByte('\n')
			continue
		}
		r.h.Send(o.To, o.Line)
	}
}

// finish flushes stdout and waits for the players to exit after DONE or EARLY, killing
// those still running after Grace, and reaps them all.
func (r *run) finish() {
	r.out.Flush()
	r.h.WaitUntil(time.Now().Add(Grace))
}

// hangup kills and reaps every player after SIGHUP.
func (r *run) hangup() int {
	r.out.Flush()
	r.h.Kill()
	return ExitHangup
}
