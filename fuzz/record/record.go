// Package record runs one program on a scripted input and records everything it does: the
// bytes it wrote on stdout and stderr, how it ended, and what it had answered at each point
// where the script waited for it.
//
// It is the fuzzer's runner. The mock hub (harness/judges/mockhub) checks a player against fixed
// expectations and stops at the first divergence; a mutated conversation has no fixed
// expectations after the mutation, so the fuzzer instead plays the script to the end in
// "record" mode and compares the whole recordings of the subject and the reference.
//
// Every run is bounded: the program gets its own session and process group, resource
// limits (CPU time, address space, file size, open files, processes; set by the sandbox's
// exec role before the program's first instruction), optionally a sandbox user and a box
// (Options.Identity, Options.Box), a deadline at each wait, bounded output capture, and
// writes to a program that does not read give up after the step timeout. Whatever happens, the process group is killed and reaped before
// Run returns.
package record

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"gauntlet/harness/box/sandbox"
	"gauntlet/harness/runtime/child"
	"gauntlet/harness/runtime/limitkill"
	"gauntlet/harness/runtime/transcript"
)

// Kind is what a step does.
type Kind int

// The steps of a script.
const (
	Write      Kind = iota // write Data to the program's stdin
	AwaitLine              // wait until the program has written one more line (or EOF)
	AwaitBytes             // wait until the program has written N more bytes (or EOF)
	Close                  // close the program's stdin
	Signal                 // send Signal to the program (not its group), then settle
	Sleep                  // wait Delay
	Quiet                  // wait until stdout and stderr have been silent for Delay (at most the step timeout)
)

// Step is one step of a script.
type Step struct {
	Kind   Kind
	Data   []byte         // Write
	N      int            // AwaitBytes
	Signal syscall.Signal // Signal
	Delay  time.Duration  // Sleep, Quiet
}

// Exit is how the program ended.
type Exit struct {
	Code   int            // exit status, when Signal is 0 and Hung is false
	Signal syscall.Signal // the signal that killed it, when not Hung
	Hung   bool           // it was still running at the end and the runner killed it
}

// String says "exit status N", "killed by SIGNAME" or "hung (killed by the fuzzer)".
func (e Exit) String() string {
	switch {
	case e.Hung:
		return "hung (killed by the fuzzer)"
	case e.Signal != 0:
		return "killed by " + transcript.SignalName(e.Signal)
	}
	return fmt.Sprintf("exit status %d", e.Code)
}

// End says how a wait ended.
type End int

// The ways a wait ends.
const (
	Got     End = iota // the line or the bytes arrived
	EOF                // stdout was closed first (Data holds what came before)
	Timeout            // nothing complete within the step timeout (Data holds what came)
)

func (e End) String() string { return [...]string{"got", "EOF", "timeout"}[e] }

// Awaited is what one wait took from the program's stdout.
type Awaited struct {
	Data []byte // the line with its '\n', the N bytes, or what came before EOF/timeout
	End  End
}

// Result is the record of a run.
type Result struct {
	Stdout, Stderr       []byte // what the program wrote, up to Options.OutputLimit each
	StdoutCut, StderrCut bool   // more was written and discarded
	Exit                 Exit
	Awaited              []Awaited // one per AwaitLine/AwaitBytes step, in order
	Blocked              bool      // a write gave up: the program did not read its stdin
	Duration             time.Duration
	// CPU is the program's CPU time, its reaped children's included (0 for a function run
	// in process), and Limit the resource limit that ended it, if one did (limitkill):
	// what a run's ending is not, a limit being no rule of the game.
	CPU   time.Duration
	Limit limitkill.Limit
}

// Options tune a run. Zero fields take the defaults.
type Options struct {
	Dir         string        // working directory (default: the caller's)
	Env         []string      // environment (default: sandbox.ProgramEnv(), not the caller's)
	StepTimeout time.Duration // longest wait at one step, and for one write (default 2s)
	// QuickTimeout is the wait at each later await once one has timed out: a program that
	// stopped answering is not waited for in full again and again (default 200ms).
	QuickTimeout time.Duration
	ExitTimeout  time.Duration // wait for the exit after the script (default: StepTimeout)
	// SignalSettle is how long a Signal step waits for the program to die of it before the
	// script goes on (default 100ms). A Go program takes a few milliseconds to die of a
	// signal, and meanwhile its other threads still read and answer: without the wait,
	// whether a line written just after the signal is answered would be left to chance.
	SignalSettle time.Duration
	OutputLimit  int // bytes kept of stdout and of stderr (default 4 MiB)
	// MemoryLimit bounds the program's address space (RLIMIT_AS) in bytes (default 1 GiB),
	// set before its first instruction (a Go program, such as a reference, reserves its
	// arenas within it from the start).
	MemoryLimit int64
	// Identity and Box, when set, run the program as that sandbox user in that box
	// (harness/box/sandbox), as the grader runs a subject: the fuzzer sets them when it is root
	// and the machine allows boxes. Box.Keep must name the folders the program needs.
	Identity sandbox.Identity
	Box      *sandbox.Box
}

func (o Options) withDefaults() Options {
	if o.StepTimeout <= 0 {
		o.StepTimeout = 2 * time.Second
	}
	if o.QuickTimeout <= 0 {
		o.QuickTimeout = 200 * time.Millisecond
	}
	if o.ExitTimeout <= 0 {
		o.ExitTimeout = o.StepTimeout
	}
	if o.SignalSettle <= 0 {
		o.SignalSettle = 100 * time.Millisecond
	}
	if o.OutputLimit <= 0 {
		o.OutputLimit = 4 << 20
	}
	if o.MemoryLimit <= 0 {
		o.MemoryLimit = 1 << 30
	}
	return o
}

// limits are those of every program run, with Options.MemoryLimit as its address space:
// enough for any honest hub or player, small enough that a runaway one cannot hurt the
// machine. The sandbox's exec role sets them before the program's first instruction.
func (o Options) limits() sandbox.Limits {
	return sandbox.Limits{CPU: 10 * time.Second, AddressSpace: o.MemoryLimit, FileSize: 64 << 20,
		OpenFiles: 256, Processes: 1024}
}

// stream collects one output pipe up to a bound, and wakes waiters when data comes.
type stream struct {
	mu     sync.Mutex
	buf    []byte
	total  int64 // bytes read, kept or not
	cut    bool
	eof    bool
	limit  int
	notify chan struct{} // gets a token after each change
	done   chan struct{} // closed at EOF
}

func newStream(limit int) *stream {
	return &stream{limit: limit, notify: make(chan struct{}, 1), done: make(chan struct{})}
}

func (s *stream) loop(r io.ReadCloser) {
	defer close(s.done)
	defer r.Close()
	b := readBuffers.Get().(*[]byte)
	defer readBuffers.Put(b)
	s.copyFrom(r, *b)
}

// readBuffers are the streams' read buffers, a pipe's capacity each: a campaign reads four
// streams a case, and making a buffer for each was 3% of the fuzzer's own CPU in a
// profile, besides the garbage it left the collector.
var readBuffers = sync.Pool{New: func() any {
	b := make([]byte, 64<<10)
	return &b
}}

// copyFrom copies what r gives into the stream, up to its limit, until r ends.
func (s *stream) copyFrom(r io.Reader, b []byte) {
	for {
		n, err := r.Read(b)
		s.mu.Lock()
		if n > 0 {
			s.total += int64(n)
			keep := min(n, s.limit-len(s.buf))
			s.buf = append(s.buf, b[:keep]...)
			s.cut = s.cut || keep < n
		}
		if err != nil {
			s.eof = true
		}
		s.mu.Unlock()
		select {
		case s.notify <- struct{}{}:
		default:
		}
		if err != nil {
			return
		}
	}
}

// wait waits until until(buf[from:]) reports a complete item (its length) or EOF or the
// deadline, and returns what it took.
func (s *stream) wait(from int, deadline <-chan time.Time, until func([]byte) int) (Awaited, int) {
	for {
		s.mu.Lock()
		rest := s.buf[min(from, len(s.buf)):]
		n := until(rest)
		eof := s.eof
		s.mu.Unlock()
		switch {
		case n > 0:
			return Awaited{Data: append([]byte(nil), rest[:n]...), End: Got}, from + n
		case eof:
			return Awaited{Data: append([]byte(nil), rest...), End: EOF}, from + len(rest)
		}
		select {
		case <-s.notify:
		case <-deadline:
			s.mu.Lock()
			rest = s.buf[min(from, len(s.buf)):]
			s.mu.Unlock()
			return Awaited{Data: append([]byte(nil), rest...), End: Timeout}, from + len(rest)
		}
	}
}

// read is the number of bytes read so far.
func (s *stream) read() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

func (s *stream) result() ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]byte(nil), s.buf...), s.cut
}

// Run starts prog with args and plays the script. After the script, the program's stdin is
// closed (if the script did not close it) and the program is given ExitTimeout to exit;
// then its process group is killed. The error is for a program that cannot be started.
func Run(prog string, args []string, script []Step, opt Options) (*Result, error) {
	opt = opt.withDefaults()
	start := time.Now()
	path, err := exec.LookPath(prog)
	if err == nil {
		path, err = filepath.Abs(path)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot start %s: %w", prog, err)
	}
	env := opt.Env
	if env == nil {
		env = sandbox.ProgramEnv()
	}
	cfg := sandbox.Config{Limits: opt.limits(), Identity: opt.Identity, Box: opt.Box}
	c, err := child.Start(child.Spec{Path: path, Args: args, Dir: opt.Dir, ErrPipe: true,
		Build: func(path string, args []string) *exec.Cmd { return sandbox.Command(cfg, env, path, args...) }})
	if err != nil {
		return nil, fmt.Errorf("cannot start %s: %w", prog, err)
	}
	// Over pipes the streams are files, whose reads and writes take deadlines.
	cmd := c.Cmd
	pid := cmd.Process.Pid
	r := &running{inW: c.In.(*os.File), outR: c.Out.(*os.File), errR: c.Err.(*os.File),
		exited: make(chan struct{})}
	var ws syscall.WaitStatus
	go func() {
		cmd.Wait()
		ws = cmd.ProcessState.Sys().(syscall.WaitStatus)
		close(r.exited)
	}()
	r.signal = func(sig syscall.Signal) { syscall.Kill(pid, sig) }
	// Kill whatever is left of the group (the program itself if it hung, and any child it
	// left behind).
	r.kill = func() { syscall.Kill(-pid, syscall.SIGKILL) }
	r.exit = func() Exit {
		if ws.Signaled() {
			return Exit{Signal: ws.Signal()}
		}
		return Exit{Code: ws.ExitStatus()}
	}
	res := r.play(script, opt)
	res.Duration = time.Since(start)
	if ps := cmd.ProcessState; ps != nil {
		res.CPU = ps.UserTime() + ps.SystemTime()
		if !res.Exit.Hung {
			res.Limit = limitkill.Of(res.Exit.Signal, res.Exit.Code, res.CPU, cfg.Limits.CPU)
		}
	}
	return res, nil
}

// Func is a program run in this process: it reads stdin, writes stdout and stderr, and
// returns its exit status (a reference player's in-process form).
type Func func(args []string, stdin io.Reader, stdout, stderr io.Writer) int

// RunFunc plays the script with f run in this process, over pipes, as Run plays it with a
// program: the same writes, waits and timeouts, and the same Result, but without a
// process start. It is for trusted code whose result as a process is a function of its
// input alone (the reference players): nothing bounds f (no limits, no box), and f cannot
// take a signal, so a script with a Signal step is refused. If f is still running at the
// end (Exit.Hung), its streams are closed under it and it is left to return; if it panics,
// it ends with status 2 and "panic: ..." on its stderr, as a Go program would (without the
// goroutine dump), and the caller goes on.
func RunFunc(f Func, args []string, script []Step, opt Options) (*Result, error) {
	for _, st := range script {
		if st.Kind == Signal {
			return nil, errors.New("a program run in process cannot take a signal")
		}
	}
	opt = opt.withDefaults()
	start := time.Now()
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		for _, f := range []*os.File{inR, inW, outR, outW} {
			f.Close()
		}
		return nil, err
	}
	r := &running{inW: inW, outR: outR, errR: errR, exited: make(chan struct{})}
	var status int
	go func() {
		// Its ends of the pipes close when it returns, as a process's do when it exits.
		defer close(r.exited)
		defer errW.Close()
		defer outW.Close()
		defer inR.Close()
		// A panic ends f as it ends a Go program: status 2, the panic on stderr (without
		// the goroutine dump), and not the whole process running it.
		defer func() {
			if v := recover(); v != nil {
				fmt.Fprintf(errW, "panic: %v\n", v)
				status = 2
			}
		}()
		status = f(args, inR, outW, errW)
	}()
	// A program that hung gets its stdin and stdout closed under it instead of SIGKILL, and
	// is not waited for past another ExitTimeout.
	r.kill = func() {
		inR.Close()
		outW.Close()
		errW.Close()
	}
	r.mayStay = true
	r.exit = func() Exit { return Exit{Code: status} }
	res := r.play(script, opt)
	res.Duration = time.Since(start)
	return res, nil
}

// running is a program under way, started by Run or RunFunc, for play to drive.
type running struct {
	inW        *os.File      // its stdin
	outR, errR *os.File      // its stdout and stderr
	exited     chan struct{} // closed once it ended and its streams' ends are closed
	signal     func(syscall.Signal)
	kill       func()      // makes whatever is left of it end, once the script is over
	exit       func() Exit // how it ended, once exited is closed
	mayStay    bool        // kill may not end it: wait for the end no longer than ExitTimeout
}

// play plays the script, then closes stdin, waits ExitTimeout for the end, kills what is
// left, and gathers the result.
func (r *running) play(script []Step, opt Options) *Result {
	out, errs := newStream(opt.OutputLimit), newStream(opt.OutputLimit)
	go out.loop(r.outR)
	go errs.loop(r.errR)
	res := &Result{}
	pos := 0 // stdout bytes taken by waits so far
	closed := false
	timedOut := false
	for _, st := range script {
		switch st.Kind {
		case Write:
			if closed {
				continue
			}
			r.inW.SetWriteDeadline(time.Now().Add(opt.StepTimeout))
			if _, err := r.inW.Write(st.Data); errors.Is(err, os.ErrDeadlineExceeded) {
				res.Blocked = true
			}
		case Close:
			if !closed {
				r.inW.Close()
				closed = true
			}
		case Signal:
			r.signal(st.Signal)
			select {
			case <-r.exited:
			case <-time.After(opt.SignalSettle):
			}
		case Sleep:
			time.Sleep(st.Delay)
		case Quiet:
			deadline := time.Now().Add(opt.StepTimeout)
			for {
				before := out.read() + errs.read()
				time.Sleep(st.Delay)
				if out.read()+errs.read() == before || time.Now().After(deadline) {
					break
				}
			}
		case AwaitLine, AwaitBytes:
			d := opt.StepTimeout
			if timedOut {
				d = opt.QuickTimeout
			}
			timer := time.NewTimer(d)
			until := lineEnd
			if st.Kind == AwaitBytes {
				n := st.N
				until = func(b []byte) int {
					if len(b) >= n {
						return n
					}
					return 0
				}
			}
			var a Awaited
			a, pos = out.wait(pos, timer.C, until)
			timer.Stop()
			timedOut = timedOut || a.End == Timeout
			res.Awaited = append(res.Awaited, a)
		}
	}
	if !closed {
		r.inW.Close()
	}
	select {
	case <-r.exited:
	case <-time.After(opt.ExitTimeout):
		res.Exit.Hung = true
	}
	r.kill()
	if r.mayStay && res.Exit.Hung {
		select {
		case <-r.exited:
		case <-time.After(opt.ExitTimeout):
		}
	} else {
		<-r.exited
	}
	if !res.Exit.Hung {
		res.Exit = r.exit()
	}
	// A descendant that left the group may still hold the pipes: do not wait for it long.
	grace := time.After(200 * time.Millisecond)
	for _, s := range []*stream{out, errs} {
		select {
		case <-s.done:
		case <-grace:
		}
	}
	r.outR.SetReadDeadline(time.Now())
	r.errR.SetReadDeadline(time.Now())
	res.Stdout, res.StdoutCut = out.result()
	res.Stderr, res.StderrCut = errs.result()
	return res
}

// lineEnd returns the length of the first line in b, '\n' included, or 0.
func lineEnd(b []byte) int {
	for i, c := range b {
		if c == '\n' {
			return i + 1
		}
	}
	return 0
}
