package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"gauntlet/execrole"
	"gauntlet/harness/runtime/child"
)

// Most of what the exec role does for a program can be done from outside while the program
// is stopped at its exec (a child.Tracer's StartStopped, a trace that ends before the
// program's first instruction): its limits, its niceness, its cgroups, an empty signal mask. And the rest
// can be given to it by the thread it is forked from: no_new_privs (that thread has it), the
// user (the fork's SysProcAttr.Credential) and the box (namespaces made on that thread just
// before the fork, and left right after it). So a program starts directly: the role's
// start of the Go runtime (about 3 ms of CPU here, most of a trivial case) is gone from
// every such start, the harness's own programs (the reference and mock programs) included.
// As a sandbox user they start without the address-space limit, as in a box: they read
// bounded lines (lineio.MaxLine), and the case's cgroup holds their memory (without
// either, with every limit). A program
// still starts through the role when the harness ignores a signal (only an exec from a
// process that resets it passes on the default action) or once tracing is refused here; so
// does a boxed program whose start fails (the role then says why, in its words), and a
// sandbox user's program whose limits only that user could set while it may not be alone
// (actas.go).

var (
	// tracer starts the programs started directly: its thread has no_new_privs and the
	// exec role's keyring filter, which they inherit, as the role would give them.
	tracer = child.NewTracer(execrole.DenyKeyrings)
	// noTracing is set once a traced start was refused: every start after it uses the role.
	noTracing atomic.Bool
	// directStarts counts the programs started without the role (for the tests).
	directStarts atomic.Int64
)

// startsDirect says whether the program of settings s may start without the exec role.
func startsDirect(s execrole.Settings) bool {
	if noTracing.Load() || execrole.IgnoresASignal() {
		return false
	}
	if s.Box == nil && s.UID < 0 {
		return true
	}
	// A box has a PID namespace, whose init is the role's (execrole's pidns.go). A user
	// needs root, as the role does.
	return s.Box == nil && os.Geteuid() == 0 && s.UID > 0
}

// errUseRole is startDirect's error when the program must be started through the role
// after all.
var errUseRole = errors.New("sandbox: start through the exec role")

// directCommand is the command that starts the program of s itself (argv[0] included in
// argv): leading a session of its own, as the sandbox user of s if any, killed if the
// harness dies. The caller sets the folder and the streams.
func directCommand(s execrole.Settings, env, argv []string) *exec.Cmd {
	attr := &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	if s.UID >= 0 {
		attr.Credential = &syscall.Credential{Uid: uint32(s.UID), Gid: uint32(s.GID), Groups: []uint32{}}
	}
	return &exec.Cmd{Path: s.Path, Args: argv, Env: env, SysProcAttr: attr}
}

// startDirect starts the program of s (startsDirect) from newCmd's command (directCommand
// with the folder and streams set, all of them files); alone says that no process of the
// program's user can be alive until it has started (see actas.go). It returns the program
// with the peak RSS it starts with (at most): the harness's, which the exec of a program
// forked with CLONE_VM folds into the program's. A start the kernel refuses for a moment
// because the file is open for writing (ETXTBSY) is retried with a fresh command, as the
// role retries its exec. The reasons it gives for a program that cannot start are worded
// as the role words them; a boxed program that cannot start, and one whose limits only
// its user could set while it may not be alone, get errUseRole: the role starts them.
func startDirect(s execrole.Settings, dir string, alone bool, newCmd func() *exec.Cmd) (*exec.Cmd, int64, error) {
	if !filepath.IsAbs(dir) {
		// The spawner's thread has a folder of its own, not the harness's.
		return nil, 0, errUseRole
	}
	// Another user's limits: as root with CAP_SYS_RESOURCE, else as that user, which only
	// a program that starts alone may risk (see actas.go).
	actAsUser := s.UID >= 0 && os.Geteuid() == 0 && !canSetOthersLimits()
	if actAsUser && !alone {
		return nil, 0, errUseRole
	}
	// Opened first, as the role does: a file the harness cannot read is refused alike.
	// Not blocking: a FIFO in the program's place would hold the start forever.
	fd, err := syscall.Open(s.Path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, fmt.Errorf("open %s: %w", s.Path, err)
	}
	syscall.Close(fd)
	s = s.WithUserTasks(os.Getuid())
	limits := s.Limits()
	if (s.Box != nil || s.UID >= 0) && execrole.IsHarnessBinary(s.Path, s.Self) {
		// As in the role's process, where such a start used to go on (see above).
		limits = slices.DeleteFunc(limits, func(l execrole.Limit) bool { return l.Resource == unix.RLIMIT_AS })
	}
	atExec := func(pid int) (retErr error) {
		for _, procs := range s.Cgroup {
			if err := execrole.JoinCgroupByPid(procs, pid); err != nil {
				return fmt.Errorf("cgroup: join %s: %w", procs, err)
			}
		}
		if actAsUser {
			// The program's own user may lower its limits: this thread becomes that user
			// for a moment (credentials are a thread's in Linux).
			back, err := actAs(s.UID, s.GID)
			if err != nil {
				return err
			}
			defer func() {
				if err := back(); err != nil {
					retErr = fmt.Errorf("%w: %v", child.ErrUnfit, err)
				}
			}()
		}
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
	var prepare child.Prepare
	if s.UID >= 0 {
		// The folder is entered by the thread, as root, before any mount of the box: as in
		// the role, the program works in it even where the box covers its path, and the
		// sandbox user need not reach it through the folders above.
		prepare = func() (func() error, error) { return enterBoxHere(s.Box, dir) }
	}
	for tries := 0; ; tries++ {
		cmd := newCmd()
		cmd.Dir = dir
		if prepare != nil {
			cmd.Dir = "" // the thread's, inherited
		}
		err := tracer.StartStopped(cmd, prepare, atExec)
		var pe *fs.PathError
		switch {
		case err == nil:
			directStarts.Add(1)
			// Read once the program has exec'd: the peak it folded in is the harness's at
			// that moment, which a read before the fork could miss (the harness grows
			// meanwhile, in its other goroutines), and the harness's peak only grows.
			return cmd, execrole.PeakRSS(), nil
		case errors.Is(err, child.ErrNoTracing):
			noTracing.Store(true)
			return nil, 0, errUseRole
		case errors.As(err, &pe) && errors.Is(pe.Err, syscall.ETXTBSY) && tries < execrole.TextBusyRetries:
			time.Sleep(time.Millisecond)
		case s.Box != nil || s.UID >= 0:
			// The box, the user or the folder: the role, which opens the program before it
			// drops to the user and execs it by that descriptor, may still start it, or
			// say why not.
			return nil, 0, errUseRole
		case errors.As(err, &pe):
			return nil, 0, fmt.Errorf("exec %s: %w", s.Path, pe.Err)
		default:
			return nil, 0, err
		}
	}
}

// enterBoxHere gives the calling thread (the tracing spawner's, locked) a working folder,
// dir, and namespaces of its own, and makes box b in them (no box when b is nil), as the
// role does in its process: the program forked next from this thread starts there. It
// returns how to take the thread back to the namespaces it had, which undoes everything
// when the box could not be made too.
func enterBoxHere(b *execrole.Box, dir string) (undo func() error, err error) {
	if b == nil {
		if err := unix.Unshare(unix.CLONE_FS); err != nil {
			return nil, err
		}
		return nil, unix.Chdir(dir)
	}
	kinds := []struct {
		name string
		flag int
	}{{"mnt", unix.CLONE_NEWNS}, {"ipc", unix.CLONE_NEWIPC}, {"uts", unix.CLONE_NEWUTS}, {"net", unix.CLONE_NEWNET}}
	var held []int
	for _, k := range kinds {
		fd, err := unix.Open("/proc/thread-self/ns/"+k.name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			for _, fd := range held {
				unix.Close(fd)
			}
			return nil, fmt.Errorf("box: %w", err)
		}
		held = append(held, fd)
	}
	undo = func() error {
		var errs []error
		// The mount namespace last: the others' files are found through it.
		for i := len(kinds) - 1; i >= 0; i-- {
			if err := unix.Setns(held[i], kinds[i].flag); err != nil {
				errs = append(errs, fmt.Errorf("back to the harness's %s namespace: %w", kinds[i].name, err))
			}
			unix.Close(held[i])
		}
		return errors.Join(errs...)
	}
	// A mount namespace of the thread's own needs a root and working folder of its own.
	flags := unix.CLONE_FS | unix.CLONE_NEWNS | unix.CLONE_NEWIPC | unix.CLONE_NEWUTS
	if b.Net == "" {
		flags |= unix.CLONE_NEWNET
	}
	if err := unix.Unshare(flags); err != nil {
		return undo, fmt.Errorf("box: %w", err)
	}
	if err := unix.Chdir(dir); err != nil {
		return undo, err
	}
	if b.Net != "" {
		if err := execrole.JoinNet(b.Net); err != nil {
			return undo, fmt.Errorf("box: join the network %s: %w", b.Net, err)
		}
	}
	if err := execrole.EnterBox(b); err != nil {
		return undo, fmt.Errorf("box: %w", err)
	}
	return undo, nil
}

// actAs makes the calling thread (locked) user uid and group gid, with root kept as its
// saved user, and returns how to make it root again. Only raw system calls touch a single
// thread: the syscall package's change every thread of the process.
func actAs(uid, gid int) (back func() error, err error) {
	var rg, eg, sg int
	if _, _, e := syscall.RawSyscall(unix.SYS_GETRESGID, uintptr(unsafe.Pointer(&rg)), uintptr(unsafe.Pointer(&eg)), uintptr(unsafe.Pointer(&sg))); e != 0 {
		return nil, e
	}
	if _, _, e := syscall.RawSyscall(unix.SYS_SETRESGID, uintptr(gid), uintptr(gid), uintptr(sg)); e != 0 {
		return nil, fmt.Errorf("act as group %d: %w", gid, e)
	}
	if _, _, e := syscall.RawSyscall(unix.SYS_SETRESUID, uintptr(uid), uintptr(uid), 0); e != 0 {
		syscall.RawSyscall(unix.SYS_SETRESGID, uintptr(rg), uintptr(eg), uintptr(sg))
		return nil, fmt.Errorf("act as user %d: %w", uid, e)
	}
	return func() error {
		if _, _, e := syscall.RawSyscall(unix.SYS_SETRESUID, 0, 0, 0); e != 0 {
			return fmt.Errorf("back to root: %w", e)
		}
		if _, _, e := syscall.RawSyscall(unix.SYS_SETRESGID, uintptr(rg), uintptr(eg), uintptr(sg)); e != 0 {
			return fmt.Errorf("back to group %d: %w", rg, e)
		}
		return nil
	}, nil
}
