package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"gauntlet/execrole"
	"gauntlet/harness/child"
)

// A program that runs as the harness's own user, outside a box and a cgroup, needs nothing
// of the exec role but its limits, its niceness, no_new_privs and a clean signal mask, and
// those can be set from outside while the program is stopped at its exec (child.StartStopped,
// a trace that ends before the program's first instruction). So it starts directly: the
// role's start of the Go runtime (about 3 ms of CPU here, most of a trivial case) is gone
// from every such run (issue 15). This is how a grade or a fuzzing campaign that is not
// root runs every program. Everything else (a box, a sandbox user, a cgroup, a harness that
// ignores a signal, which only an exec from a process that resets it passes on as the
// default) still goes through the role.

var (
	// noTracing is set once a traced start was refused: every start after it uses the role.
	noTracing atomic.Bool
	// directStarts counts the programs started without the role (for the tests).
	directStarts atomic.Int64
)

// startsDirect says whether the program of settings s may start without the exec role.
func startsDirect(s execrole.Settings) bool {
	return s.Box == nil && s.UID < 0 && len(s.Cgroup) == 0 && !noTracing.Load() && !execrole.IgnoresASignal()
}

// errUseRole is startDirect's error when the program must be started through the role
// after all (tracing is refused here).
var errUseRole = errors.New("sandbox: start through the exec role")

// directCommand is the command that starts the program of s itself (argv[0] included in
// argv): leading a session of its own, killed if the harness dies. The caller sets the
// folder and the streams.
func directCommand(s execrole.Settings, env, argv []string) *exec.Cmd {
	return &exec.Cmd{Path: s.Path, Args: argv, Env: env,
		SysProcAttr: &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}}
}

// startDirect starts the program of s (startsDirect) from newCmd's command (directCommand
// with the folder and streams set, all of them files) and returns it with the peak RSS it
// starts with: the harness's, which the exec of a program forked with CLONE_VM folds into
// the program's. A start the kernel refuses for a moment because the file is open for
// writing (ETXTBSY) is retried with a fresh command, as the role retries its exec. The
// reasons it gives for a program that cannot start are worded as the role words them.
func startDirect(s execrole.Settings, newCmd func() *exec.Cmd) (*exec.Cmd, int64, error) {
	// Opened first, as the role does: a file the harness cannot read is refused alike.
	fd, err := syscall.Open(s.Path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, 0, fmt.Errorf("open %s: %w", s.Path, err)
	}
	syscall.Close(fd)
	s = s.WithUserTasks(os.Getuid())
	limits := s.Limits()
	atExec := func(pid int) error {
		for _, l := range limits {
			var old unix.Rlimit
			known := unix.Prlimit(pid, l.Resource, nil, &old) == nil
			lim := l.Within(syscall.Rlimit{Cur: old.Cur, Max: old.Max}, known)
			if err := unix.Prlimit(pid, l.Resource, &unix.Rlimit{Cur: lim.Cur, Max: lim.Max}, nil); err != nil {
				return fmt.Errorf("setrlimit %s: %w", l.Name, err)
			}
		}
		if s.Nice > 0 {
			if err := syscall.Setpriority(syscall.PRIO_PROCESS, pid, s.Nice); err != nil {
				return fmt.Errorf("setpriority: %w", err)
			}
		}
		return nil
	}
	for tries := 0; ; tries++ {
		rss := ownPeakRSS()
		cmd := newCmd()
		err := child.StartStopped(cmd, atExec)
		var pe *fs.PathError
		switch {
		case err == nil:
			directStarts.Add(1)
			return cmd, rss, nil
		case errors.Is(err, child.ErrNoTracing):
			noTracing.Store(true)
			return nil, 0, errUseRole
		case errors.As(err, &pe) && errors.Is(pe.Err, syscall.ETXTBSY) && tries < execrole.TextBusyRetries:
			time.Sleep(time.Millisecond)
		case errors.As(err, &pe):
			return nil, 0, fmt.Errorf("exec %s: %w", s.Path, pe.Err)
		default:
			return nil, 0, err
		}
	}
}

// ownPeakRSS is the harness's peak resident set in bytes.
func ownPeakRSS() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Maxrss << 10
}
