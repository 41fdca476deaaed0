// Package strategohub is the reference Stratego manager (the stratego program): it starts two
// AI programs (or lets a human play a side from stdin), asks each for its setup, runs the
// game of gauntlet/games/stratego over their pipes, and prints the result line.
//
// The game is the engine's manager judge (games/stratego NewManager) run by the one loop of
// the reference hubs, hubrt.Play; this package keeps the flags, starting the AIs (or a
// human's side on the terminal) and the final lines.
//
// It prints what the 2012 manager printed (its result lines, its -o log, its reading of the
// arguments, measured on it), but it never hangs: the time for a line counts the AI's own
// time, computing or waiting, not the time a busy machine held it (a busy machine does not
// decide a verdict), with ten times as much on the clock as the backstop, over whole lines
// (a partial line without a newline times out); no write waits for an AI; each AI leads a process group of its own, stopped
// (SIGSTOP) and resumed (SIGCONT) around its opponent's turns and killed when the AI ends;
// after QUIT each AI has 2 seconds to exit before SIGKILL, and SIGINT or SIGTERM kills both
// AIs and ends the manager. A single '\r' before the newline is tolerated (an AI written on
// Windows); anything else malformed is ILLEGAL. docs/stratego.md has the protocol and every
// decision.
package strategohub

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"gauntlet/games/judge"
	"gauntlet/games/stratego"
	"gauntlet/harness/runtime/child"
	"gauntlet/harness/runtime/csignal"
	"gauntlet/harness/runtime/hubrt"
	"gauntlet/harness/runtime/limitkill"
	"gauntlet/harness/runtime/transcript"
)

// Grace is how long the AIs have to exit after QUIT.
const Grace = 2 * time.Second

// DefaultTimeout is the CPU time an AI has for each line it owes (-T).
const DefaultTimeout = 2 * time.Second

// Human, as an AI's name, lets a person play that side from the manager's stdin; the
// 2012 manager's "@human" too.
const Human = "human"

// isHuman reports whether an AI's name is a person's side.
func isHuman(name string) bool { return name == Human || name == "@"+Human }

// Main runs the manager on the process's arguments and streams.
func Main() int {
	csignal.Default()
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	return RunStop(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, nil, sigs, limitkill.SoftCPU())
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
	return RunStop(args, stdin, stdout, stderr, launch, nil, cpuLimit)
}

// RunStop is RunWith ended early by a signal that comes on stop (SIGINT or SIGTERM for the
// program, a stopped tournament's): both AIs are killed at once, no result line is printed,
// and the status is 128 plus the signal's number.
func RunStop(args []string, stdin io.Reader, stdout, stderr io.Writer, launch hubrt.Launch, stop <-chan os.Signal, cpuLimit time.Duration) int {
	o, names, status := parseArgs(args, stdout, stderr)
	if status >= 0 {
		return status
	}
	record, closeRecord, err := openRecord(o.out, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "stratego: %v\n", err)
		return 1
	}
	defer closeRecord()
	h, err := startSides(names, stdin, stderr, launch)
	if err != nil {
		fmt.Fprintf(stderr, "stratego: %v\n", err)
		return 1
	}
	defer h.InterruptOn(stop)()
	j := stratego.NewManager(names, stratego.ManagerOptions{TurnLimit: o.turns, IgnoreIllegal: o.ignoreIllegal, Record: record != nil, Timeout: o.timeout})
	var result strings.Builder
	resultW := bufio.NewWriter(&result)
	p := policy(o, j, h, record)
	if o.stallEnter {
		p.PaceInput = stdin
	}
	e := hubrt.Play(j, h, resultW, p)
	if e.How == hubrt.Interrupted {
		sig := h.Caught().(syscall.Signal)
		fmt.Fprintf(stderr, "stratego: stopped by %v: both AIs killed, no result\n", sig)
		return 128 + int(sig)
	}
	// The account once the AIs are reaped (Play reaps them), so that it can say that a
	// limit ended the side it blames (an AI killed by its CPU time reads as an end of file).
	if why := j.Game().Why(); why != "" {
		why += limitNote(j.Game(), names, e.Exits, h, cpuLimit)
		why += signalNote(j.Game(), names, e.Exits)
		fmt.Fprintf(stderr, "stratego: %s\n", why)
	}
	// The result line after every AI has been reaped (Play reaps them); a log in a file
	// ends with it too, as the 2012 manager's did.
	if record != nil && o.out != "stdout" {
		record.WriteString(result.String())
		record.Flush()
	}
	io.WriteString(stdout, result.String())
	return 0
}

// openRecord opens -o's move log: nil without -o, stdout for "stdout", else the file.
func openRecord(out string, stdout io.Writer) (*bufio.Writer, func(), error) {
	switch out {
	case "":
		return nil, func() {}, nil
	case "stdout":
		return bufio.NewWriter(stdout), func() {}, nil
	}
	f, err := os.Create(out)
	if err != nil {
		return nil, nil, err
	}
	return bufio.NewWriter(f), func() { f.Close() }, nil
}

// startSides starts the AIs, each leading a process group of its own, which the manager
// stops while it is not the AI's turn and kills when the AI ends (what the AI started
// goes with it); a human side is a local seat on stdin and stderr.
func startSides(names [2]string, stdin io.Reader, stderr io.Writer, launch hubrt.Launch) (*hubrt.Hub, error) {
	locals := make([]*hubrt.Local, 2)
	for c, name := range names {
		if isHuman(name) {
			locals[c] = &hubrt.Local{In: stdin, Out: stderr}
		}
	}
	grouped := func(i int, s *child.Spec) error {
		if launch != nil {
			if err := launch(i, s); err != nil {
				return err
			}
		}
		s.Group = true
		return nil
	}
	return hubrt.StartSeats(names[:], locals, func(int) []string { return nil }, grouped)
}

// policy is how the loop runs the manager's game: every line within the timeout of the
// AI's own time (what it computed or waited, not what a busy machine held it: hubrt's
// cpuBound), with -W on the clock as the backstop; the idle AI stopped from the first move
// on (during the setups each one's clock runs from its own query), the -o record and -t's
// pace, and a signal killing both AIs.
func policy(o options, j *stratego.Manager, h *hubrt.Hub, record *bufio.Writer) hubrt.Policy {
	return hubrt.Policy{
		ReadStatus:      func(error) int { return 0 },
		Grace:           Grace,
		ReadTimeout:     o.timeout,
		ReadBackstop:    o.backstop,
		PauseIdle:       true,
		PauseSeat:       func(int) bool { return j.Playing() },
		Lost:            func(_ int, err error) judge.Lost { return lost(err, o) },
		Record:          record,
		Pace:            o.stall,
		KillOnInterrupt: true,
	}
}

// eofWhy is the account of an AI whose output ended.
const eofWhy = "end of file"

// lost is the account of an AI's line not had: a line not whole within its own time, or
// within the clock's backstop, end of file.
func lost(err error, o options) judge.Lost {
	switch {
	case errors.Is(err, hubrt.ErrWallTimeout):
		return judge.Lost{Timeout: true, Why: fmt.Sprintf("no whole line within %v on the clock", o.backstop)}
	case errors.Is(err, hubrt.ErrTimeout):
		return judge.Lost{Timeout: true, Why: fmt.Sprintf("no whole line within %v", o.timeout)}
	case errors.Is(err, io.EOF):
		return judge.Lost{Why: eofWhy}
	}
	return judge.Lost{Why: err.Error()}
}

// limitNote says which side an ILLEGAL, BAD_SETUP or INTERNAL_ERROR end names was ended by
// a resource limit, as its exit and its CPU time show it (limitkill: SIGXCPU, SIGXFSZ, a
// SIGKILL having used its CPU limit, a wrapper shell's 152, 137 or 153), e.g. " (RED was
// killed by SIGXCPU at the CPU time limit)"; "" for none. Seat c is the hub's player c.
func limitNote(g *stratego.Game, names [2]string, exits []hubrt.Exit, h *hubrt.Hub, cpuLimit time.Duration) string {
	_, _, about := g.Over()
	note := ""
	for c := stratego.Red; c <= stratego.Blue; c++ {
		if about != c && about != stratego.Both || isHuman(names[c]) || int(c) >= len(exits) {
			continue
		}
		e := exits[c]
		cpu := h.CPU(int(c))
		if cpuLimit <= 0 {
			cpu = limitkill.UnknownCPU // no limit to hold it against: a 152 by the convention alone
		}
		l := limitkill.Of(e.Signal, e.Code, cpu, cpuLimit)
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

// signalNote names the signal that ended the side an ILLEGAL end for an end of file names,
// e.g. " (RED was killed by SIGSEGV)": the AI died, the manager did not end it (its SIGKILL
// after the grace is left out, as is a limit's signal, which limitNote names); "" for none.
func signalNote(g *stratego.Game, names [2]string, exits []hubrt.Exit) string {
	_, o, about := g.Over()
	if o != stratego.Illegal || g.Reason() != eofWhy || about == stratego.Both || int(about) >= len(exits) || isHuman(names[about]) {
		return ""
	}
	switch sig := exits[about].Signal; sig {
	case 0, syscall.SIGKILL, syscall.SIGXCPU, syscall.SIGXFSZ:
		return ""
	default:
		return fmt.Sprintf(" (%s was killed by %s)", about, transcript.SignalName(sig))
	}
}

// LimitNamed reports whether an account of the end (with limitNote's notes) says that a
// limit ended side c.
func LimitNamed(why string, c stratego.Colour) bool {
	for _, part := range strings.Split(why, " ("+c.String()+" ")[1:] {
		note, _, _ := strings.Cut(part, ")")
		if strings.HasSuffix(note, limitkill.CPU.Words()) || strings.HasSuffix(note, limitkill.FileSize.Words()) {
			return true
		}
	}
	return false
}
