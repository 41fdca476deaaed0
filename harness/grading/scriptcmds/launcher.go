package scriptcmds

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"gauntlet/harness/box/sandbox"
	"gauntlet/harness/judges/mockplayer"
)

// launcher is the box of a script's witnessed mock players: a mock player program run as
// their launcher (mockplayer.Launch) in a judge's box of its own, which runs each of them
// there, a goroutine of its process, when the witness asks. One box a script, made with
// its first mock player: its making (a PID namespace's init, the box's mounts) is a run's
// largest cost, and a St Lucia case has five mock players a hub.
type launcher struct {
	run  *sandbox.Group
	conn int // the witness's end of the socket (sequenced packets)

	sendMu  sync.Mutex
	closed  bool // conn is closed (stop): held with sendMu
	mu      sync.Mutex
	next    int
	waiting map[int]*launch
	gone    chan struct{} // closed once the launcher's replies have ended
}

// launch is one mock player asked of the launcher: its start's reply, then its end.
type launch struct {
	id      int
	started chan launchStart // one value
	ended   chan [2]int      // one value: its exit status and the signal that killed it
}

// launchStart is a start's reply: nil, or why the mock player did not start.
type launchStart struct {
	err error
}

// startLauncher starts the launcher of the mock player program mock under cfg.
func startLauncher(cfg sandbox.Config, mock string) (*launcher, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	theirs := os.NewFile(uintptr(fds[1]), "the launcher's socket")
	defer theirs.Close()
	run, err := sandbox.Start(cfg, sandbox.Spec{Name: "mock players' launcher", Path: mock, Args: []string{"-launch", "3"},
		Stdout: sandbox.Null, Stderr: sandbox.Null, ExtraFiles: []*os.File{theirs}})
	if err != nil {
		syscall.Close(fds[0])
		return nil, err
	}
	l := &launcher{run: run, conn: fds[0], waiting: map[int]*launch{}, gone: make(chan struct{})}
	go l.read()
	return l, nil
}

// read takes the launcher's replies until it ends (or stop), and hands each to its launch;
// the launches still waiting then see gone.
func (l *launcher) read() {
	defer close(l.gone)
	buf := make([]byte, 4096)
	oob := make([]byte, syscall.CmsgSpace(4))
	for {
		n, oobn, _, _, err := syscall.Recvmsg(l.conn, buf, oob, syscall.MSG_CMSG_CLOEXEC)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n == 0 {
			return
		}
		var fds []int
		if msgs, err := syscall.ParseSocketControlMessage(oob[:oobn]); err == nil {
			for _, m := range msgs {
				if got, err := syscall.ParseUnixRights(&m); err == nil {
					fds = append(fds, got...)
				}
			}
		}
		l.deliver(string(buf[:n]), fds)
	}
}

// deliver hands the reply msg (with the descriptors that came with it) to its launch.
func (l *launcher) deliver(msg string, fds []int) {
	f := strings.Fields(msg)
	id := -1
	if len(f) >= 2 {
		id, _ = strconv.Atoi(f[1])
	}
	l.mu.Lock()
	w := l.waiting[id]
	if w != nil && len(f) > 0 && (f[0] == "ended" || f[0] == "failed") {
		delete(l.waiting, id)
	}
	l.mu.Unlock()
	if w == nil {
		for _, fd := range fds {
			syscall.Close(fd)
		}
		return
	}
	switch {
	case len(f) == 2 && f[0] == "started":
		w.started <- launchStart{}
	case len(f) >= 2 && f[0] == "failed":
		w.started <- launchStart{err: errors.New(strings.Join(f[2:], " "))}
	case len(f) == 4 && f[0] == "ended":
		code, _ := strconv.Atoi(f[2])
		sig, _ := strconv.Atoi(f[3])
		w.ended <- [2]int{code, sig}
	}
	for _, fd := range fds {
		syscall.Close(fd)
	}
}

// start asks the launcher for the mock player with args in dir and the environment env,
// on the descriptors given (files[i] at number at[i]), and returns its launch.
func (l *launcher) start(args []string, dir string, env []string, at []int, files []*os.File) (*launch, error) {
	l.mu.Lock()
	l.next++
	id := l.next
	w := &launch{id: id, started: make(chan launchStart, 1), ended: make(chan [2]int, 1)}
	l.waiting[id] = w
	l.mu.Unlock()
	err := l.send(mockplayer.LaunchRequest{ID: id, Args: args, Dir: dir, Env: env, FDs: at}, files)
	if err != nil {
		l.mu.Lock()
		delete(l.waiting, id)
		l.mu.Unlock()
		return nil, fmt.Errorf("the mock players' launcher: %w", err)
	}
	return w, nil
}

// send sends the launcher request req with the descriptors files.
func (l *launcher) send(req mockplayer.LaunchRequest, files []*os.File) error {
	l.sendMu.Lock()
	defer l.sendMu.Unlock()
	if l.closed {
		return errors.New("closed")
	}
	return mockplayer.SendLaunchRequest(l.conn, req, files)
}

// kill asks the launcher to end mock player id now (a death by SIGKILL, its end told as
// any other): nothing once it has ended, or once the launcher has.
func (l *launcher) kill(id int) { l.send(mockplayer.LaunchRequest{ID: id, Stop: true}, nil) }

// pid is the launcher's process, where the mock players run (0 once it has ended).
func (l *launcher) pid() int {
	if procs := l.run.Procs(); len(procs) > 0 {
		return procs[0].Pid()
	}
	return 0
}

// stop ends the launcher and everything it started (its box).
func (l *launcher) stop() {
	syscall.Shutdown(l.conn, syscall.SHUT_RDWR)
	l.run.Stop()
	<-l.gone
	// Closed under the sender's lock: a start after this must not write to whatever
	// file then takes the descriptor's number.
	l.sendMu.Lock()
	l.closed = true
	syscall.Close(l.conn)
	l.sendMu.Unlock()
}
