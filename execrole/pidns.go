package execrole

import (
	"os"
	"runtime"
	"strings"
	"syscall"
	"unsafe"
)

// A box's PID namespace (since 2026-11-28). Every boxed program runs in a PID namespace of
// its own, whose processes see only each other: not the grader, not another case, and
// nothing is left of them once the namespace's first process (its init) ends, since the
// kernel then kills every process in it. A program must not be that init: the kernel
// shields an init from every signal it has no handler for, and the specs send hubs SIGINT
// and SIGHUP. So the init is the role's, and the program its child:
//
//   - PIDInit (a grade's runs, sandbox.Group): the harness clones the role into the new
//     namespace. The role makes the box, forks the role again for the program (which
//     sets the program's user and limits and execs it, as every role does), and stays the
//     init: it reaps every process of the namespace and writes the program's end (its
//     wait status and resource usage) on StatusFD, since its own end cannot tell it (an
//     init cannot die of most signals). It lives until the last process of the namespace
//     has ended, so the harness still finds the programs a run left running, and kills
//     them (the init with them) once it has judged them.
//   - PIDSupervise (a program that the caller waits for itself: sandbox.Command, for the
//     fuzzer and tournaments): the harness's child makes the namespace for its own child,
//     the init above, and ends as the program ended, by the same exit status or signal,
//     once it has ended the namespace: what the caller's wait sees is the program's end,
//     and nothing the program started outlives it.
//
// Signals the harness sends to the run's process group reach the program with their
// default actions; the init, with no handler for them, is left alone by the kernel; a
// supervisor ignores them. SIGKILL and SIGSTOP reach all of them.
const (
	PIDNone      = 0
	PIDInit      = 1
	PIDSupervise = 2
)

// StatusSize is the size of the record an init writes on StatusFD: the program's wait
// status (4 bytes, little-endian), then its struct rusage as the kernel gave it.
const StatusSize = 4 + int(unsafe.Sizeof(syscall.Rusage{}))

// ParseStatus reads the record an init wrote (StatusSize bytes); ok is false for anything
// else (the init died before the program ended).
func ParseStatus(b []byte) (ws syscall.WaitStatus, ru syscall.Rusage, ok bool) {
	if len(b) != StatusSize {
		return 0, ru, false
	}
	ws = syscall.WaitStatus(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24)
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&ru)), unsafe.Sizeof(ru)), b[4:])
	return ws, ru, true
}

// statusRecord is the record ParseStatus reads.
func statusRecord(ws syscall.WaitStatus, ru *syscall.Rusage) []byte {
	b := make([]byte, StatusSize)
	b[0], b[1], b[2], b[3] = byte(ws), byte(ws>>8), byte(ws>>16), byte(ws>>24)
	copy(b[4:], unsafe.Slice((*byte)(unsafe.Pointer(ru)), unsafe.Sizeof(*ru)))
	return b
}

// synchronous are the signals the Go runtime needs its own handlers for in a process that
// runs Go code (faults); every other one an init leaves at its default action.
func synchronous(sig int) bool {
	switch syscall.Signal(sig) {
	case syscall.SIGSEGV, syscall.SIGBUS, syscall.SIGFPE, syscall.SIGILL, syscall.SIGTRAP, syscall.SIGSYS:
		return true
	}
	return false
}

// setAction sets the action of every catchable signal that keep does not name to handler
// (0: SIG_DFL, 1: SIG_IGN), process-wide.
func setAction(handler uintptr, keep func(sig int) bool) {
	for sig := 1; sig <= 64; sig++ {
		if sig == int(syscall.SIGKILL) || sig == int(syscall.SIGSTOP) || keep(sig) {
			continue
		}
		act := kernelSigaction{handler: handler}
		syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&act)), 0, 8, 0, 0)
	}
}

// passedFDs lists, as ProcAttr.Files does, the descriptors a child of the role gets: the
// role's own that are open and not close-on-exec (what the harness passed: the standard
// streams and the run's extra files), keep (the error pipe, which the role marked
// close-on-exec) and not drop (the status pipe).
func passedFDs(keep, drop int) []uintptr {
	var files []uintptr
	last := 2
	for fd := 0; fd < 256; fd++ {
		flags, _, e := syscall.RawSyscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
		pass := fd == keep || e == 0 && flags&syscall.FD_CLOEXEC == 0 && fd != drop
		if pass {
			files = append(files, uintptr(fd))
			last = fd
		} else {
			files = append(files, ^uintptr(0)) // closed in the child
		}
	}
	return files[:last+1]
}

// roleEnv is the role's environment with its variable set to s.
func roleEnv(s Settings) []string {
	env := make([]string, 0, len(os.Environ()))
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, Env+"=") {
			env = append(env, e)
		}
	}
	return append(env, Env+"="+s.Encode())
}

// initProgram is the init of PIDInit, once the box is made: it starts the program through
// the role (settings s without the box, the cgroups, which it has already joined, or the
// namespace, and the program's file open as progFD), reports the program's end on s.StatusFD, and reaps every process of the
// namespace until none is left. It returns the init's exit status.
func initProgram(s Settings, progFD int) int {
	prog := s
	prog.PID, prog.StatusFD, prog.Box, prog.Cgroup = PIDNone, -1, nil, nil
	prog.PPID = os.Getpid()
	// The program's file, opened before the box hid what it does not keep, is passed on.
	prog.ProgFD = progFD
	syscall.RawSyscall(syscall.SYS_FCNTL, uintptr(progFD), syscall.F_SETFD, 0)
	files := passedFDs(s.ErrFD, s.StatusFD)
	setAction(0, synchronous)
	pid, err := syscall.ForkExec("/proc/self/exe", os.Args, &syscall.ProcAttr{
		Env: roleEnv(prog), Files: files,
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		msg := "start the program in its PID namespace: " + err.Error()
		if _, werr := syscall.Write(s.ErrFD, []byte(msg)); werr != nil {
			os.Stderr.WriteString("gauntlet sandbox: " + msg + "\n")
		}
		return ExitStatus
	}
	// The program's role has the error pipe now: its exec closes it, and the harness reads
	// the end of file as a start.
	if s.ErrFD >= 0 {
		syscall.Close(s.ErrFD)
	}
	// No process of the namespace (the same user, in a rootless box) may trace the init
	// and write the program's end for it.
	prctl(syscall.PR_SET_DUMPABLE, 0)
	reported := false
	for {
		var ws syscall.WaitStatus
		var ru syscall.Rusage
		wpid, err := syscall.Wait4(-1, &ws, 0, &ru)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			break // no child left: the namespace is empty
		}
		if wpid == pid && !reported {
			reported = true
			writeAll(s.StatusFD, statusRecord(ws, &ru))
			syscall.Close(s.StatusFD)
		}
	}
	return 0
}

// writeAll writes b on fd whole.
func writeAll(fd int, b []byte) {
	for len(b) > 0 {
		n, err := syscall.Write(fd, b)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			return
		}
		b = b[n:]
	}
}

// supervise is the role of PIDSupervise: it makes a PID namespace for its child, the init
// of PIDInit with the same settings, waits for the program's end as that init reports it,
// ends the namespace (every process the program left with it), and returns only when it
// could not start: otherwise it ends as the program did.
func supervise(s Settings) int {
	fail := func(msg string) int {
		os.Stderr.WriteString("gauntlet sandbox: " + msg + "\n")
		return ExitStatus
	}
	// Signals meant for the program reach this process too (the run's process group): it
	// ignores them, and lets the program's end decide its own.
	setAction(1, func(sig int) bool {
		return synchronous(sig) || sig == int(syscall.SIGCHLD) || sig == int(syscall.SIGURG) || sig == int(syscall.SIGCONT)
	})
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return fail("status pipe: " + err.Error())
	}
	initS := s
	initS.PID = PIDInit
	files := passedFDs(s.ErrFD, -1)
	initS.StatusFD = len(files)
	files = append(files, uintptr(p[1]))
	// The namespace is made for the children of this thread: the fork must come from it.
	runtime.LockOSThread()
	if _, _, e := syscall.RawSyscall(syscall.SYS_UNSHARE, syscall.CLONE_NEWPID, 0, 0); e != 0 {
		return fail("a PID namespace: " + e.Error())
	}
	pid, err := syscall.ForkExec("/proc/self/exe", os.Args, &syscall.ProcAttr{
		Env: roleEnv(initS), Files: files,
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		return fail("start the PID namespace's init: " + err.Error())
	}
	syscall.Close(p[1])
	rec := make([]byte, 0, StatusSize)
	buf := make([]byte, StatusSize)
	for len(rec) < StatusSize {
		n, err := syscall.Read(p[0], buf[:StatusSize-len(rec)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			break
		}
		rec = append(rec, buf[:n]...)
	}
	// The program has ended (or the init did): so does everything it started.
	syscall.Kill(pid, syscall.SIGKILL)
	var initWS syscall.WaitStatus
	for {
		_, err := syscall.Wait4(pid, &initWS, 0, nil)
		if err != syscall.EINTR {
			break
		}
	}
	ws, _, ok := ParseStatus(rec)
	if !ok {
		ws = initWS
	}
	endAs(ws)
	return ExitStatus
}

// endAs ends this process as ws says a process ended: by the same exit status, or by the
// same signal (with its default action, without a core file).
func endAs(ws syscall.WaitStatus) {
	if !ws.Signaled() {
		os.Exit(ws.ExitStatus())
	}
	sig := ws.Signal()
	syscall.Setrlimit(syscall.RLIMIT_CORE, &syscall.Rlimit{})
	act := kernelSigaction{}
	syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&act)), 0, 8, 0, 0)
	unblockSignals()
	syscall.RawSyscall(syscall.SYS_TGKILL, uintptr(os.Getpid()), uintptr(syscall.Gettid()), uintptr(sig))
	// A signal whose default action does not end a process (none the program can end by)
	// leaves the status.
	os.Exit(128 + int(sig))
}
