// Package referee is the reference match runner of the referee protocol (the
// referee-runner program): it starts a referee and two players, negotiates the referee's
// features, relays moves to the referee for judgement, forwards the lines the referee
// writes to players, and prints the result. docs/referee.md has the protocol and every
// decision.
package referee

import (
	"errors"
	"flag"
	"fmt"
	"gauntlet/harness/csignal"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	game "gauntlet/games/referee"
	"gauntlet/harness/hubrt"
)

// Grace is how long the players and the referee have to exit at the end before SIGKILL.
const Grace = 2 * time.Second

// ExitMatchError is the exit status when the match itself failed (a referee that broke the
// protocol, a program that could not start): no result line is printed.
const ExitMatchError = 2

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
	return Run(os.Args[1:], os.Stdout, os.Stderr)
}

// Run runs one match and returns the exit status.
func Run(args []string, stdout, stderr io.Writer) int {
	return RunWith(args, stdout, stderr, nil)
}

// RunWith is Run with the referee and the players started as launch says
// (hubrt.StartWith): a tournament's starts each as a sandbox user in a box.
func RunWith(args []string, stdout, stderr io.Writer, launch hubrt.Launch) int {
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
	m := &match{h: h, names: progs[1:], moveTime: *moveTime, refTime: *refTime}
	result, err := m.play()
	m.end()
	if err != nil {
		fmt.Fprintf(stderr, "ERROR referee: %v\n", err)
		return ExitMatchError
	}
	if result.note != "" {
		fmt.Fprintln(stderr, result.note)
	}
	fmt.Fprintf(stdout, "%d %d %s\n", result.scores[0], result.scores[1], result.reason)
	return 0
}

// Indices of the programs in the hub.
const (
	ref = 0
)

func seat(p int) int { return 1 + p }

type match struct {
	h                 *hubrt.Hub
	names             []string
	moveTime, refTime time.Duration
	feats             game.Features
}

type result struct {
	scores [2]int
	reason string
	note   string // an ERROR line for stderr, for a player that could not be read or written
}

// loss is the result when player p broke the game for the reason why.
func loss(p int, why, note string) result {
	r := result{reason: why + " " + strconv.Itoa(p), note: note}
	r.scores[1-p] = 1
	return r
}

// refLine reads one line from the referee within its time.
func (m *match) refLine(what string) (string, error) {
	line, err := m.h.ReadLineWithin(ref, m.refTime)
	switch {
	case errors.Is(err, hubrt.ErrTimeout):
		return "", fmt.Errorf("no %s within %v", what, m.refTime)
	case err != nil:
		return "", fmt.Errorf("no %s: %v", what, err)
	}
	return line, nil
}

// writeLines reads a write_lines block from the referee and forwards each line.
func (m *match) writeLines() error {
	for {
		line, err := m.refLine("write_lines line")
		if err != nil {
			return err
		}
		p, text, end, err := game.ParseWriteLine(line, 2)
		if err != nil {
			return err
		}
		if end {
			return nil
		}
		m.h.Send(seat(p), text)
	}
}

func (m *match) play() (result, error) {
	for {
		line, err := m.refLine("feature line")
		if err != nil {
			return result{}, err
		}
		name, end, err := game.ParseFeature(line)
		if err != nil {
			return result{}, err
		}
		if end {
			break
		}
		m.feats.Set(name)
	}
	m.h.Send(ref, "2")
	for _, n := range m.names {
		m.h.Send(ref, n)
	}
	if m.feats.WriteLines {
		if err := m.writeLines(); err != nil {
			return result{}, err
		}
	}
	// Both players wait, stopped, until their turn.
	m.h.Signal(seat(1), syscall.SIGSTOP)
	last := game.StartMove
	for mover := 0; ; mover = 1 - mover {
		m.h.Signal(seat(mover), syscall.SIGCONT)
		if !m.feats.NoLastMove {
			m.h.Send(seat(mover), last)
		}
		move, err := m.h.ReadLineWithin(seat(mover), m.moveTime)
		switch {
		case errors.Is(err, hubrt.ErrTimeout):
			return loss(mover, "timeout", ""), nil
		case err != nil:
			return loss(mover, "lost", fmt.Sprintf("ERROR reading move from player %d", mover)), nil
		}
		m.h.Signal(seat(mover), syscall.SIGSTOP)
		m.h.Send(ref, game.MoveLine(mover, move))
		line, err := m.refLine("verdict")
		if err != nil {
			return result{}, err
		}
		v, err := game.ParseVerdict(line)
		if err != nil {
			return result{}, err
		}
		if m.feats.WriteLines {
			if err := m.writeLines(); err != nil {
				return result{}, err
			}
		}
		switch v {
		case game.Invalid:
			return loss(mover, "invalid", ""), nil
		case game.ValidEnd:
			line, err := m.refLine("scores after 'valid end'")
			if err != nil {
				return result{}, err
			}
			s, err := game.ParseScores(line, 2)
			if err != nil {
				return result{}, err
			}
			return result{scores: [2]int{s[0], s[1]}, reason: "end"}, nil
		}
		last = move
	}
}

// end resumes everyone and closes their input (end of file is the players' and the
// referee's signal that the match is over: there is no final line), gives them Grace to
// exit, and kills the rest.
func (m *match) end() {
	for p := 0; p < 2; p++ {
		m.h.Signal(seat(p), syscall.SIGCONT)
	}
	for i := 0; i < 3; i++ {
		m.h.CloseInput(i)
	}
	m.h.WaitUntil(time.Now().Add(Grace))
}
