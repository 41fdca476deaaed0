package mockplayer

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"gauntlet/harness/judges/faults"
	"gauntlet/harness/runtime/csignal"
	"gauntlet/harness/runtime/transcript"
)

const usage = `usage: mockplayer (-as NAME | -relay PROGRAM | -relayed-fds IN,OUT,STATUS) [-faults FILE] [-fault RULE]... [-record FILE]... [-nohello] [-reference] [-tell FD] [--] PLAYER-ARGS...
       mockplayer [-witness-socket PATH] -witness -name NAME [--] PLAYER-ARGS...
       mockplayer -launch FD

The mock player. It plays as the reference player NAME (-as), or runs the real PROGRAM and
copies every byte both ways (-relay), and leaves the protocol where the fault script says
(see 'go doc gauntlet/harness/judges/faults' for the rules). The PLAYER-ARGS are the arguments the
hub gave the player. -record appends every line that passes, as transcript events (JSON lines), to FILE.

With -relayed-fds it relays a program another process started (the harness's witness has
the stand-in start a program of the subject's where the hub runs): IN is the write end of
the program's stdin, OUT the read end of its stdout, STATUS the read end of a pipe on which
the program's end is told ("exit N" or "signal N").

With -witness it is only a stand-in: it hands its standard streams to the harness through the
witness's door it inherited (descriptor 100), which runs the mock player NAME (set up by mkplayer) on them
outside the subject's reach, and it then ends as that mock ended: the harness gives the mock
-tell FD, a copy of the stand-in's connection, on which the mock says how it ends ("exit N"
or "signal N") just before it does. Where it finds no door (a hub that closed every
descriptor above 2 before it started its player), it connects to the witness's socket at
PATH (-witness-socket) instead.

With -launch it is the witness's launcher, which the harness starts in a box of its own for
a script's mock players: it starts each mock player the harness asks for on the socket at
descriptor FD, on the descriptors sent with the request, and says when each has ended.

A hub starts its players with fixed arguments, so to put a mock in a game, start it through a
wrapper script, e.g.:
  #!/bin/sh
  exec mockplayer -as NAME -fault 'after 3 exit 0' -- "$@"
`

// Main is the mockplayer command. players finds the in-process reference players by name.
func Main(args []string, players func(name string) (InProcess, bool), stdin *os.File, stdout *os.File, stderr io.Writer) int {
	f, code := parseFlags(args, stderr)
	if f == nil {
		return code
	}
	if f.launch >= 0 {
		if f.set != 1 || len(f.args) != 0 {
			fmt.Fprint(stderr, "mockplayer: -launch takes no other flag nor argument\n"+usage)
			return 2
		}
		return Launch(f.launch, players, stderr)
	}
	if f.witness {
		if f.name == "" || f.as != "" || f.relay != "" || f.relayedFds != "" || len(f.rules) > 0 || f.scriptFile != "" || len(f.records) > 0 {
			fmt.Fprint(stderr, "mockplayer: -witness takes -name (and -witness-socket) and no other flag\n"+usage)
			return 2
		}
		return Stub(f.name, f.socket, f.args, stderr)
	}
	if f.socket != "" {
		fmt.Fprint(stderr, "mockplayer: -witness-socket goes with -witness\n"+usage)
		return 2
	}
	return f.play(players, mockHost{stdin: stdin, stdout: stdout, stderr: stderr})
}

// flags are the mockplayer command's flags, parsed.
type flags struct {
	as, relay, relayedFds, scriptFile string
	records, rules                    []string
	witness                           bool
	name, socket                      string
	noHello, reference                bool
	tell, launch                      int
	set                               int      // how many flags were given
	args                              []string // the player's arguments
}

// parseFlags parses the command line; a nil result comes with the exit status (2: a usage
// error, told on stderr).
func parseFlags(args []string, stderr io.Writer) (*flags, int) {
	var f flags
	fs := flag.NewFlagSet("mockplayer", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	fs.StringVar(&f.as, "as", "", "play as this reference player (a player program: gauntlet programs lists them)")
	fs.StringVar(&f.relay, "relay", "", "relay this real player program")
	fs.StringVar(&f.relayedFds, "relayed-fds", "", "relay the program started by another process, whose stdin, stdout and status pipes are these `IN,OUT,STATUS` descriptors")
	fs.StringVar(&f.scriptFile, "faults", "", "read the fault script from this file")
	fs.Func("record", "append a record of the conversation to this `FILE` (repeatable)", func(s string) error {
		f.records = append(f.records, s)
		return nil
	})
	fs.BoolVar(&f.witness, "witness", false, "be a stand-in: hand the streams to the harness's witness through the door at descriptor 100")
	fs.StringVar(&f.name, "name", "", "the mock the witness runs (with -witness)")
	fs.StringVar(&f.socket, "witness-socket", "", "with -witness, where no door was inherited: connect to the witness's socket at this `path`")
	fs.BoolVar(&f.noHello, "nohello", false, "the player sends no handshake byte (a game whose players have none): its first line is reply 1")
	fs.BoolVar(&f.reference, "reference", false, "stand for the reference program itself (with -as): its signal dispositions, SIGPIPE ignored")
	fs.IntVar(&f.tell, "tell", -1, "tell the witness's stand-in how the mock ends on this `descriptor` (the witness gives it)")
	fs.IntVar(&f.launch, "launch", -1, "be the witness's launcher: run the mock players it asks for on the socket at this `descriptor`, in this process's box")
	fs.Func("fault", "one fault rule (repeatable), e.g. 'reply 2 line \"DO9\"'", func(s string) error {
		f.rules = append(f.rules, s)
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return nil, 2
	}
	f.set, f.args = fs.NFlag(), fs.Args()
	return &f, 0
}

// A mockHost is what a mock player runs in: a process of its own (Main's streams, its
// descriptors by number), or, with shared set, a goroutine of the launcher's process, on
// the descriptors a request handed over (launched).
type mockHost struct {
	stdin, stdout *os.File
	stderr        io.Writer
	shared        *launched
}

// play runs the mock player the flags ask for (-as, -relay or -relayed-fds) in host h and
// returns its exit status.
func (f *flags) play(players func(name string) (InProcess, bool), h mockHost) int {
	stderr := h.stderr
	if given := btoi(f.as != "") + btoi(f.relay != "") + btoi(f.relayedFds != ""); given != 1 {
		fmt.Fprint(stderr, "mockplayer: give exactly one of -as, -relay and -relayed-fds\n"+usage)
		return 2
	}
	var passed Passed
	if f.relayedFds != "" {
		var ok bool
		if passed, ok = h.passedFds(f.relayedFds); !ok {
			fmt.Fprintf(stderr, "mockplayer: -relayed-fds %q: not three open descriptors IN,OUT,STATUS\n", f.relayedFds)
			return 2
		}
	}
	text := strings.Join(f.rules, "\n")
	if f.scriptFile != "" {
		b, err := os.ReadFile(h.path(f.scriptFile))
		if err != nil {
			fmt.Fprintf(stderr, "mockplayer: %v\n", err)
			return 2
		}
		text = string(b) + "\n" + text
	}
	script, err := faults.Parse(text)
	if err != nil {
		fmt.Fprintf(stderr, "mockplayer: %v\n", err)
		return 2
	}
	if f.reference && h.shared == nil {
		// As the reference players' Main: a write to a hub that stopped reading fails
		// with EPIPE and the read that follows ends the player, instead of SIGPIPE. (In
		// the launcher every write fails so: its goroutine dies of it unless -reference.)
		csignal.Player()
	}
	cfg := Config{Script: script, NoHandshake: f.noHello}
	if h.shared != nil {
		h.shared.configure(&cfg, f.reference)
	}
	if f.as != "" {
		run, ok := players(f.as)
		if !ok {
			fmt.Fprintf(stderr, "mockplayer: no reference player named %q\n", f.as)
			return 2
		}
		cfg.Inner = run
	} else if f.relay != "" {
		cfg.Inner = External{Path: f.relay, Dir: cfg.Dir, Env: cfg.Env, Inherit: cfg.Inherit}
	} else {
		cfg.Inner = passed
	}
	var recs multiRecorder
	for _, record := range f.records {
		rf, err := os.OpenFile(h.path(record), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintf(stderr, "mockplayer: %v\n", err)
			return 2
		}
		defer rf.Close()
		recs = append(recs, NewTranscriptRecorder(rf, f.args))
	}
	if len(recs) > 0 {
		cfg.Recorder = recs
		if h.shared != nil {
			cfg.Recorder = h.shared.recorder(recs)
		}
	}
	var tell func(code int, sig syscall.Signal)
	if f.tell >= 0 {
		tell = h.teller(f.tell)
		cfg.Ending = func(sig syscall.Signal) { tell(0, sig) }
	}
	code := Run(cfg, f.args, h.stdin, h.stdout, stderr)
	// Let go of stdin before stdout (at the exit): a hub that writes to this player once it
	// has seen its stdout close must find the pipe closed, as it would with a C player.
	h.stdin.Close()
	if tell != nil {
		// The stand-in ends as soon as it is told, the hub's player with it: the streams go
		// first, as they do before a program's exit status is known.
		h.stdout.Close()
		if c, ok := stderr.(io.Closer); ok {
			c.Close()
		}
		tell(code, 0)
	}
	return code
}

// path is a path the mock was given, from the folder it runs in.
func (h mockHost) path(p string) string {
	if h.shared != nil && !filepath.IsAbs(p) {
		return filepath.Join(h.shared.dir, p)
	}
	return p
}

// teller returns how the mock tells its stand-in its end on its descriptor fd.
func (h mockHost) teller(fd int) func(code int, sig syscall.Signal) {
	if h.shared != nil {
		return h.shared.teller(fd)
	}
	// The descriptor is the mock's alone: not for a spawned grandchild, nor for the shell a
	// death by signal becomes.
	syscall.CloseOnExec(fd)
	return func(code int, sig syscall.Signal) { Tell(fd, code, sig) }
}

// passedFds reads -relayed-fds in host h (see passedFds).
func (h mockHost) passedFds(s string) (Passed, bool) {
	if h.shared != nil {
		return h.shared.passedFds(s)
	}
	return passedFds(s)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// relayedNumbers reads the numbers of -relayed-fds: three, above 2 and distinct.
func relayedNumbers(s string) ([3]int, bool) {
	var fds [3]int
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return fds, false
	}
	for i, p := range parts {
		fd, err := strconv.Atoi(p)
		if err != nil || fd <= 2 || slices.Contains(fds[:i], fd) {
			return fds, false
		}
		fds[i] = fd
	}
	return fds, true
}

// passedFds reads -relayed-fds: three descriptors above 2, open and distinct, which are the
// mock's alone (not for a spawned grandchild, nor for the shell a death by signal becomes).
func passedFds(s string) (Passed, bool) {
	fds, ok := relayedNumbers(s)
	if !ok {
		return Passed{}, false
	}
	for _, fd := range fds {
		if _, err := fcntl(fd, syscall.F_GETFD); err != nil {
			return Passed{}, false
		}
	}
	for _, fd := range fds {
		syscall.CloseOnExec(fd)
	}
	return Passed{In: os.NewFile(uintptr(fds[0]), "the program's stdin"), Out: os.NewFile(uintptr(fds[1]), "the program's stdout"),
		Status: os.NewFile(uintptr(fds[2]), "the program's status")}, true
}

// TranscriptRecorder records the conversation as transcript events (JSON lines appended to
// a file, so the relays of several players can share one file or be merged later). The
// player is named "player ID" after its last argument (the id or label every pipe game
// gives it), the hub "hub".
type TranscriptRecorder struct {
	log    *transcript.Log
	player string
}

// NewTranscriptRecorder returns a recorder writing to sink; args are the player's arguments.
func NewTranscriptRecorder(sink io.Writer, args []string) *TranscriptRecorder {
	player := "player"
	if len(args) > 0 {
		player += " " + args[len(args)-1]
	}
	l := transcript.New(transcript.Options{Writer: "relay " + player, Sink: sink})
	l.Start(player, os.Getpid(), args)
	return &TranscriptRecorder{log: l, player: player}
}

func chop(d []byte) ([]byte, bool) {
	if n := len(d); n > 0 && d[n-1] == '\n' {
		return d[:n-1], true
	}
	return d, false
}

// multiRecorder passes every event to each of its recorders.
type multiRecorder []Recorder

func (m multiRecorder) FromHub(d []byte) {
	for _, r := range m {
		r.FromHub(d)
	}
}

func (m multiRecorder) ToHub(d []byte) {
	for _, r := range m {
		r.ToHub(d)
	}
}

func (m multiRecorder) Note(e string) {
	for _, r := range m {
		r.Note(e)
	}
}

// FromHub records a line the hub sent the player.
func (r *TranscriptRecorder) FromHub(d []byte) {
	line, eol := chop(d)
	r.log.Line("hub", r.player, line, eol)
}

// ToHub records what the player (or a fault in its place) sent the hub.
func (r *TranscriptRecorder) ToHub(d []byte) {
	line, eol := chop(d)
	r.log.Line(r.player, "hub", line, eol)
}

// Note records a fault injected or how the player ended.
func (r *TranscriptRecorder) Note(e string) { r.log.Notef(r.player, "%s", e) }

// PolledStdin returns the process's stdin for Main. When it is a pipe it is switched to
// non-blocking mode, so that the Go runtime polls it instead of leaving a thread blocked
// in read(2): a blocked read keeps the pipe's read end open until the process is gone,
// after its stdout has closed, and a hub that writes to the player in that moment would
// not get the EPIPE (or SIGPIPE) it gets from a C player that exits. A terminal or a file
// is left as it is.
func PolledStdin() *os.File {
	var st syscall.Stat_t
	if err := syscall.Fstat(0, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		return os.Stdin
	}
	if err := syscall.SetNonblock(0, true); err != nil {
		return os.Stdin
	}
	return os.NewFile(0, "/dev/stdin")
}
