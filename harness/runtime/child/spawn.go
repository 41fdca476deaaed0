package child

import (
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A spawner is a goroutine that programs gauntlet starts with a parent-death signal are
// forked from (all the sandbox starts, and every start as another user), locked to its
// own OS thread for the life of the process. A parent-death signal (Pdeathsig) fires when
// the thread that forked the program ends, not the process: forked from a thread that
// never ends, a program gets it only when the harness itself dies. Forking from any other
// goroutine would risk a thread the runtime retires (one left locked, as a namespace switch
// leaves it) and a program killed for no reason in the middle of a case.
//
// There are two kinds: plain, for StartCmd, and a Tracer's, for StartStopped, whose thread
// traces the programs it starts through their exec and has no_new_privs set.
type spawner struct {
	once  sync.Once
	reqs  chan spawnReq
	setup func() error // run once on the thread before its first start
	err   error        // setup's error, or why the thread is no longer fit: every start fails with it
	unfit atomic.Bool  // set with err when the thread could not be restored (ErrUnfit)
}

type spawnReq struct {
	cmd     *exec.Cmd
	atExec  func(pid int) error // StartStopped's, or nil
	prepare Prepare             // StartStopped's, or nil
	reply   chan error
}

// Prepare sets up the spawner's thread for one start (namespaces of its own, see
// StartStopped) and returns how to undo it, which runs right after the fork, whether the
// start succeeded or not.
type Prepare func() (undo func() error, err error)

var plain spawner

// A Tracer starts programs stopped at their exec (StartStopped), from a spawner whose
// thread has no_new_privs and what confine gives it (the sandbox's: the exec role's keyring
// filter, execrole.DenyKeyrings), which the programs it starts inherit, as the exec role
// would give them before their exec. The confinement comes from the caller so that this
// package, which every reference hub links, links no exec role.
type Tracer struct {
	confine func() error // nil: no_new_privs alone
	mu      sync.Mutex
	s       *spawner // replaced when its thread is no longer fit (see StartStopped)
}

// NewTracer returns a Tracer whose thread is confined by confine (nil: no_new_privs
// alone) before its first start.
func NewTracer(confine func() error) *Tracer { return &Tracer{confine: confine} }

// spawner returns the tracer's spawner, a new one when it has none.
func (t *Tracer) spawner() *spawner {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.s == nil {
		t.s = &spawner{setup: func() error {
			if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, unix.PR_SET_NO_NEW_PRIVS, 1, 0); e != 0 {
				return fmt.Errorf("no_new_privs: %w", e)
			}
			if t.confine != nil {
				if err := t.confine(); err != nil {
					return fmt.Errorf("confining the tracer's thread: %w", err)
				}
			}
			return nil
		}}
	}
	return t.s
}

// ErrUnfit is a start's error when the spawner's thread could not be put back as it was
// after a start: it starts nothing more (its programs keep it alive for their parent-death
// signal), and the next start gets a new one.
var ErrUnfit = errors.New("child: the spawner's thread could not be restored")

func (s *spawner) start(req spawnReq) error {
	s.once.Do(func() {
		s.reqs = make(chan spawnReq)
		ready := make(chan struct{})
		go func() {
			runtime.LockOSThread() // never unlocked: the thread lives as long as the harness
			if s.setup != nil {
				s.err = s.setup()
			}
			close(ready)
			for req := range s.reqs {
				if s.err != nil {
					req.reply <- s.err
					continue
				}
				if req.atExec == nil {
					req.reply <- req.cmd.Start()
					continue
				}
				req.reply <- s.startStopped(req)
			}
		}()
		<-ready
	})
	req.reply = make(chan error, 1)
	s.reqs <- req
	return <-req.reply
}

// StartCmd starts cmd from the spawner. It is exec.Cmd.Start for every program the harness
// starts, the sandbox's included (harness/box/sandbox): a caller that wires the program's
// streams itself makes the command (Command, or sandbox.Command), starts it here and waits
// for it with cmd.Wait (or cmd.Process.Wait when its streams are all files).
//
// A command without a parent-death signal starts from the caller's own thread: nothing of
// the thread is then inherited that matters, and a reference hub starting its players
// saves a hand-off between threads for each.
func StartCmd(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil || cmd.SysProcAttr.Pdeathsig == 0 {
		return cmd.Start()
	}
	return plain.start(spawnReq{cmd: cmd})
}

// StartStopped starts cmd, which must have a parent-death signal, with the program stopped
// at its exec, before its first instruction: atExec then runs with its pid, on the thread
// that started it (its tracer: SysProcAttr.Ptrace, which StartStopped sets), and the program
// goes on once atExec returns nil, with an empty signal mask. What atExec sets by the pid
// (resource limits, niceness, a cgroup) is in force before the program runs, without a
// step of the harness's own between fork and exec. The program also runs with
// no_new_privs and the Tracer's confinement, which it inherits from the thread. If atExec
// fails, or the program ends before it runs, it is killed and reaped (its streams must all
// be files: nothing calls cmd.Wait) and the error returned. An error that is ErrNoTracing may mean that this
// machine lets no program be traced (a seccomp filter, Yama): start it another way.
//
// prepare, when not nil, runs on that thread just before the fork, to give the program
// what the thread then has (namespaces of its own, made and set up there); its undo runs
// right after the fork. If undo fails, the thread is retired (ErrUnfit) and a new one
// serves the next start; so does an atExec whose error is ErrUnfit (it changed the thread
// and could not change it back).
func (t *Tracer) StartStopped(cmd *exec.Cmd, prepare Prepare, atExec func(pid int) error) error {
	if cmd.SysProcAttr == nil || cmd.SysProcAttr.Pdeathsig == 0 {
		return errors.New("child: StartStopped needs a parent-death signal")
	}
	for tries := 0; ; tries++ {
		s := t.spawner()
		err := s.start(spawnReq{cmd: cmd, atExec: atExec, prepare: prepare})
		if s.unfit.Load() {
			t.mu.Lock()
			if t.s == s {
				t.s = nil
			}
			t.mu.Unlock()
		}
		// A start that reached a thread found unfit before it is tried once more.
		if !errors.Is(err, ErrUnfit) || tries > 0 {
			return err
		}
	}
}

// ErrNoTracing is StartStopped's error when the program could not ask to be traced.
var ErrNoTracing = errors.New("child: programs cannot be traced here")

// retire marks the spawner's thread unfit: it starts nothing more, and stays (its programs'
// parent-death signal is tied to it).
func (s *spawner) retire(why error) {
	s.err = fmt.Errorf("%w: %v", ErrUnfit, why)
	s.unfit.Store(true)
}

// startStopped is StartStopped on the tracer's thread. A thread it cannot restore after a
// prepared start is marked unfit (s.err).
func (s *spawner) startStopped(req spawnReq) error {
	cmd, atExec := req.cmd, req.atExec
	attr := *cmd.SysProcAttr
	attr.Ptrace = true
	cmd.SysProcAttr = &attr
	var undo func() error
	if req.prepare != nil {
		var err error
		undo, err = req.prepare()
		if err != nil {
			if undo != nil {
				if uerr := undo(); uerr != nil {
					s.retire(uerr)
				}
			}
			return err
		}
	}
	err := cmd.Start()
	if undo != nil {
		if uerr := undo(); uerr != nil {
			s.retire(uerr)
		}
	}
	if err != nil {
		if errors.Is(err, syscall.EPERM) {
			// PTRACE_TRACEME was refused, or the exec itself: the caller can try without
			// tracing, which tells the two apart.
			return fmt.Errorf("%w (%v)", ErrNoTracing, err)
		}
		return err
	}
	pid := cmd.Process.Pid
	fail := func(err error) error {
		syscall.Kill(pid, syscall.SIGKILL)
		syscall.PtraceDetach(pid)
		cmd.Process.Wait()
		return err
	}
	// The exec is done (Start read the close-on-exec pipe's end): the program stops with
	// SIGTRAP before its first instruction. A signal sent to it before is reported first;
	// it is passed on.
	for tries := 0; ; tries++ {
		var ws syscall.WaitStatus
		_, err := syscall.Wait4(pid, &ws, syscall.WALL, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return fail(fmt.Errorf("wait for the program's exec: %w", err))
		}
		if !ws.Stopped() {
			// Reaped here: killed before it ran (the harness died, or a signal).
			cmd.Process.Release()
			return fmt.Errorf("the program ended before it ran (%v)", ws)
		}
		if ws.StopSignal() == syscall.SIGTRAP {
			break
		}
		if tries > 16 {
			return fail(errors.New("the program did not stop at its exec"))
		}
		if err := syscall.PtraceCont(pid, int(ws.StopSignal())); err != nil {
			return fail(fmt.Errorf("let a signal through to the program: %w", err))
		}
	}
	if err := atExec(pid); err != nil {
		if errors.Is(err, ErrUnfit) {
			s.retire(err)
		}
		return fail(err)
	}
	// The harness's own threads may block signals the program must meet (SIGINT, SIGHUP).
	var none uint64
	if _, _, e := syscall.Syscall6(syscall.SYS_PTRACE, unix.PTRACE_SETSIGMASK, uintptr(pid), 8, uintptr(unsafe.Pointer(&none)), 0, 0); e != 0 {
		return fail(fmt.Errorf("empty the program's signal mask: %w", e))
	}
	if err := syscall.PtraceDetach(pid); err != nil {
		return fail(fmt.Errorf("let the program run: %w", err))
	}
	return nil
}

// Run starts cmd from the spawner and waits for it, as exec.Cmd.Run does.
func Run(cmd *exec.Cmd) error {
	if err := StartCmd(cmd); err != nil {
		return err
	}
	return cmd.Wait()
}
