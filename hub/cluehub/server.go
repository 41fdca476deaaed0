// Package cluehub is the reference Clue server: it listens on a TCP port, seats up to six
// clients in the order they connect (bots fill the other seats), deals from a seed and
// runs the whole game through the server's judge of gauntlet/games/clue, printing what
// happens. A client that is too slow, goes away, or breaks a rule is dropped and is out
// of the game; the server never waits on anyone longer than its timeouts.
package cluehub

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"gauntlet/games/clue"
	"gauntlet/games/judge"
	"gauntlet/harness/runtime/csignal"
	"gauntlet/harness/runtime/lineio"
	"gauntlet/harness/runtime/tcp"
)

// Exit statuses of the server.
const (
	ExitOK     = 0 // the game was played (whatever happened to the clients)
	ExitUsage  = 1
	ExitListen = 2 // the port could not be listened on
)

const usage = "Usage: clue-server [-host HOST] [-seed N] [-clients N] [-bots KIND,...] [-t SECONDS] [-join SECONDS] [-rounds N] PORT\n"

// Main is the clue-server program.
func Main() int {
	csignal.Default()
	signal.Ignore(syscall.SIGPIPE)
	return Run(os.Args[1:], os.Stdout, os.Stderr)
}

// Options are the server's settings, from its command line.
type Options struct {
	Host    string
	Port    int
	Seed    uint64
	Clients int           // clients to seat before the game starts (0-6)
	Bots    []string      // the strategies of the bots in the other seats, by token, repeated
	Reply   time.Duration // the longest wait for a client's line
	Join    time.Duration // the longest wait for the clients to connect
	Rounds  int
}

// Run parses args, plays one game and returns the exit status.
func Run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("clue-server", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var o Options
	fs.StringVar(&o.Host, "host", "127.0.0.1", "")
	fs.Uint64Var(&o.Seed, "seed", 1, "")
	fs.IntVar(&o.Clients, "clients", clue.Tokens, "")
	bots := fs.String("bots", "sensible", "")
	reply := fs.Float64("t", 5, "")
	join := fs.Float64("join", 30, "")
	fs.IntVar(&o.Rounds, "rounds", clue.DefaultRounds, "")
	err := fs.Parse(args)
	if err == nil && fs.NArg() == 1 {
		o.Port, err = tcp.ParsePort(fs.Arg(0))
	}
	if _, herr := tcp.ParseHost(o.Host); herr != nil {
		err = herr
	}
	o.Reply, o.Join = seconds(*reply), seconds(*join)
	o.Bots = strings.Split(*bots, ",")
	for _, b := range o.Bots {
		if clue.NewBrain(b, nil) == nil {
			err = fmt.Errorf("no bot %q", b)
		}
	}
	if err != nil || fs.NArg() != 1 || o.Port < 0 || o.Port > 65535 || o.Clients < 0 || o.Clients > clue.Tokens ||
		o.Reply <= 0 || o.Join <= 0 || o.Rounds < 1 {
		io.WriteString(stderr, usage)
		return ExitUsage
	}
	ln, err := tcp.Listen(o.Host, o.Port)
	if err != nil {
		fmt.Fprintf(stderr, "Cannot listen on port %d\n", o.Port)
		return ExitListen
	}
	out := bufio.NewWriter(stdout)
	fmt.Fprintf(out, "port %d\n", ln.Port)
	out.Flush()
	Serve(ln, o, out)
	out.Flush()
	return ExitOK
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// seat is one of the six: a client's connection or a bot.
type seat struct {
	conn    *os.File
	in      *lineio.Reader
	w       *bufio.Writer
	bot     judge.Responder
	pending []string // a bot's replies not yet taken
}

// Serve seats the clients that connect to ln, fills the other seats with bots, plays the
// game and closes every connection; it writes the game's account on out.
func Serve(ln *tcp.Listener, o Options, out *bufio.Writer) {
	j := clue.NewServer(clue.ServerOptions{Seed: o.Seed, Rounds: o.Rounds})
	seats := make([]*seat, clue.Tokens)
	deadline := time.Now().Add(o.Join)
	for n := 0; n < o.Clients; {
		c, err := ln.Accept(deadline)
		if err != nil {
			fmt.Fprintf(out, "%d of %d clients connected in time\n", n, o.Clients)
			break
		}
		s := &seat{conn: c, in: lineio.NewReader(c), w: bufio.NewWriter(c)}
		c.SetReadDeadline(time.Now().Add(o.Reply))
		name, err := s.in.ReadLine()
		if err != nil {
			fmt.Fprintf(out, "a connection sent no name: %s\n", why(err))
			c.Close()
			continue
		}
		seats[n] = s
		fmt.Fprintf(out, "seat %d %s: %q\n", n, clue.Suspects[n], name)
		n++
	}
	ln.Close()
	for t, s := range seats {
		if s == nil {
			r := rand.New(rand.NewPCG(o.Seed, uint64(t)))
			kind := o.Bots[t%len(o.Bots)]
			seats[t] = &seat{bot: clue.NewClient(kind, clue.NewBrain(kind, r))}
			fmt.Fprintf(out, "seat %d %s: %s (bot)\n", t, clue.Suspects[t], kind)
		}
	}
	out.Flush()
	drop := func(t int, reason string) []judge.Out {
		fmt.Fprintf(out, "%s dropped: %s\n", clue.Suspects[t], reason)
		if s := seats[t]; s.conn != nil {
			s.conn.Close()
			s.conn = nil
		}
		return j.Drop(t)
	}
	var deliver func([]judge.Out)
	deliver = func(outs []judge.Out) {
		var later []judge.Out
		for _, l := range outs {
			switch s := seats[max(l.To, 0)]; {
			case l.To == judge.Log:
				fmt.Fprintln(out, l.Line)
			case j.Dropped(l.To):
			case s.bot != nil:
				r := s.bot.React(l.Line)
				s.pending = append(s.pending, r.Replies...)
			default:
				s.w.WriteString(l.Line + "\n")
			}
		}
		for t, s := range seats {
			if s.conn != nil && s.w.Buffered() > 0 {
				s.conn.SetWriteDeadline(time.Now().Add(o.Reply))
				if err := s.w.Flush(); err != nil {
					later = append(later, drop(t, "cannot be written to: "+why(err))...)
				}
			}
		}
		out.Flush()
		if len(later) > 0 {
			deliver(later)
		}
	}
	for t := range seats {
		deliver(j.Welcome(t))
	}
	deliver(j.Start())
	for !j.Over() {
		t := j.Awaiting()
		s := seats[t]
		if s.bot != nil {
			if len(s.pending) == 0 {
				deliver(drop(t, "the bot has no answer"))
				continue
			}
			line := s.pending[0]
			s.pending = s.pending[1:]
			outs, v := j.Take(line)
			if v != nil {
				outs = drop(t, fmt.Sprintf("sent %q: %s", line, v.Rule))
			}
			deliver(outs)
			continue
		}
		s.conn.SetReadDeadline(time.Now().Add(o.Reply))
		line, err := s.in.ReadLine()
		if err != nil {
			deliver(drop(t, why(err)))
			continue
		}
		outs, v := j.Take(line)
		if v != nil {
			outs = drop(t, fmt.Sprintf("sent %q: %s", line, v.Rule))
		}
		deliver(outs)
	}
	for _, s := range seats {
		if s.conn != nil {
			s.conn.Close()
		}
	}
}

// why says in a few words why a connection failed.
func why(err error) string {
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return "no line in time"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the connection ended"
	case errors.Is(err, lineio.ErrTooLong):
		return "a line too long"
	}
	return err.Error()
}
