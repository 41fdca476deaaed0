package cluejudges

import (
	"bufio"
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"gauntlet/games/clue"
	"gauntlet/games/judge"
	"gauntlet/harness/judges/mockhub"
	"gauntlet/harness/judges/outcome"
	"gauntlet/harness/runtime/child"
	"gauntlet/harness/runtime/limitkill"
	"gauntlet/harness/runtime/lineio"
	"gauntlet/harness/runtime/tcp"
)

const usage = `usage: mockclients [-timeout D] [-kinds K,...] [-seed N] [-fault TOKEN:FAULT] [-inject TOKEN:K:LINE] -- SERVER ARGS...

Starts SERVER ARGS... (its last argument should be the port 0), reads "port N" from its
first line of output, connects six clients to that port, plays a whole game and checks
every message. Faults: silent (never answers its first turn), gone (closes its connection
at its first turn), garbage (answers its first turn with "dance"), wall (rolls, then asks
for (12 12), inside the staircase). -inject makes TOKEN's client send LINE in place of its
K-th answer (1 is the first after its name): a line the rules refuse, after which the server
must drop the client (a legal LINE is a usage error). It prints "ok: ..." or "FAIL at step N (...): want W,
got G; server: STATUS" followed by the last lines exchanged, and exits 0 (the server
followed the protocol), 1 (it did not) or 2 (usage error, SERVER cannot be started).
`

// Main is the mockclients command. Besides its report, it gives its account to the file
// outcome.Var names, when it names one (see package outcome): the failure's record when
// the server diverged, a harness record when it failed itself (exit 2).
func Main(args []string, stdout, stderr io.Writer) int {
	rep := outcome.Reporter(outcome.TakeVar())
	code := mainRun(args, stdout, stderr, rep)
	if code == 2 {
		rep.Report("mockclients", outcome.Record{Kind: outcome.Harness, Message: "mockclients: a usage error, or it could not run (exit status 2)"})
	}
	return code
}

func mainRun(args []string, stdout, stderr io.Writer, rep outcome.Reporter) int {
	subject, err := mockhub.SubjectFromEnv()
	if err != nil {
		fmt.Fprintf(stderr, "mockclients: $%s: %v\n", mockhub.SubjectEnv, err)
		return 2
	}
	if err := mockhub.Undumpable(subject); err != nil {
		fmt.Fprintf(stderr, "mockclients: cannot make itself undumpable: %v\n", err)
		return 2
	}
	fs := flag.NewFlagSet("mockclients", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o := Options{Subject: subject}
	fs.DurationVar(&o.Timeout, "timeout", 5*time.Second, "")
	kinds := fs.String("kinds", "sensible", "")
	fs.Uint64Var(&o.Seed, "seed", 1, "")
	fault := fs.String("fault", "", "")
	inject := fs.String("inject", "", "")
	if err := fs.Parse(args); err != nil || fs.NArg() < 1 || o.Timeout <= 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	o.Kinds = strings.Split(*kinds, ",")
	for _, k := range o.Kinds {
		if clue.NewBrain(k, nil) == nil {
			fmt.Fprintf(stderr, "mockclients: no client kind %q\n%s", k, usage)
			return 2
		}
	}
	o.FaultToken = -1
	if *fault != "" {
		tok, kind, ok := strings.Cut(*fault, ":")
		if !ok || len(tok) != 1 || tok[0] < '0' || tok[0] >= '0'+clue.Tokens || !validFault[kind] {
			fmt.Fprintf(stderr, "mockclients: -fault %q is not TOKEN:FAULT\n%s", *fault, usage)
			return 2
		}
		o.FaultToken, o.Fault = int(tok[0]-'0'), kind
	}
	o.Inject.Token = -1
	if *inject != "" {
		f := strings.SplitN(*inject, ":", 3)
		k := 0
		if len(f) == 3 {
			fmt.Sscan(f[1], &k)
		}
		if len(f) != 3 || len(f[0]) != 1 || f[0][0] < '0' || f[0][0] >= '0'+clue.Tokens || k < 1 {
			fmt.Fprintf(stderr, "mockclients: -inject %q is not TOKEN:K:LINE\n%s", *inject, usage)
			return 2
		}
		o.Inject = Injection{Token: int(f[0][0] - '0'), K: k, Line: f[2]}
	}
	o.Stderr = stderr
	res, rec, err := Run(fs.Arg(0), fs.Args()[1:], o)
	if err != nil {
		fmt.Fprintf(stderr, "mockclients: %v\n", err)
		return 2
	}
	fmt.Fprintln(stdout, res)
	if rec != nil {
		rep.Report("mockclients", *rec)
		return 1
	}
	return 0
}

var validFault = map[string]bool{"silent": true, "gone": true, "garbage": true, "wall": true}

// Options tune a run.
type Options struct {
	Timeout    time.Duration // the longest wait for one line from the server
	Kinds      []string      // the clients' brains, by connection order, repeated
	Seed       uint64        // the brains' seed
	FaultToken int           // the token whose client is faulty, or -1
	Fault      string
	Inject     Injection        // a line sent in place of an answer (Token -1: none)
	Stderr     io.Writer        // where the server's stderr goes
	Subject    *mockhub.Subject // as whom to start the server (nil: as this process)
}

// Injection is a line a client sends in place of its K-th answer.
type Injection struct {
	Token, K int
	Line     string
}

// failure is a divergence of the server from the protocol. Its kind is what the grader
// reads (outcome.Diverged when empty): outcome.Silent for a wait that timed out,
// outcome.Exit for the server's exit status after the game.
type failure struct {
	want, got string
	kind      outcome.Kind
}

func (f *failure) Error() string { return "want " + f.want + ", got " + f.got }

// conn is one mock client's connection.
type conn struct {
	f     *os.File
	in    *lineio.Reader
	token int
	r     judge.Responder
	gone  bool // the client left (fault) or was dropped
}

// run is the state of a game being checked.
type run struct {
	o        Options
	conns    [clue.Tokens]*conn // by token
	log      []string           // the lines exchanged, for the report
	steps    int
	pending  [clue.Tokens][]string
	roll     int
	faulted  bool
	answers  [clue.Tokens]int // answers each client has sent
	injected bool
}

// Run starts the server, plays and checks the game, and returns the report line (and the
// lines exchanged before a failure) and, when the server failed, the failure's record for
// the grader. The error is the harness's own or a usage problem.
func Run(prog string, args []string, o Options) (string, *outcome.Record, error) {
	cmd := mockhub.Command(prog, args, o.Stderr, o.Subject)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	// Forked as every program the harness starts is (child.StartCmd: from the thread kept
	// for its parent-death signal).
	if err := child.StartCmd(cmd); err != nil {
		return "", nil, fmt.Errorf("cannot start %s: %w", prog, err)
	}
	exited := make(chan string, 1)
	lines := make(chan string, 1)
	go func() {
		br := bufio.NewReader(out)
		first, _ := br.ReadString('\n')
		lines <- first
		io.Copy(io.Discard, br)
		exited <- status(cmd.Wait())
	}()
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	r := &run{o: o}
	ferr := r.play(lines)
	for _, c := range r.conns {
		if c != nil {
			c.f.Close()
		}
	}
	st := ""
	select {
	case st = <-exited:
	case <-time.After(o.Timeout):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		st = "still running " + o.Timeout.String() + " after the game (killed)"
		if ferr == nil {
			ferr = &failure{want: "the server to exit 0 after the game", got: "it still running after " + o.Timeout.String()}
		}
		<-exited
	}
	if ferr == nil && st != "exit status 0" {
		ferr = &failure{want: "exit status 0 after the game", got: st, kind: outcome.Exit}
	}
	var f *failure
	switch {
	case ferr == nil:
		note := ""
		if o.Inject.Token >= 0 && !r.injected {
			note = " (the game ended before the injection)"
		}
		return fmt.Sprintf("ok: %d messages checked; server: %s%s", r.steps, st, note), nil, nil
	case errors.As(ferr, &f):
		s := fmt.Sprintf("FAIL at step %d (message %d from the server): %v; server: %s", r.steps+1, r.steps+1, f, st)
		rec := &outcome.Record{Kind: cmp.Or(f.kind, outcome.Diverged), Step: r.steps + 1, Want: f.want, Got: f.got, Message: s}
		from := max(0, len(r.log)-20)
		s += "\nthe last lines exchanged:\n  " + strings.Join(r.log[from:], "\n  ")
		return s, rec, nil
	}
	return "", nil, ferr
}

func status(err error) string {
	var ee interface{ Sys() any }
	if err == nil {
		return "exit status 0"
	}
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok {
			// A limit that ended the server is said (limitkill), for the grader and the
			// fuzzer: the server inherits this process's limits.
			note := ""
			var xe *exec.ExitError
			if errors.As(err, &xe) {
				var sig syscall.Signal
				if ws.Signaled() {
					sig = ws.Signal()
				}
				cpu := xe.UserTime() + xe.SystemTime()
				note = limitkill.Note(limitkill.Of(sig, ws.ExitStatus(), cpu, limitkill.SoftCPU()), sig, cpu)
			}
			if ws.Signaled() {
				return "killed by " + ws.Signal().String() + note
			}
			return fmt.Sprintf("exit status %d", ws.ExitStatus()) + note
		}
	}
	return err.Error()
}

// play connects the clients and checks the whole game.
func (r *run) play(first <-chan string) error {
	var line string
	select {
	case line = <-first:
	case <-time.After(r.o.Timeout):
		return &failure{want: `"port N" on the server's first line`, got: "nothing within " + r.o.Timeout.String(), kind: outcome.Silent}
	}
	var port int
	if _, err := fmt.Sscanf(line, "port %d\n", &port); err != nil || fmt.Sprintf("port %d\n", port) != line {
		return &failure{want: `"port N" on the server's first line`, got: fmt.Sprintf("%q", line)}
	}
	var byConn []*conn
	for i := range clue.Tokens {
		f, err := tcp.Dial("127.0.0.1", port, r.o.Timeout)
		if err != nil {
			return &failure{want: fmt.Sprintf("client %d to connect to port %d", i+1, port), got: err.Error()}
		}
		kind := r.o.Kinds[i%len(r.o.Kinds)]
		c := &conn{f: f, in: lineio.NewReader(f), token: -1,
			r: clue.NewClient(fmt.Sprintf("mock%d", i+1), clue.NewBrain(kind, rand.New(rand.NewPCG(r.o.Seed, uint64(i)))))}
		f.SetWriteDeadline(time.Now().Add(r.o.Timeout))
		f.Write([]byte(c.r.Greeting()))
		byConn = append(byConn, c)
	}
	// Hellos: six tokens, each once; eighteen cards, each once; the rest is the solution.
	deal := clue.Dealing{}
	seen := map[clue.Card]bool{}
	for i, c := range byConn {
		name, err := r.read(c, fmt.Sprintf("client %d", i+1))
		if err != nil {
			return err
		}
		data, err := r.read(c, fmt.Sprintf("client %d", i+1))
		if err != nil {
			return err
		}
		h, perr := clue.ParseHello(data)
		if name != clue.MsgHello || perr != nil {
			return &failure{want: fmt.Sprintf("client %d: a hello: \"hello\" then (TOKEN (CARD CARD CARD))", i+1), got: fmt.Sprintf("%q then %q", name, data)}
		}
		if r.conns[h.Token] != nil {
			return &failure{want: "a different token for each client", got: fmt.Sprintf("token %d twice", h.Token)}
		}
		for _, x := range h.Cards {
			if seen[x] {
				return &failure{want: "each card dealt once", got: fmt.Sprintf("%v dealt twice", x)}
			}
			seen[x] = true
		}
		c.token = h.Token
		r.conns[h.Token] = c
		deal.Hands[h.Token] = h.Cards
		r.feed(c, name)
		r.feed(c, data)
	}
	var sol []clue.Card
	for x := range clue.Card(clue.Cards) {
		if !seen[x] {
			sol = append(sol, x)
		}
	}
	if len(sol) != 3 || sol[0].Kind() != clue.Suspect || sol[1].Kind() != clue.Weapon || sol[2].Kind() != clue.Room {
		return &failure{want: "a deal that leaves one card of each kind as the solution", got: fmt.Sprintf("%v left", sol)}
	}
	deal.Solution = clue.Triple{Suspect: int(sol[0]), Weapon: int(sol[1]) - clue.Tokens, Room: sol[2].Room()}
	j := clue.NewServer(clue.ServerOptions{Deal: &deal, Dice: func() int { return r.roll }})
	if err := r.expect(j.Start()); err != nil {
		return err
	}
	for !j.Over() {
		t := j.Awaiting()
		c := r.conns[t]
		if r.o.FaultToken == t && !r.faulted && j.AwaitsTurn() {
			r.faulted = true
			outs, err := r.fault(j, c)
			if err != nil {
				return err
			}
			if err := r.expect(outs); err != nil {
				return err
			}
			continue
		}
		if len(r.pending[t]) == 0 {
			return fmt.Errorf("the mock client of token %d has no answer where one is due", t)
		}
		line := r.pending[t][0]
		r.pending[t] = r.pending[t][1:]
		if r.answers[t]++; r.o.Inject.Token == t && r.answers[t] == r.o.Inject.K {
			if j.Accepts(r.o.Inject.Line) {
				return fmt.Errorf("-inject: %q is a legal answer there", r.o.Inject.Line)
			}
			r.injected = true
			if err := r.send(c, r.o.Inject.Line); err != nil {
				return err
			}
			c.gone = true
			if err := r.expect(j.Drop(t)); err != nil {
				return err
			}
			continue
		}
		if err := r.send(c, line); err != nil {
			return err
		}
		if line == clue.CmdRoll {
			if err := r.readRoll(c); err != nil {
				return err
			}
		}
		outs, v := j.Take(line)
		if v != nil {
			return fmt.Errorf("the mock client of token %d broke a rule: %v", t, v)
		}
		if line == clue.CmdRoll {
			outs = outs[2:] // the rolled message, already read
		}
		if err := r.expect(outs); err != nil {
			return err
		}
	}
	// The game is over: the server closes every connection, sending nothing more.
	for _, c := range r.conns {
		if c.gone {
			continue
		}
		c.f.SetReadDeadline(time.Now().Add(r.o.Timeout))
		if l, err := c.in.ReadLine(); err == nil {
			return &failure{want: fmt.Sprintf("the connection of %s closed at the end of the game", clue.Suspects[c.token]), got: fmt.Sprintf("%q", l)}
		} else if errors.Is(err, os.ErrDeadlineExceeded) {
			return &failure{want: fmt.Sprintf("the connection of %s closed at the end of the game", clue.Suspects[c.token]), got: "nothing within " + r.o.Timeout.String(), kind: outcome.Silent}
		}
	}
	return nil
}

// fault makes the faulty client misbehave at its first turn; the lines returned are what
// the server must send next (it drops the client).
func (r *run) fault(j *clue.Server, c *conn) ([]judge.Out, error) {
	switch r.o.Fault {
	case "silent":
		r.log = append(r.log, clue.Suspects[c.token]+" (silent)")
	case "gone":
		r.log = append(r.log, clue.Suspects[c.token]+" (closes its connection)")
		c.f.Close()
	case "garbage":
		if err := r.send(c, "dance"); err != nil {
			return nil, err
		}
	case "wall":
		if err := r.send(c, clue.CmdRoll); err != nil {
			return nil, err
		}
		if err := r.readRoll(c); err != nil {
			return nil, err
		}
		j.Take(clue.CmdRoll)
		if err := r.send(c, "(12 12)"); err != nil {
			return nil, err
		}
	}
	c.gone = true
	return j.Drop(c.token), nil
}

// readRoll reads the rolled message that answers a roll and sets the judge's dice to it.
func (r *run) readRoll(c *conn) error {
	who := clue.Suspects[c.token]
	name, err := r.read(c, who)
	if err != nil {
		return err
	}
	data, err := r.read(c, who)
	if err != nil {
		return err
	}
	n, perr := clue.ParseRolled(data)
	if name != clue.MsgRolled || perr != nil || n == 0 {
		return &failure{want: fmt.Sprintf("to %s: \"rolled\" then a roll of 2 to 12", who), got: fmt.Sprintf("%q then %q", name, data)}
	}
	r.roll = n
	r.feed(c, name)
	r.feed(c, data)
	return nil
}

// expect reads the lines the judge says the server sends, each from its client's
// connection, and feeds them to the client's brain.
func (r *run) expect(outs []judge.Out) error {
	for _, o := range outs {
		if o.To == judge.Log {
			continue
		}
		c := r.conns[o.To]
		if c.gone {
			continue
		}
		who := clue.Suspects[c.token]
		got, err := r.read(c, who)
		if err != nil {
			return err
		}
		if got != o.Line {
			return &failure{want: fmt.Sprintf("to %s: %q", who, o.Line), got: fmt.Sprintf("%q", got)}
		}
		r.feed(c, got)
	}
	return nil
}

func (r *run) read(c *conn, who string) (string, error) {
	c.f.SetReadDeadline(time.Now().Add(r.o.Timeout))
	l, err := c.in.ReadLine()
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		if other := r.stray(c); other != "" {
			return "", &failure{want: "a line to " + who, got: fmt.Sprintf("nothing for %s in %v; %s instead", who, r.o.Timeout, other)}
		}
		return "", &failure{want: "a line to " + who, got: "nothing within " + r.o.Timeout.String(), kind: outcome.Silent}
	case err != nil:
		return "", &failure{want: "a line to " + who, got: "the end of the connection"}
	}
	r.steps++
	r.log = append(r.log, "server -> "+who+" | "+l)
	return l, nil
}

// stray looks for a line the server sent another client while c waited in vain: the
// usual sign of a message sent to the wrong client.
func (r *run) stray(c *conn) string {
	for _, o := range r.conns {
		if o == nil || o == c || o.gone {
			continue
		}
		o.f.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
		if l, err := o.in.ReadLine(); err == nil {
			return fmt.Sprintf("%s was sent %q", clue.Suspects[o.token], l)
		}
	}
	return ""
}

func (r *run) send(c *conn, line string) error {
	r.log = append(r.log, clue.Suspects[c.token]+" -> server | "+line)
	c.f.SetWriteDeadline(time.Now().Add(r.o.Timeout))
	if _, err := c.f.Write([]byte(line + "\n")); err != nil {
		return &failure{want: "the server to read " + clue.Suspects[c.token] + "'s line", got: err.Error()}
	}
	return nil
}

// feed gives a line from the server to the client's brain and keeps its answers.
func (r *run) feed(c *conn, line string) {
	x := c.r.React(line)
	r.pending[max(c.token, 0)] = append(r.pending[max(c.token, 0)], x.Replies...)
}
