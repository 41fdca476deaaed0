// Package dealer2310hub is the reference dealer of the 2310 path game (the 2310dealer
// program): it checks its arguments and input files, starts the players, and runs the
// game's judge (gauntlet/games/dealer2310's NewJudge, the shape every game offers:
// games/judge) over their pipes, printing the game on stdout.
//
// All game rules live in the pure package, and the loop between the judge and the player
// processes is the one of every reference hub (gauntlet/harness/runtime/hubrt's Play): this package
// gives that loop its policy (the handshake, the statuses, the grace before SIGKILL, what
// SIGHUP does) and prints the error message on stderr.
package dealer2310hub

import (
	"bufio"
	"gauntlet/harness/runtime/csignal"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"gauntlet/games/dealer2310"
	"gauntlet/harness/runtime/hubrt"
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
		io.WriteString(stderr, dealer2310.DealerContract.Status(status).Stderr())
		return status
	}

	a, status := dealer2310.ParseDealerArgs(args)
	if status != dealer2310.ExitOK {
		return fail(status)
	}
	data, err := os.ReadFile(a.DeckFile)
	if err != nil {
		return fail(dealer2310.ExitDeck)
	}
	deck, err := dealer2310.ParseDeckFile(data)
	if err != nil {
		return fail(dealer2310.ExitDeck)
	}
	data, err = os.ReadFile(a.PathFile)
	if err != nil {
		return fail(dealer2310.ExitPath)
	}
	path, err := dealer2310.ParsePathFile(data)
	if err != nil {
		return fail(dealer2310.ExitPath)
	}
	n := len(a.Programs)
	// The path goes to the players as the file's line was read (notes); ParsePathFile
	// made sure the file is that line and its '\n'.
	d, err := dealer2310.NewJudgeAsRead(path, strings.TrimSuffix(string(data), "\n"), deck, n)
	if err != nil {
		return fail(dealer2310.ExitPath) // unreachable: the path was checked and n >= 1
	}
	if hungUp(early) {
		return ExitHangup
	}

	count := strconv.Itoa(n)
	h, err := hubrt.Start(a.Programs, func(i int) []string {
		return []string{count, strconv.Itoa(i)}
	})
	if err != nil {
		return fail(dealer2310.ExitStart)
	}
	h.Watch(syscall.SIGHUP)
	if hungUp(early) {
		h.Interrupt(syscall.SIGHUP)
	}
	e := hubrt.Play(d, h, out, policy)
	if e.How == hubrt.Interrupted || e.Status == dealer2310.ExitOK {
		return e.Status
	}
	return fail(e.Status)
}

// policy is how the dealer plays a game (hubrt.Play, the loop of every reference hub): a
// dealer2310.Hello handshake, each player then sent the path; on a lost player, EARLY to
// everyone and a communications error; up to Grace after DONE or EARLY for the players to
// exit, then SIGKILL; on SIGHUP, every player killed at once and ExitHangup.
var policy = hubrt.Policy{
	Handshake:       dealer2310.Hello,
	BadHandshake:    dealer2310.ExitStart,
	ReadStatus:      func(error) int { return dealer2310.ExitComms },
	Grace:           Grace,
	InterruptStatus: ExitHangup,
	KillOnInterrupt: true,
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
