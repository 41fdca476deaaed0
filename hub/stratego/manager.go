// Package stratego is the reference Stratego manager (the stratego program): it starts two
// AI programs (or lets a human play a side from stdin), asks each for its setup, runs the
// game of gauntlet/games/stratego over their pipes, and prints the result line.
//
// Unlike the 2012 manager it never hangs: the timeout covers whole lines (a partial line
// without a newline times out), the idle AI is stopped (SIGSTOP) and resumed (SIGCONT)
// around its opponent's turns, and after QUIT each AI has 2 seconds to exit before SIGKILL.
// A single '\r' before the newline is tolerated (an AI written on Windows); anything else
// malformed is ILLEGAL. docs/stratego.md has the protocol and every decision.
package stratego

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"gauntlet/harness/csignal"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	game "gauntlet/games/stratego"
	"gauntlet/harness/hubrt"
	"gauntlet/harness/limitkill"
)

// Grace is how long the AIs have to exit after QUIT.
const Grace = 2 * time.Second

// DefaultTimeout is how long an AI has for each line it owes.
const DefaultTimeout = 2 * time.Second

// Human, as an AI's name, lets a person play that side from the manager's stdin.
const Human = "human"

const usage = `usage: stratego [-i] [-o FILE|stdout] [-t STALL] [-m TURNS] [-T TIMEOUT] RED BLUE
       stratego -h

Runs a game of Stratego between the AI programs RED and BLUE (or "human": that side's
moves are read from stdin, its queries shown on stderr) and prints the result line:
NAME COLOUR OUTCOME TURNS RED_VALUE BLUE_VALUE. Exit status 0; 1 on a usage or internal
error (with a message on stderr).
`

// Main runs the manager on the process's arguments and streams.
func Main() int {
	csignal.Default()
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	return Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// options are the manager's settings.
type options struct {
	ignoreIllegal bool
	out           string
	stall         time.Duration
	turns         int
	timeout       time.Duration
}

// Run runs the manager with args (without the program name) and returns its exit status.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return RunWith(args, stdin, stdout, stderr, nil)
}

// RunWith is Run with the AIs started as launch says (hubrt.StartWith): a tournament's
// starts each as a sandbox user in a box.
func RunWith(args []string, stdin io.Reader, stdout, stderr io.Writer, launch hubrt.Launch) int {
	return runWith(args, stdin, stdout, stderr, launch, limitkill.SoftCPU())
}

// runWith is RunWith for AIs that run under the CPU time limit cpuLimit (0: none known):
// the manager's own, which AIs started plainly inherit, or a tournament's boxes'.
func runWith(args []string, stdin io.Reader, stdout, stderr io.Writer, launch hubrt.Launch, cpuLimit time.Duration) int {
	fs := flag.NewFlagSet("stratego", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var o options
	fs.BoolVar(&o.ignoreIllegal, "i", false, "")
	fs.StringVar(&o.out, "o", "", "")
	fs.DurationVar(&o.stall, "t", 0, "")
	fs.IntVar(&o.turns, "m", game.DefaultTurnLimit, "")
	fs.DurationVar(&o.timeout, "T", DefaultTimeout, "")
	help := fs.Bool("h", false, "")
	if err := fs.Parse(args); err != nil || (!*help && fs.NArg() != 2) || o.turns <= 0 || o.timeout <= 0 {
		io.WriteString(stderr, usage)
		return 1
	}
	if *help {
		io.WriteString(stdout, usage)
		return 0
	}
	var moveLog io.Writer = io.Discard
	switch o.out {
	case "":
	case "stdout":
		moveLog = stdout
	default:
		f, err := os.Create(o.out)
		if err != nil {
			fmt.Fprintf(stderr, "stratego: %v\n", err)
			return 1
		}
		defer f.Close()
		moveLog = f
	}
	m, err := start(fs.Args(), stdin, stderr, launch)
	if err != nil {
		fmt.Fprintf(stderr, "stratego: %v\n", err)
		return 1
	}
	m.cpuLimit = cpuLimit
	result := m.play(o, moveLog, stderr)
	fmt.Fprintln(stdout, result)
	return 0
}

// side is how the manager talks to one colour: an AI process, or a human on the terminal.
type side struct {
	name  string
	ai    int // index in the hub, or -1 for a human
	human *bufio.Reader
	hint  io.Writer
}

type manager struct {
	hub      *hubrt.Hub
	sides    [2]*side
	cpuLimit time.Duration // the AIs' CPU time limit, for limitNote (0: not known)
}

func start(names []string, stdin io.Reader, stderr io.Writer, launch hubrt.Launch) (*manager, error) {
	m := &manager{}
	var progs []string
	var human *bufio.Reader
	for c, name := range names {
		s := &side{name: name, ai: -1}
		if name == Human {
			if human == nil {
				human = bufio.NewReader(stdin)
			}
			s.human, s.hint = human, stderr
		} else {
			s.ai = len(progs)
			progs = append(progs, name)
		}
		m.sides[c] = s
	}
	h, err := hubrt.StartWith(progs, func(int) []string { return nil }, launch)
	if err != nil {
		return nil, err
	}
	m.hub = h
	return m, nil
}

func (m *manager) send(c game.Colour, line string) {
	s := m.sides[c]
	if s.ai < 0 {
		fmt.Fprintln(s.hint, line)
		return
	}
	m.hub.Send(s.ai, line)
}

// read reads one line owed by side c within the timeout (a human has no timeout). err is
// set when none came, saying why: silence, a partial line, end of file.
func (m *manager) read(c game.Colour, timeout time.Duration) (string, error) {
	s := m.sides[c]
	var line string
	var err error
	if s.ai < 0 {
		line, err = s.human.ReadString('\n')
		line = strings.TrimSuffix(line, "\n")
	} else {
		line, err = m.hub.ReadLineWithin(s.ai, timeout)
	}
	switch {
	case errors.Is(err, hubrt.ErrTimeout):
		return "", fmt.Errorf("no whole line within %v", timeout)
	case errors.Is(err, io.EOF):
		return "", errors.New("end of file")
	case err != nil:
		return "", err
	}
	return strings.TrimSuffix(line, "\r"), nil
}

// pause stops side c's AI while it is not its turn, and resume wakes it.
func (m *manager) pause(c game.Colour) {
	if s := m.sides[c]; s.ai >= 0 {
		m.hub.Signal(s.ai, syscall.SIGSTOP)
	}
}

func (m *manager) resume(c game.Colour) {
	if s := m.sides[c]; s.ai >= 0 {
		m.hub.Signal(s.ai, syscall.SIGCONT)
	}
}

// play runs the whole game and returns the result line; the account of an ILLEGAL,
// BAD_SETUP or INTERNAL_ERROR end (Game.Why) goes to stderr and the move log.
//
// Both sides are asked for their setup, BLUE even after RED's failed, and neither is
// stopped meanwhile: each one's clock runs from its own query (game.Begin has the rules).
func (m *manager) play(o options, moveLog, stderr io.Writer) string {
	names := [2]string{m.sides[0].name, m.sides[1].name}
	var answers [2][]string
	var silence [2]error
	for c := game.Red; c <= game.Blue; c++ {
		m.send(c, fmt.Sprintf("%s %s %d %d", c, names[c.Other()], game.Size, game.Size))
		for range game.SetupRows {
			line, err := m.read(c, o.timeout)
			if err != nil {
				silence[c] = err
				break
			}
			answers[c] = append(answers[c], line)
		}
	}
	g, _ := game.Begin(answers, o.turns)
	if over, out, about := g.Over(); over && out == game.BadSetup {
		why := g.Reason()
		for c := game.Red; c <= game.Blue; c++ {
			if silence[c] != nil && (about == c || about == game.Both) {
				why += fmt.Sprintf(" (%s: %v)", c, silence[c])
			}
		}
		g.Forfeit(about, game.BadSetup, why)
	}
	query := "START"
	for {
		if over, _, _ := g.Over(); over {
			break
		}
		c := g.Turn()
		m.resume(c)
		m.pause(c.Other())
		m.send(c, query)
		for _, row := range g.View(c) {
			m.send(c, row)
		}
		line, err := m.read(c, o.timeout)
		if err != nil {
			g.Forfeit(c, game.Illegal, err.Error())
			break
		}
		mv, err := game.ParseMove(line)
		if err == nil {
			err = g.Check(mv)
		}
		if err != nil {
			if !o.ignoreIllegal {
				g.Forfeit(c, game.Illegal, game.MoveReason(line, err))
				break
			}
			// -i: the move is not made and the turn passes; the mover is told ILLEGAL.
			m.send(c, line+" ILLEGAL")
			query = line + " ILLEGAL"
			g.Pass()
			continue
		}
		conf, err := g.Play(mv)
		if err != nil {
			g.Forfeit(c, game.Internal, err.Error())
			break
		}
		fmt.Fprintln(moveLog, conf)
		m.send(c, conf.String())
		query = conf.String()
		if o.stall > 0 {
			time.Sleep(o.stall)
		}
	}
	// The account is written once the AIs are reaped, so that it can say that a limit
	// ended the side it blames (an AI killed by its CPU time reads as an end of file).
	exits := m.quit(g)
	if why := g.Why(); why != "" {
		why += m.limitNote(g, exits)
		fmt.Fprintf(stderr, "stratego: %s\n", why)
		fmt.Fprintln(moveLog, why)
	}
	return g.Result(names)
}

// limitNote says which side an ILLEGAL, BAD_SETUP or INTERNAL_ERROR end names was ended by
// a resource limit, as its exit and its CPU time show it (limitkill: SIGXCPU, SIGXFSZ, a
// SIGKILL having used its CPU limit, a wrapper shell's 152, 137 or 153), e.g. " (RED was
// killed by SIGXCPU at the CPU time limit)"; "" for none.
func (m *manager) limitNote(g *game.Game, exits []hubrt.Exit) string {
	_, _, about := g.Over()
	note := ""
	for c := game.Red; c <= game.Blue; c++ {
		s := m.sides[c]
		if about != c && about != game.Both || s.ai < 0 || s.ai >= len(exits) {
			continue
		}
		e := exits[s.ai]
		cpu := m.hub.CPU(s.ai)
		if m.cpuLimit <= 0 {
			cpu = limitkill.UnknownCPU // no limit to hold it against: a 152 by the convention alone
		}
		l := limitkill.Of(e.Signal, e.Code, cpu, m.cpuLimit)
		if l == limitkill.None {
			continue
		}
		how := fmt.Sprintf("exited %d, a program it ran ended by", e.Code)
		if e.Signal != 0 {
			how = "was killed by " + map[syscall.Signal]string{syscall.SIGXCPU: "SIGXCPU", syscall.SIGXFSZ: "SIGXFSZ", syscall.SIGKILL: "SIGKILL"}[e.Signal] + " at"
		}
		note += fmt.Sprintf(" (%s %s %s)", c, how, l.Words())
	}
	return note
}

// limitNamed reports whether an account of the end (with limitNote's notes) says that a
// limit ended side c.
func limitNamed(why string, c game.Colour) bool {
	for _, part := range strings.Split(why, " ("+c.String()+" ")[1:] {
		note, _, _ := strings.Cut(part, ")")
		if strings.HasSuffix(note, limitkill.CPU.Words()) || strings.HasSuffix(note, limitkill.FileSize.Words()) {
			return true
		}
	}
	return false
}

// quit tells both AIs how the game ended, gives them Grace to exit, kills the rest, and
// returns how each ended.
func (m *manager) quit(g *game.Game) []hubrt.Exit {
	for c := game.Red; c <= game.Blue; c++ {
		m.resume(c)
		m.send(c, "QUIT "+g.EndWord(c))
	}
	return m.hub.WaitUntil(time.Now().Add(Grace))
}
