// Package hubrt is the process runtime of the reference hubs: it starts the player
// programs with pipes, reads their lines, writes to them, and shuts them down; and Play,
// the one loop of every reference hub, drives a game's judge over them with the hub's
// Policy.
//
// It behaves as the specs ask of a C hub: players are found like execvp finds them, their
// stderr goes to /dev/null, a write to a dead player is ignored (the read that follows
// reports the loss), and a signal the hub watches interrupts whatever read is waiting.
// Unlike a C hub it never waits on a write: what a player's pipe cannot take waits in a
// bounded buffer (MaxPending), and a player sent more loses at its next read.
package hubrt

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"gauntlet/harness/runtime/child"
	"gauntlet/harness/runtime/lineio"
)

// ErrInterrupted is returned by reads after a watched signal has arrived.
var ErrInterrupted = errors.New("interrupted by signal")

// Exit is how a player process ended.
type Exit struct {
	Code   int            // exit status, when Signal is 0
	Signal syscall.Signal // the signal that killed it, or 0
}

// String describes the exit as "exit status N" or "signal N".
func (e Exit) String() string {
	if e.Signal != 0 {
		return fmt.Sprintf("signal %d", int(e.Signal))
	}
	return fmt.Sprintf("exit status %d", e.Code)
}

// Hub is a set of started player processes.
type Hub struct {
	players []*player

	mu        sync.Mutex
	caught    os.Signal
	interrupt chan struct{} // closed when a watched signal arrives
	once      sync.Once     // closes interrupt
}

type player struct {
	cmd   *exec.Cmd // nil for a local seat
	stdin *input
	out   *lineio.Reader
	// local, for a local seat (a person), gives its lines, read by a goroutine so that a
	// watched signal can end the wait; seats with the same In share it.
	local *source
	// deadline bounds the reads of out: a read past it fails with os.ErrDeadlineExceeded,
	// which is how a timeout and a watched signal end a read that waits.
	deadline interface{ SetReadDeadline(time.Time) error }
	done     chan struct{} // closed once the process has been reaped
	// group, for a player whose process group ends with it (child.Spec.GroupEndsWithIt),
	// is that group: reaped means gone, with it.
	group int
	// leads, for a player started as the leader of a process group of its own
	// (child.Spec.Group), is that group: Pause and Resume signal all of it, and whatever
	// is left of it is killed when the player ends.
	leads int
	exit  Exit
	cpu   time.Duration // its CPU time, its reaped children's included, once reaped
}

type readKind int

const (
	readLine readKind = iota
	readByte
)

type readResult struct {
	line string
	b    byte
	err  error
}

// Start runs progs[i] with arguments args(i): its stdin and stdout are pipes to the hub, its
// stderr is /dev/null, and a name without '/' is looked up in PATH like execvp does. If one
// fails to start, those already started are killed and reaped and the error is returned.
func Start(progs []string, args func(i int) []string) (*Hub, error) {
	return StartWith(progs, args, nil)
}

// Launch changes how player i starts: it is given the player's child.Spec (its path and
// arguments, its pipes) before the start, and may set how the command is made and started
// (Spec.Build). A tournament's starts each program as a sandbox user in a box
// (harness/grading/tournament). An error keeps the player from starting.
type Launch func(i int, s *child.Spec) error

// StartWith is Start with each player started as launch says (nil: as Start does).
func StartWith(progs []string, args func(i int) []string, launch Launch) (*Hub, error) {
	return StartSeats(progs, nil, args, launch)
}

// Local is a seat played from the hub's own streams, not by a program (a person: the
// Stratego manager's "human"): its lines are read from In, with no time limit, and what is
// sent to it is written to Out.
type Local struct {
	In  io.Reader
	Out io.Writer
}

// StartSeats is StartWith where a seat i with locals[i] not nil is that local seat
// (progs[i] is then not started).
func StartSeats(progs []string, locals []*Local, args func(i int) []string, launch Launch) (*Hub, error) {
	h := &Hub{interrupt: make(chan struct{})}
	sources := map[io.Reader]*source{}
	for i, prog := range progs {
		if l := locals; i < len(l) && l[i] != nil {
			src := sources[l[i].In]
			if src == nil {
				src = &source{r: lineio.NewReader(l[i].In), lines: make(chan readResult)}
				sources[l[i].In] = src
			}
			h.players = append(h.players, localPlayer(l[i], src))
			continue
		}
		s := child.Spec{Path: prog, Args: args(i), Shell: true}
		if launch != nil {
			if err := launch(i, &s); err != nil {
				h.Kill()
				return nil, err
			}
		}
		p, err := startPlayer(s)
		if err != nil {
			h.Kill()
			return nil, err
		}
		h.players = append(h.players, p)
	}
	return h, nil
}

func startPlayer(s child.Spec) (*player, error) {
	// The player inherits the pipe ends themselves, without the copying goroutines of
	// exec.Cmd, so Wait never closes a pipe the hub still reads; a file the kernel cannot
	// execute (a script without "#!") runs with the shell, as the specs' execvp does.
	c, err := child.Start(s)
	if err != nil {
		return nil, err
	}
	cmd, inW, outR := c.Cmd, c.In, c.Out
	// Over pipes Out is a file on the runtime's poller, whose reads take deadlines.
	deadline, ok := outR.(interface{ SetReadDeadline(time.Time) error })
	if !ok {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, errors.New("hubrt: the player's stdout takes no deadline")
	}
	p := &player{
		group:    map[bool]int{true: cmd.Process.Pid}[s.GroupEndsWithIt],
		leads:    map[bool]int{true: cmd.Process.Pid}[s.Group && !s.GroupEndsWithIt],
		cmd:      cmd,
		stdin:    newInput(inW),
		out:      lineio.NewReader(outR),
		deadline: deadline,
		done:     make(chan struct{}),
	}
	go p.reap()
	return p, nil
}

// source is the lines of a local seat's In, read by one goroutine.
type source struct {
	r     *lineio.Reader
	lines chan readResult
	once  sync.Once
	err   error // the error that ended the lines (set before lines is closed)
}

// localPlayer is a local seat: no process, so it is "reaped" from the start.
func localPlayer(l *Local, src *source) *player {
	p := &player{
		stdin:    newInput(nopCloser{l.Out}),
		deadline: noDeadline{},
		done:     make(chan struct{}),
		local:    src,
	}
	close(p.done)
	return p
}

type noDeadline struct{}

func (noDeadline) SetReadDeadline(time.Time) error { return nil }

// readLocal reads a local seat's next line, or ErrInterrupted once a watched signal came.
func (h *Hub) readLocal(p *player, kind readKind) readResult {
	if kind == readByte {
		return readResult{err: errors.New("hubrt: a local seat sends no handshake")}
	}
	src := p.local
	src.once.Do(func() {
		go func() {
			for {
				line, err := src.r.ReadLine()
				if err != nil {
					src.err = err
					close(src.lines) // every later read gets err
					return
				}
				src.lines <- readResult{line: line}
			}
		}()
	})
	select {
	case res, ok := <-src.lines:
		if !ok {
			return readResult{err: src.err}
		}
		return res
	case <-h.interrupt:
		return readResult{err: ErrInterrupted}
	}
}

func (p *player) reap() {
	child.AwaitExit(p.cmd.Process) // in the poller: no thread blocked in wait per player
	if p.leads > 0 {
		// What the player left in its group goes with it, killed while the player is not
		// yet reaped (its pid, the group's id, cannot be taken by another process).
		syscall.Kill(-p.leads, syscall.SIGKILL)
	}
	err := p.cmd.Wait()
	if p.group > 0 {
		child.GroupGone(p.group, 3*time.Second)
	}
	if ps := p.cmd.ProcessState; ps != nil {
		p.cpu = ps.UserTime() + ps.SystemTime()
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			p.exit = Exit{Signal: ws.Signal()}
		} else {
			p.exit = Exit{Code: ee.ExitCode()}
		}
	}
	close(p.done)
}

// Len is the number of players.
func (h *Hub) Len() int { return len(h.players) }

// CPU is the CPU time player i used, its reaped children's included, once it has been
// reaped (after Kill or WaitUntil); -1 before.
func (h *Hub) CPU(i int) time.Duration {
	p := h.players[i]
	select {
	case <-p.done:
		return p.cpu
	default:
		return -1
	}
}

// Watch makes the given signals interrupt the hub: after the first of them arrives, every
// waiting and later read returns ErrInterrupted, and Caught reports the signal.
func (h *Hub) Watch(sigs ...os.Signal) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	go func() { h.Interrupt(<-ch) }()
}

// Interrupt makes the hub interrupted by sig as if a watched signal had arrived: for a
// signal the program caught itself before it started the players and called Watch. Only the
// first signal counts.
func (h *Hub) Interrupt(sig os.Signal) {
	h.once.Do(func() {
		h.mu.Lock()
		h.caught = sig
		h.mu.Unlock()
		close(h.interrupt)
		// A read that waits ends now (read sets its deadline before it looks at interrupt,
		// so this one, set after, is the one in force).
		for _, p := range h.players {
			p.deadline.SetReadDeadline(time.Unix(1, 0))
		}
	})
}

// InterruptOn makes a signal that comes on sigs interrupt the hub (Interrupt), until the
// returned function is called: a program's own SIGINT and SIGTERM, or a stopped
// tournament's (which sends one for the game it stops).
func (h *Hub) InterruptOn(sigs <-chan os.Signal) (release func()) {
	over := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			h.Interrupt(sig)
		case <-over:
		}
	}()
	return func() { close(over) }
}

// interrupted reports whether a watched signal has arrived.
func (h *Hub) interrupted() bool {
	select {
	case <-h.interrupt:
		return true
	default:
		return false
	}
}

// Caught returns the watched signal that arrived, or nil.
func (h *Hub) Caught() os.Signal {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.caught
}

// read performs one read of player i, given up with ErrInterrupted when a watched signal
// arrives and with ErrTimeout once the player's own time on it, computing or waiting but
// not held by a busy machine, reaches d (d <= 0: never; cpuBound), or with ErrWallTimeout
// once wall (0: WallBackstop times d) has passed on the clock. The read is the caller's
// own, on the pipe's deadline: no goroutine and no hand-over between threads per line. A
// read given up loses what came of its line; the hub reads nothing more from that player.
func (h *Hub) read(i int, kind readKind, d, wall time.Duration) readResult {
	p := h.players[i]
	// The deadline first, then the look at interrupt: a signal after the look sets its own
	// deadline after this one (Interrupt).
	p.deadline.SetReadDeadline(time.Time{})
	if h.interrupted() {
		return readResult{err: ErrInterrupted}
	}
	if p.stdin.isFull() {
		return readResult{err: ErrInputFull}
	}
	if p.local != nil {
		return h.readLocal(p, kind)
	}
	var bound *cpuBound
	if d > 0 || wall > 0 {
		bound = boundRead(p, d, wall)
		defer bound.stop()
	}
	var res readResult
	if kind == readByte {
		res.b, res.err = p.out.ReadByte()
	} else {
		res.line, res.err = p.out.ReadLine()
	}
	if errors.Is(res.err, os.ErrDeadlineExceeded) {
		if h.interrupted() {
			return readResult{err: ErrInterrupted}
		}
		if bound != nil && bound.onTheClock() {
			return readResult{err: ErrWallTimeout}
		}
		return readResult{err: ErrTimeout}
	}
	return res
}

// ReadHandshake reads one byte from player i: the handshake sent without a newline.
func (h *Hub) ReadHandshake(i int) (byte, error) {
	res := h.read(i, readByte, 0, 0)
	return res.b, res.err
}

// ReadLine reads the next line from player i, without its '\n'. A last line ended by EOF is
// returned as a line; the read after it returns io.EOF.
func (h *Hub) ReadLine(i int) (string, error) {
	res := h.read(i, readLine, 0, 0)
	return res.line, res.err
}

// Send writes line and a '\n' to player i, never waiting: what its pipe cannot take now
// waits in a buffer (MaxPending), written as the player reads. A write error (the player is
// gone) is ignored: the specs ask hubs to notice the loss by the read failure that follows;
// a player sent more than the buffer holds gets nothing more, and its next read fails with
// ErrInputFull.
func (h *Hub) Send(i int, line string) {
	h.players[i].stdin.send([]byte(line + "\n"))
}

// Kill sends SIGKILL to every player still running, reaps them all and returns how each
// ended, in player order.
func (h *Hub) Kill() []Exit {
	return h.WaitUntil(time.Now())
}

// WaitUntil waits for every player to exit; at the deadline it sends SIGKILL to those still
// running. It reaps them all and returns how each ended, in player order.
func (h *Hub) WaitUntil(deadline time.Time) []Exit {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	expired := false
	for _, p := range h.players {
		if !expired {
			select {
			case <-p.done:
				continue
			case <-timer.C:
				expired = true
			}
		}
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			if p.group > 0 {
				// A boxed player's whole group at once (its supervisor, its PID
				// namespace's init, the program), not one after the other.
				syscall.Kill(-p.group, syscall.SIGKILL)
			}
			<-p.done
		}
	}
	exits := make([]Exit, len(h.players))
	for i, p := range h.players {
		p.stdin.close()
		exits[i] = p.exit
	}
	return exits
}

// ErrTimeout is returned by ReadLineWithin (and Play, with a Policy.ReadTimeout) when no
// whole line came in time: in the limit of the player's own time, which leaves out the
// time a busy machine held it (cpuBound). The player's pending read is abandoned: read nothing more from
// it.
var ErrTimeout = errors.New("no whole line in time")

// ErrWallTimeout is ErrTimeout (errors.Is) for a read that the clock's backstop ended, not
// the player's own time: a player the machine never ran, or one blocked writing to a hub
// the machine held, past the backstop.
var ErrWallTimeout = fmt.Errorf("%w on the clock", ErrTimeout)

// ReadLineWithin is ReadLine with a time limit covering the whole line, d of the player's
// own time (computing or waiting, not held by a busy machine: cpuBound): a player that
// sends part of a line and then nothing times out like one that sends nothing.
func (h *Hub) ReadLineWithin(i int, d time.Duration) (string, error) {
	res := h.read(i, readLine, d, 0)
	return res.line, res.err
}

// Signal sends sig to player i (the process only), unless it has been reaped.
func (h *Hub) Signal(i int, sig syscall.Signal) {
	p := h.players[i]
	select {
	case <-p.done:
	default:
		p.cmd.Process.Signal(sig)
	}
}

// signalAll sends sig to player i's process group when it leads one (child.Spec.Group),
// else to its process, unless it has been reaped.
func (h *Hub) signalAll(i int, sig syscall.Signal) {
	p := h.players[i]
	select {
	case <-p.done:
	default:
		if p.leads > 0 {
			syscall.Kill(-p.leads, sig)
			return
		}
		p.cmd.Process.Signal(sig)
	}
}

// Pid is player i's process id, 0 for a local seat. A player started as the leader of a
// process group (child.Spec.Group, or a boxed one) has its pid as the group's id.
func (h *Hub) Pid(i int) int {
	if p := h.players[i]; p.cmd != nil {
		return p.cmd.Process.Pid
	}
	return 0
}

// Pause stops player i (SIGSTOP) until Resume, unless it has been reaped: its whole
// process group when it leads one (child.Spec.Group), else its process only.
func (h *Hub) Pause(i int) { h.signalAll(i, syscall.SIGSTOP) }

// Resume lets player i go on after Pause (SIGCONT), unless it has been reaped.
func (h *Hub) Resume(i int) { h.signalAll(i, syscall.SIGCONT) }

// CloseInput closes player i's stdin: it reads end of file.
func (h *Hub) CloseInput(i int) { h.players[i].stdin.close() }
