// Package child is how gauntlet starts a program. Every start goes through StartCmd: from
// one thread kept for it when the program has a parent-death signal (see spawn.go). Start
// also wires a program the harness talks to: a reference hub's players (harness/runtime/hubrt), the
// program a mock hub judges and the server the mock clients judge (harness/judges/mockhub,
// judges/cluejudges), the mock player's relay (harness/judges/mockplayer) and the fuzzer's
// recorder (fuzz/record). A program run to its end and audited (a script's run command, a
// grade's case: harness/box/sandbox.Group), a judge the fuzzer runs (fuzz/judgerun) and
// `gauntlet play`'s hub are made as commands and started with StartCmd or Run. The program
// talks over its stdin and stdout (Pipes), or over a connection on the loopback: as the
// client of a port the harness listens on (Serve: it gets "127.0.0.1 PORT" before its
// arguments), or as a server that says "port N" as the first line of its stdout (Connect).
// Pause, Resume and Signal reach its process group when it has one. A sandboxed program
// (harness/box/sandbox) is started the same way, with Spec.Build making its command.
package child

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"gauntlet/harness/runtime/tcp"
)

// Wire is how the harness and the program exchange lines.
type Wire int

const (
	Pipes   Wire = iota // the program's stdin and stdout
	Serve               // the harness listens on the loopback; the program connects
	Connect             // the program listens and says "port N"; the harness connects
)

// Spec is a program to start.
type Spec struct {
	Path string
	Args []string
	Wire Wire
	// Timeout bounds, for Serve and Connect, the wait for the program to connect or to
	// say its port; past it the program reads as one that closed its side at once.
	Timeout time.Duration
	Dir     string
	Env     []string  // nil: the harness's
	Stderr  io.Writer // nil: the null device (with ErrPipe unset)
	ErrPipe bool      // the program's stderr comes back as Child.Err instead
	Group   bool      // the program leads a process group of its own
	// User, when set, runs the program as that user (no supplementary groups), killed when
	// the harness dies.
	User *syscall.Credential
	// Shell runs a file the kernel cannot execute (a script without "#!") with /bin/sh,
	// as execvp does.
	Shell bool
	// Build, when set, makes the command instead of exec.Command (a sandboxed start).
	Build func(path string, args []string) *exec.Cmd
	// GroupEndsWithIt says that the program's process group ends with the program (a boxed
	// program: the kernel kills what is left of its PID namespace with it), so a waiter
	// may wait for the group's last process too (GroupGone).
	GroupEndsWithIt bool
}

// Child is a started program. Over Pipes, In, Out and Err are *os.File (they take
// deadlines).
type Child struct {
	Cmd *exec.Cmd
	// In is what the harness writes to the program: its stdin, or the harness's side of
	// the connection (writes then wait for it, and fail if it never comes); closing it
	// ends the harness's side.
	In io.WriteCloser
	// Out is what the program writes: its stdout, or the connection (end of file at once
	// when it never comes).
	Out io.ReadCloser
	Err io.ReadCloser // the program's stderr, with Spec.ErrPipe
}

// Command makes the command of s without starting it, for a caller that wires the
// program's streams itself.
func Command(s Spec) *exec.Cmd {
	var cmd *exec.Cmd
	if s.Build != nil {
		cmd = s.Build(s.Path, s.Args)
	} else {
		cmd = exec.Command(s.Path, s.Args...)
	}
	if s.Group || s.User != nil {
		if cmd.SysProcAttr == nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{}
		}
		cmd.SysProcAttr.Setpgid = cmd.SysProcAttr.Setpgid || s.Group && !cmd.SysProcAttr.Setsid
		if s.User != nil {
			cmd.SysProcAttr.Credential = s.User
			cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
		}
	}
	if s.Dir != "" {
		cmd.Dir = s.Dir
	}
	if s.Env != nil {
		cmd.Env = s.Env
	}
	cmd.Stderr = s.Stderr
	return cmd
}

// Start starts the program of s.
func Start(s Spec) (*Child, error) {
	switch s.Wire {
	case Serve:
		return startServed(s)
	case Connect:
		return startConnected(s)
	}
	return startPiped(s)
}

// pipes makes n pipes, or none.
func pipes(n int) (r, w []*os.File, err error) {
	for range n {
		pr, pw, err := os.Pipe()
		if err != nil {
			closeAll(r, w)
			return nil, nil, err
		}
		r, w = append(r, pr), append(w, pw)
	}
	return r, w, nil
}

func closeAll(lists ...[]*os.File) {
	for _, l := range lists {
		for _, f := range l {
			f.Close()
		}
	}
}

// run starts cmd with its stdin and stdout (and stderr) the given files, and returns the
// command that runs: with Shell, a file the kernel cannot execute is run by /bin/sh.
func run(cmd *exec.Cmd, s Spec, stdin, stdout, stderr *os.File) (*exec.Cmd, error) {
	cmd.Stdin, cmd.Stdout = stdin, stdout
	if stderr != nil {
		cmd.Stderr = stderr
	}
	err := StartCmd(cmd)
	if s.Shell && errors.Is(err, syscall.ENOEXEC) {
		sh := exec.Command("/bin/sh", append([]string{cmd.Path}, s.Args...)...)
		sh.Stdin, sh.Stdout, sh.Stderr = cmd.Stdin, cmd.Stdout, cmd.Stderr
		sh.SysProcAttr, sh.Dir, sh.Env = cmd.SysProcAttr, cmd.Dir, cmd.Env
		cmd, err = sh, StartCmd(sh)
	}
	return cmd, err
}

func startPiped(s Spec) (*Child, error) {
	n := 2
	if s.ErrPipe {
		n = 3
	}
	r, w, err := pipes(n)
	if err != nil {
		return nil, err
	}
	var errW *os.File
	if s.ErrPipe {
		errW = w[2]
	}
	cmd, err := run(Command(s), s, r[0], w[1], errW)
	r[0].Close()
	closeAll(w[1:])
	if err != nil {
		w[0].Close()
		closeAll(r[1:])
		return nil, err
	}
	c := &Child{Cmd: cmd, In: w[0], Out: r[1]}
	if s.ErrPipe {
		c.Err = r[2]
	}
	return c, nil
}

// startServed starts a program that is a TCP client of the harness.
func startServed(s Spec) (*Child, error) {
	ln, err := tcp.Listen("127.0.0.1", 0)
	if err != nil {
		return nil, fmt.Errorf("cannot listen for the program: %w", err)
	}
	s.Args = append([]string{"127.0.0.1", strconv.Itoa(ln.Port)}, s.Args...)
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		ln.Close()
		return nil, err
	}
	defer devnull.Close()
	cmd, err := run(Command(s), s, devnull, devnull, nil)
	if err != nil {
		ln.Close()
		return nil, err
	}
	return overConnection(cmd, func() (*os.File, error) {
		defer ln.Close()
		return ln.Accept(time.Now().Add(s.Timeout))
	}), nil
}

// startConnected starts a program that is a TCP server the harness connects to.
func startConnected(s Spec) (*Child, error) {
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer devnull.Close()
	r, w, err := pipes(1)
	if err != nil {
		return nil, err
	}
	outR, outW := r[0], w[0]
	cmd, err := run(Command(s), s, devnull, outW, nil)
	outW.Close()
	if err != nil {
		outR.Close()
		return nil, err
	}
	deadline := time.Now().Add(s.Timeout)
	return overConnection(cmd, func() (*os.File, error) {
		outR.SetReadDeadline(deadline)
		first, err := bufio.NewReader(outR).ReadString('\n')
		outR.SetReadDeadline(time.Time{})
		go func() { // the server's later output, until it ends
			io.Copy(io.Discard, outR)
			outR.Close()
		}()
		if err != nil || !strings.HasPrefix(first, "port ") {
			return nil, fmt.Errorf("no port line: %q", first)
		}
		port, err := tcp.ParsePort(strings.TrimSuffix(strings.TrimPrefix(first, "port "), "\n"))
		if err != nil {
			return nil, err
		}
		return tcp.Dial("127.0.0.1", port, time.Until(deadline))
	}), nil
}

// overConnection is the child of a started program that talks over the connection
// connect makes in the background.
func overConnection(cmd *exec.Cmd, connect func() (*os.File, error)) *Child {
	l := &lateConn{ready: make(chan struct{})}
	go func() {
		defer close(l.ready)
		if c, err := connect(); err == nil {
			l.c = c
		}
	}()
	return &Child{Cmd: cmd, In: l, Out: lateReader{l}}
}

// lateConn is a connection that may not exist yet: writes and reads wait for it; writes
// are lost and reads end at once if it never comes. Close ends the harness's side of the
// stream (the program reads end of file).
type lateConn struct {
	ready chan struct{}
	c     *os.File
}

func (l *lateConn) Write(b []byte) (int, error) {
	<-l.ready
	if l.c == nil {
		return 0, io.ErrClosedPipe
	}
	l.c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	return l.c.Write(b)
}

func (l *lateConn) Close() error {
	<-l.ready
	if l.c == nil {
		return nil
	}
	return tcp.CloseWrite(l.c)
}

// lateReader is the read side of a lateConn; closing it closes the connection.
type lateReader struct{ l *lateConn }

func (r lateReader) Read(b []byte) (int, error) {
	<-r.l.ready
	if r.l.c == nil {
		return 0, io.EOF
	}
	return r.l.c.Read(b)
}

func (r lateReader) Close() error {
	<-r.l.ready
	if r.l.c == nil {
		return nil
	}
	return r.l.c.Close()
}

// Signal sends sig to the program, to its whole process group when it leads one.
func (c *Child) Signal(sig syscall.Signal) error {
	if c.Cmd.Process == nil {
		return errors.New("child: not started")
	}
	pid := c.Cmd.Process.Pid
	if a := c.Cmd.SysProcAttr; a != nil && (a.Setpgid || a.Setsid) {
		if err := syscall.Kill(-pid, sig); err == nil {
			return nil
		}
	}
	return syscall.Kill(pid, sig)
}

// Pause stops the program (SIGSTOP) until Resume (SIGCONT).
func (c *Child) Pause() error { return c.Signal(syscall.SIGSTOP) }

// Resume lets a paused program go on.
func (c *Child) Resume() error { return c.Signal(syscall.SIGCONT) }

// GroupGone waits until no process of process group pgid is left, for at most timeout: the
// processes of a boxed program's PID namespace die with it, a moment after it (GroupEnds
// WithIt), and a caller that has reaped the program must not end before them. It reports
// whether the group is gone. Processes of the group that are this process's children
// (reparented to it as a subreaper, as the init of a program's PID namespace is when its
// supervisor dies) are reaped here: a zombie is still a member of its group until it is
// reaped, and nothing else waits for it (a stopped tournament waited out the whole timeout
// for each program). The caller must have reaped the program it started (cmd.Wait) first.
func GroupGone(pgid int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	pause := 100 * time.Microsecond
	for {
		for {
			var ws syscall.WaitStatus
			if pid, err := syscall.Wait4(-pgid, &ws, syscall.WNOHANG, nil); pid <= 0 || err != nil {
				break
			}
		}
		if err := syscall.Kill(-pgid, 0); err == syscall.ESRCH {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pause)
		pause = min(2*pause, 10*time.Millisecond)
	}
}
