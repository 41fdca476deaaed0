// Package mockplayer is the mock player of every pipe game: it sits between a hub and a
// player, passes the conversation through, and leaves the protocol where a fault script
// (package faults) says.
//
// The player behind it is either a reference player running in-process (the mock plays the
// game's reference strategy, so its honest moves are always legal) or a real program (relay
// mode: the mock then records every byte both ways, which is how the harness sees what a
// third-party hub says to its players).
//
// The mock works on the wire, not on a game's rules: the first byte the player writes is its
// handshake, each later line is a reply, and each line from the hub is a message. That is
// true of every pipe game here, so one mock serves them all.
package mockplayer

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"gauntlet/harness/box/sandbox"
	"gauntlet/harness/judges/faults"
	"gauntlet/harness/runtime/child"
)

// Inner is the player behind the mock.
type Inner interface {
	// Start begins the player with the given arguments. It returns the player's stdin (the
	// mock writes the hub's lines there), its stdout (the mock reads the replies there), and
	// a function that waits for the player to end and gives its exit status.
	Start(args []string, stderr io.Writer) (in io.WriteCloser, out io.Reader, wait func() int, err error)
}

// InProcess is a reference player's Run function, run in a goroutine.
type InProcess func(args []string, stdin io.Reader, stdout, stderr io.Writer) int

// Start runs the player in a goroutine connected by in-memory pipes.
func (f InProcess) Start(args []string, stderr io.Writer) (io.WriteCloser, io.Reader, func() int, error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	status := make(chan int, 1)
	go func() {
		code := f(args, inR, outW, stderr)
		outW.Close()
		inR.CloseWithError(io.ErrClosedPipe) // later writes from the mock fail, like EPIPE
		status <- code
	}()
	return inW, outR, func() int { return <-status }, nil
}

// External is a real player program, started with pipes (relay mode).
type External struct {
	Path string   // looked up in PATH like execvp when it has no '/'
	Dir  string   // its folder ("": this process's)
	Env  []string // its environment (nil: this process's)
	// Inherit are descriptors the program gets at these numbers (3 and up), as a process
	// passes on those it holds open without close-on-exec (a witness's door).
	Inherit map[int]*os.File
}

// Start starts the program; its stderr goes to the given writer.
func (e External) Start(args []string, stderr io.Writer) (io.WriteCloser, io.Reader, func() int, error) {
	spec := child.Spec{Path: e.Path, Args: args, Dir: e.Dir, Env: e.Env, Stderr: stderr}
	if len(e.Inherit) > 0 {
		spec.Build = func(path string, args []string) *exec.Cmd {
			cmd := exec.Command(path, args...)
			for fd, f := range e.Inherit {
				for len(cmd.ExtraFiles) <= fd-3 {
					cmd.ExtraFiles = append(cmd.ExtraFiles, nil)
				}
				cmd.ExtraFiles[fd-3] = f
			}
			return cmd
		}
	}
	c, err := child.Start(spec)
	if err != nil {
		return nil, nil, nil, err
	}
	wait := func() int {
		err := c.Cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				return 128 + int(ws.Signal())
			}
			return ee.ExitCode()
		}
		return 0
	}
	return c.In, c.Out, wait, nil
}

// Passed is a real player program that another process started and passed on (relay
// mode): the witness's stand-in starts a program of the subject's in the subject's box and
// hands the mock, run by the harness outside it, the write end of the program's stdin (In),
// the read end of its stdout (Out), and the read end of a pipe on which it writes, once it
// has reaped the program, "exit N" or "signal N" (Status). See WitnessConn.Run.
type Passed struct {
	In, Out, Status *os.File
}

// Start hands over the program's pipes: it was started already, with the arguments the
// stand-in was given. Its wait gives the status the stand-in told, 128+N for a death by
// signal N as External's does; a status pipe that closes without one (the stand-in was
// killed) reads as a death by SIGKILL.
func (p Passed) Start(args []string, stderr io.Writer) (io.WriteCloser, io.Reader, func() int, error) {
	wait := func() int {
		defer p.Status.Close()
		line, err := bufio.NewReader(io.LimitReader(p.Status, 64)).ReadString('\n')
		code, sig, verr := parseVerdict(line)
		switch {
		case err != nil || verr != nil:
			return 128 + int(syscall.SIGKILL)
		case sig != 0:
			return 128 + int(sig)
		}
		return code
	}
	return p.In, p.Out, wait, nil
}

// Recorder receives every chunk of the conversation as it passes (relay mode).
type Recorder interface {
	FromHub(data []byte) // one line from the hub, with its '\n' if it had one
	ToHub(data []byte)   // what the mock wrote to the hub (the handshake, or one line)
	Note(event string)   // a fault the mock injected, or how the player ended
}

// Config sets up one run of the mock player.
type Config struct {
	Script   faults.Script
	Inner    Inner
	Recorder Recorder // may be nil
	// NoHandshake is for protocols whose players send no handshake byte (Stratego's AIs):
	// every line the player writes is a reply, the first being reply 1.
	NoHandshake bool

	// Die ends the process by a signal. Nil means really die; tests replace it.
	Die func(sig syscall.Signal)
	// Hang blocks instead of exiting. Nil means block until killed; tests replace it.
	Hang func()
	// Ending, when not nil, is called as the mock dies by a signal, after it has let go of
	// the hub's streams and just before it dies: the witnessed mock tells its stand-in so
	// (Main's -tell).
	Ending func(sig syscall.Signal)

	// The rest is for a mock that has no process of its own (a goroutine of the launcher):
	// nil or empty, the mock's process is its own.

	// Env and Dir are the environment and folder of what the mock starts (a spawn fault's
	// grandchild, a relayed program); nil and "": the process's. Inherit are the
	// descriptors a relayed program gets at these numbers (the witness's door).
	Env     []string
	Dir     string
	Inherit map[int]*os.File
	// Broken is called when a write to the hub fails because the hub closed its end: a
	// process dies there by SIGPIPE.
	Broken func()
	// Own lists the mock's descriptors, where a close fault looks for other copies of its
	// output (else the process's, /proc/self/fd).
	Own func() []*os.File
}

type chunk struct {
	data []byte
	cont bool  // the rest of a line longer than maxChunk, already counted
	err  error // io.EOF at the end
}

// maxChunk bounds what the mock holds of one line: a longer line passes through in pieces,
// counted once, so that a hub or a player sending an endless line cannot grow the mock.
const maxChunk = 1 << 20

// Run runs the mock player with the player arguments args on the given streams and returns
// the exit status. stdout must be an *os.File so that "close" can really close it and
// "spawn" can hand it to a grandchild.
func Run(cfg Config, args []string, stdin io.Reader, stdout *os.File, stderr io.Writer) int {
	m := &mock{cfg: cfg, stdin: stdin, stdout: stdout, stderr: stderr}
	return m.run(args)
}

type mock struct {
	cfg    Config
	stdin  io.Reader
	stdout *os.File
	stderr io.Writer
	closed bool // stdout closed by a "close" rule
}

func (m *mock) run(args []string) int {
	if code, stop := m.fire(faults.Start, 0); stop {
		return code
	}
	in, out, wait, err := m.cfg.Inner.Start(args, m.stderr)
	if err != nil {
		fmt.Fprintf(m.stderr, "mockplayer: cannot start the player: %v\n", err)
		return 127
	}
	// Reap the player the moment it ends, whatever fault the mock is busy playing (a slow
	// reply, say): a zombie held by the mock would be blamed on the program under test.
	ended := make(chan int, 1)
	go func() { ended <- wait() }()
	toInner := make(chan []byte, 4096)
	go func() {
		for line := range toInner {
			in.Write(line)
		}
		in.Close()
	}()
	hub := make(chan chunk)
	go readChunks(m.stdin, false, hub)
	player := make(chan chunk)
	go readChunks(out, !m.cfg.NoHandshake, player)

	fromHub, replies := 0, -1 // replies is -1 until the handshake has been seen
	if m.cfg.NoHandshake {
		replies = 0
	}
	hubOpen := true
	for {
		select {
		case c := <-hub:
			if c.err != nil {
				hubOpen = false
				hub = nil
				close(toInner)
				continue
			}
			if c.cont {
				toInner <- c.data
				continue
			}
			fromHub++
			m.record(func(r Recorder) { r.FromHub(c.data) })
			if code, stop := m.fire(faults.After, fromHub); stop {
				return code
			}
			toInner <- c.data
		case c := <-player:
			if c.err != nil {
				code := <-ended
				m.note(fmt.Sprintf("player ended with status %d", code))
				if hubOpen {
					// Nothing more will reach the player; stop passing lines to it.
					hub = nil
				}
				if endCode, stop := m.fire(faults.End, 0); stop {
					return endCode
				}
				return code
			}
			if c.cont {
				m.write(c.data)
				continue
			}
			point, k := faults.Reply, replies+1
			if replies < 0 {
				point, k = faults.Hello, 0
			}
			replies++
			code, stop, replaced := m.fireReplace(point, k)
			if stop {
				return code
			}
			if !replaced {
				m.write(c.data)
			}
		}
	}
}

// readChunks sends the handshake byte (when first is set) and then one line at a time.
func readChunks(r io.Reader, first bool, ch chan<- chunk) {
	br := bufio.NewReader(r)
	if first {
		b, err := br.ReadByte()
		if err != nil {
			ch <- chunk{err: io.EOF}
			return
		}
		ch <- chunk{data: []byte{b}}
	}
	cont := false
	for {
		var line []byte
		var err error
		for {
			var part []byte
			part, err = br.ReadSlice('\n')
			line = append(line, part...)
			if err != bufio.ErrBufferFull || len(line) >= maxChunk {
				break
			}
		}
		if len(line) > 0 {
			ch <- chunk{data: line, cont: cont}
		}
		cont = err == bufio.ErrBufferFull
		if err != nil && err != bufio.ErrBufferFull {
			ch <- chunk{err: io.EOF}
			return
		}
	}
}

func (m *mock) record(f func(Recorder)) {
	if m.cfg.Recorder != nil {
		f(m.cfg.Recorder)
	}
}

func (m *mock) note(event string) { m.record(func(r Recorder) { r.Note(event) }) }

func (m *mock) write(data []byte) {
	if m.closed {
		return
	}
	if _, err := m.stdout.Write(data); errors.Is(err, syscall.EPIPE) && m.cfg.Broken != nil {
		m.cfg.Broken()
		return
	}
	m.record(func(r Recorder) { r.ToHub(data) })
}

// fire runs the rules at a point where the player has no message of its own to replace.
func (m *mock) fire(p faults.Point, k int) (code int, stop bool) {
	code, stop, _ = m.fireReplace(p, k)
	return code, stop
}

// fireReplace runs the rules at a point. stop says the mock must exit with code;
// replaced says the player's own message must not be sent.
func (m *mock) fireReplace(p faults.Point, k int) (code int, stop, replaced bool) {
	for _, r := range m.cfg.Script.At(p, k) {
		m.note(fmt.Sprintf("fault (script line %d): %s", r.Source, describe(r)))
		switch r.Op {
		case faults.Send, faults.Line:
			m.write(r.Bytes)
		case faults.Long:
			m.write(append(bytes.Repeat([]byte{'x'}, r.N), '\n'))
		case faults.Drop:
		case faults.Close:
			m.closed = true
			closeOutput(m.stdout, m.cfg.Own)
		case faults.Exit:
			return r.N, true, true
		case faults.Signal:
			m.die(r.Signal)
			return 128 + int(r.Signal), true, true
		case faults.Sleep:
			time.Sleep(r.Delay)
		case faults.Hang:
			m.hang()
			return 0, true, true
		case faults.Spawn:
			m.spawn()
		}
		if r.Op.Replaces() {
			replaced = true
		}
	}
	return 0, false, replaced
}

func describe(r faults.Rule) string {
	s := strings.TrimSpace(faults.Script{r}.Format())
	return s
}

func (m *mock) die(sig syscall.Signal) {
	if c, ok := m.stdin.(io.Closer); ok {
		c.Close() // as at a normal exit (see Main): stdin goes before stdout
	}
	if m.cfg.Ending != nil {
		// The stand-in dies as soon as it is told: the hub must have seen the player's
		// streams close by then, as they close before a dying program's status is known.
		m.closed = true
		m.stdout.Close()
		if c, ok := m.stderr.(io.Closer); ok {
			c.Close()
		}
		m.cfg.Ending(sig)
	}
	if m.cfg.Die != nil {
		m.cfg.Die(sig)
		return
	}
	Die(sig)
}

// Die ends the calling process by signal sig, as a C program dies of it: the Go runtime
// handles some signals itself, so the process image is replaced by a shell that sends the
// signal to itself with the default action in place.
func Die(sig syscall.Signal) {
	if sig == syscall.SIGKILL || sig == syscall.SIGSTOP {
		syscall.Kill(os.Getpid(), sig)
	}
	if sh, err := exec.LookPath("sh"); err == nil {
		err = syscall.Exec(sh, []string{"sh", "-c", fmt.Sprintf("trap - %d; kill -%d $$", int(sig), int(sig))}, os.Environ())
		fmt.Fprintf(os.Stderr, "mockplayer: cannot die by %v as a C program does (%v): killed instead\n", sig, err)
	}
	// The last resort is SIGKILL, which the hub sees as such.
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
}

func (m *mock) hang() {
	if m.cfg.Hang != nil {
		m.cfg.Hang()
		return
	}
	// Asleep on a timer, not in select {}: once the hub had closed the mock's stdin and the
	// player had ended, nothing else was left to wake, and the Go runtime ended the mock
	// with "all goroutines are asleep" (status 2) instead of letting it hang.
	for {
		time.Sleep(time.Hour)
	}
}

// spawn leaves a grandchild that holds the mock's stdin and stdout open. It runs in a
// session of its own and without the sandbox's run token, so that the hub under test, which
// did not start it, is not blamed for it; it keeps the conformance case's marker, so that the
// case can still find it (noprocs -allow sleep).
func (m *mock) spawn() {
	cmd := exec.Command("sleep", "3600")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Dir = m.cfg.Dir
	env := m.cfg.Env
	if env == nil {
		env = os.Environ()
	}
	for _, kv := range env {
		if !strings.HasPrefix(kv, sandbox.TokenEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if f, ok := m.stdin.(*os.File); ok {
		cmd.Stdin = f
	}
	cmd.Stdout = m.stdout
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(m.stderr, "mockplayer: spawn: %v\n", err)
		return
	}
	go cmd.Wait()
}

// closeOutput closes stdout and every other descriptor of the same pipe that the mock
// holds. A hub that dup2s a player's pipe onto its stdout without closing the original
// descriptor leaves a second copy of the pipe's write end in the player; a player closing
// only its stdout would then never show the hub an end of file. What a "close" case marks is
// how the hub treats the end of a player's output, which the spec describes; whether the
// hub tidies its descriptors after dup2 it does not ask, so the mock lets go of them all.
// own, when not nil, lists the mock's descriptors (a mock without a process of its own):
// those are looked at instead of the process's.
func closeOutput(f *os.File, own func() []*os.File) {
	fi, err := f.Stat()
	f.Close()
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return
	}
	if own != nil {
		for _, o := range own() {
			if sameWriteEnd(o, st) {
				o.Close()
			}
		}
		return
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		var s syscall.Stat_t
		if syscall.Fstat(n, &s) != nil || s.Mode&syscall.S_IFMT != syscall.S_IFIFO || s.Dev != st.Dev || s.Ino != st.Ino {
			continue
		}
		// Only write ends: both ends of a pipe have its inode.
		if fl, err := fcntl(n, syscall.F_GETFL); err == nil && fl&syscall.O_ACCMODE == syscall.O_WRONLY {
			syscall.Close(n)
		}
	}
}

// sameWriteEnd says whether f is a write end of the pipe whose status is pipe.
func sameWriteEnd(f *os.File, pipe *syscall.Stat_t) bool {
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st.Mode&syscall.S_IFMT != syscall.S_IFIFO || st.Dev != pipe.Dev || st.Ino != pipe.Ino {
		return false
	}
	// Through SyscallConn, not Fd, which would take the file out of the runtime's poller.
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	writeEnd := false
	rc.Control(func(fd uintptr) {
		fl, err := fcntl(int(fd), syscall.F_GETFL)
		writeEnd = err == nil && fl&syscall.O_ACCMODE == syscall.O_WRONLY
	})
	return writeEnd
}

func fcntl(fd, cmd int) (int, error) {
	r, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), uintptr(cmd), 0)
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}
