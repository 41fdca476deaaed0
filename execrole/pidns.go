package execrole

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// A box's PID namespace. Every boxed program runs in a PID namespace of
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
// status (4 bytes, little-endian), then its struct rusage as the kernel gave it, then how
// many processes it left for the init to reap (4 bytes, little-endian: StatusOrphans),
// then a byte of flags about its working folder (FolderFull, FolderLost: StatusFlags).
const StatusSize = 4 + int(unsafe.Sizeof(syscall.Rusage{})) + 4 + 1

// offOrphans is where the count of orphans lies in the record.
const offOrphans = 4 + int(unsafe.Sizeof(syscall.Rusage{}))

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

// StatusFlags reads the flags of the record an init wrote (0 for anything else).
func StatusFlags(b []byte) byte {
	if len(b) != StatusSize {
		return 0
	}
	return b[StatusSize-1]
}

// StatusOrphans reads, from the record an init wrote, how many processes of its namespace
// were left for the init to reap when the program ended (-1 for anything else): those
// alive or dead but not waited for then, and those the init had already reaped, orphaned
// by a parent that ended without waiting for them. A hub that kills and reaps its players
// leaves none; one that dies first leaves them to the box, which reaps them whatever the
// hub did.
func StatusOrphans(b []byte) int {
	if len(b) != StatusSize {
		return -1
	}
	o := b[offOrphans:]
	return int(uint32(o[0]) | uint32(o[1])<<8 | uint32(o[2])<<16 | uint32(o[3])<<24)
}

// statusRecord is the record ParseStatus reads.
func statusRecord(ws syscall.WaitStatus, ru *syscall.Rusage, orphans int, flags byte) []byte {
	b := make([]byte, StatusSize)
	b[0], b[1], b[2], b[3] = byte(ws), byte(ws>>8), byte(ws>>16), byte(ws>>24)
	copy(b[4:], unsafe.Slice((*byte)(unsafe.Pointer(ru)), unsafe.Sizeof(*ru)))
	o := uint32(orphans)
	b[offOrphans], b[offOrphans+1], b[offOrphans+2], b[offOrphans+3] = byte(o), byte(o>>8), byte(o>>16), byte(o>>24)
	b[StatusSize-1] = flags
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
func initProgram(s Settings, progFD int, script, own bool) int {
	// The status pipe is the init's alone: a program holding it would keep the harness
	// from its end of file.
	syscall.CloseOnExec(s.StatusFD)
	if s.LifeFD > 0 {
		syscall.CloseOnExec(s.LifeFD)
		go endWithParent(s.LifeFD)
	}
	// Every signal at its default action, the faults' too: the kernel then keeps from the
	// init every signal sent from inside its namespace, so that nothing the program does
	// (kill(1, SIGSEGV) from a rootless box's program, which has the init's user) can end
	// it, or make the Go runtime print its internals on the subject's stderr. A fault of the init's own
	// still ends it, by the kernel, without a word.
	setAction(0, func(int) bool { return false })
	if s.NoTrace {
		// The start through the role below, as the trace's would have been: the bounding
		// set emptied (a role forked as the program's user needs no capability).
		if s.dropsBounding() {
			if err := dropBounding(); err != nil {
				msg := "empty the capability bounding set: " + err.Error()
				if _, werr := syscall.Write(s.ErrFD, []byte(msg)); werr != nil {
					os.Stderr.WriteString("gauntlet sandbox: " + msg + "\n")
				}
				return ExitStatus
			}
		}
	} else if pid, ok := startTraced(s, progFD, script, own); ok {
		if pid == 0 {
			return ExitStatus // it could not start: the error pipe says why
		}
		return reap(s, pid)
	}
	prog := s
	prog.PID, prog.StatusFD, prog.LifeFD, prog.Box, prog.Cgroup = PIDNone, -1, 0, nil, nil
	// What the box's programs get, which the role now learns from these (it has no box).
	prog.DenyUserNS, prog.DropBounding = s.denyUserNS(), s.dropsBounding()
	// startTraced emptied this thread's bounding set: a role exec'd as root would have no
	// capability left to change users with. The fork makes it the program's user first
	// (no group), with the capabilities this thread still holds; it then needs none.
	attr := &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setsid: !s.Supervised}
	if s.UID >= 0 {
		attr.Credential = &syscall.Credential{Uid: uint32(s.UID), Gid: uint32(s.GID), Groups: []uint32{}}
	}
	prog.PPID = os.Getpid()
	// The program's file, opened before the box hid what it does not keep, is passed on.
	prog.ProgFD = progFD
	syscall.RawSyscall(syscall.SYS_FCNTL, uintptr(progFD), syscall.F_SETFD, 0)
	files := passedFDs(s.ErrFD, s.StatusFD)
	pid, err := syscall.ForkExec("/proc/self/exe", os.Args, &syscall.ProcAttr{
		Env: roleEnv(prog), Files: files, Sys: attr,
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
	return reap(s, pid)
}

// endWithParent ends the init once the pipe at fd reads its end: its parent, the only
// holder of the write end, is gone (killed outright, as a grader can be). The kernel then
// kills every process of the namespace, which a parent-death signal could not do.
func endWithParent(fd int) {
	var b [1]byte
	for {
		n, err := syscall.Read(fd, b[:])
		if err == syscall.EINTR || err == nil && n > 0 {
			continue
		}
		os.Exit(ExitStatus)
	}
}

// reap is the init's life once the program pid has started: it reports the program's end
// on s.StatusFD and reaps every process of the namespace until none is left; it returns
// the init's exit status.
func reap(s Settings, pid int) int {
	// No process of the namespace (the same user, in a rootless box) may trace the init
	// and write the program's end for it.
	prctl(syscall.PR_SET_DUMPABLE, 0)
	quietStreams()
	dropPassed()
	reported := false
	orphans := 0 // the processes other than the program reaped here before it ended
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
		if wpid != pid && !reported {
			orphans++
		}
		if wpid == pid && !reported {
			reported = true
			// Every process of the namespace but the init is the program's or one of its
			// descendants': those there now, alive or not yet waited for, are the init's
			// to reap, as are those it already reaped (StatusOrphans).
			orphans += processesBut(s.Box, 1)
			// The program's folder back on the host first (a rootless box's: workdisk.go),
			// so that the harness finds it there once it has the program's end.
			var flags byte
			if s.Box != nil {
				flags = s.Box.work.end()
			}
			writeAll(s.StatusFD, statusRecord(ws, &ru, orphans, flags))
			syscall.Close(s.StatusFD)
			if programStderr > 2 {
				syscall.Close(programStderr) // the run's stderr ends with its processes'
				programStderr = -1
			}
		}
	}
	return 0
}

// processesBut counts the processes of this process's PID namespace but pid: in b's /proc
// of the init's (initProcs), which it then closes, or, without one, in the /proc the box
// holds, which shows only those this process may trace.
func processesBut(b *Box, pid int) int {
	dir := -1
	if b != nil && b.procs > 0 {
		dir, b.procs = b.procs, 0
	} else {
		var err error
		if dir, err = syscall.Open("/proc", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0); err != nil {
			return 0
		}
	}
	defer syscall.Close(dir)
	skip := strconv.Itoa(pid)
	n := 0
	var buf [4096]byte
	for {
		got, err := syscall.Getdents(dir, buf[:])
		if err != nil || got <= 0 {
			return n
		}
		_, _, names := syscall.ParseDirent(buf[:got], -1, nil)
		for _, name := range names {
			if name != skip && name[0] >= '0' && name[0] <= '9' {
				n++
			}
		}
	}
}

// programStderr is where the init tells the run's stderr what it must know of its own
// doing (workdisk.go: a working folder not copied back): the program's stderr, kept apart
// by quietStreams, and only that.
var programStderr = 2

// dropPassed closes the init's copies of the descriptors above 2 the harness passed for the
// program (the run's extra files: every descriptor not close-on-exec; the init's own are
// all close-on-exec by now), once the program has them: a pipe the program was handed ends
// when the program's processes close it, not when the init does (a relay's pipe to the
// program it relays: the program would wait for its end of file as long as the init
// lives).
func dropPassed() {
	for fd := 3; fd < 256; fd++ {
		flags, _, e := syscall.RawSyscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
		if e == 0 && flags&syscall.FD_CLOEXEC == 0 {
			syscall.Close(fd)
		}
	}
}

// quietStreams points the init's standard streams, which are the program's (it started
// with them to pass them on), at /dev/null once the program has started: nothing of the
// init's (a Go runtime's traceback) can then reach the subject's streams, and they end as
// the program's processes close them, not when the init does. A copy of the program's
// stderr is kept for programStderr.
func quietStreams() {
	if fd, _, e := syscall.RawSyscall(syscall.SYS_FCNTL, 2, syscall.F_DUPFD_CLOEXEC, 3); e == 0 {
		programStderr = int(fd)
	}
	null, err := syscall.Open("/dev/null", syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		// No /dev/null in the box: a pipe nobody reads takes the place of each.
		var p [2]int
		if syscall.Pipe2(p[:], syscall.O_CLOEXEC) != nil {
			return
		}
		syscall.Close(p[0])
		null = p[1]
	}
	for fd := 0; fd <= 2; fd++ {
		syscall.Dup3(null, fd, 0)
	}
	if null > 2 {
		syscall.Close(null)
	}
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
	// The init's lifeline: this process alone holds its write end (close-on-exec, never
	// passed on), so the namespace ends when this process does, however it ends.
	var life [2]int
	if err := syscall.Pipe2(life[:], syscall.O_CLOEXEC); err != nil {
		return fail("lifeline pipe: " + err.Error())
	}
	initS := s
	initS.PID = PIDInit
	initS.Supervised = true
	files := passedFDs(s.ErrFD, -1)
	initS.StatusFD = len(files)
	files = append(files, uintptr(p[1]))
	initS.LifeFD = len(files)
	files = append(files, uintptr(life[0]))
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
	syscall.Close(life[0])
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

// startTraced starts the program as the init's child without a second start of the role:
// forked from this thread with a trace (the Go runtime cannot run code in a child between
// fork and exec), stopped at its exec before its first instruction, given its limits and
// niceness from here (prlimit, setpriority), and let go. Its user comes from the fork
// (the credentials of its SysProcAttr), no_new_privs, the keyring filter and, rootless,
// the end of the role's capabilities from this thread, which it inherits. ok is false
// when the trace is refused here: the caller then starts the program through the role
// again (initProgram), which says why a start fails in its own words. When ok, pid is the
// program's, or 0 when it could not start (the reason told on the error pipe).
func startTraced(s Settings, fd int, script, own bool) (pid int, ok bool) {
	fail := func(msg string) (int, bool) {
		if _, err := syscall.Write(s.ErrFD, []byte(msg)); err != nil {
			os.Stderr.WriteString("gauntlet sandbox: " + msg + "\n")
		}
		syscall.Close(s.ErrFD)
		return 0, true
	}
	if err := prctl(prSetNoNewPrivs, 1); err != nil {
		return fail("no_new_privs: " + err.Error())
	}
	// The program inherits this thread's empty bounding set; so does a start through the
	// role, if the trace is refused (initProgram).
	if s.dropsBounding() {
		if err := dropBounding(); err != nil {
			return fail("empty the capability bounding set: " + err.Error())
		}
	}
	if err := s.loadFilter(); err != nil {
		return fail("seccomp: " + err.Error())
	}
	if s.Rootless {
		if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prCapAmbient, prCapAmbientClearAll, 0); e != 0 {
			return fail("drop the capabilities: " + e.Error())
		}
	}
	uid := os.Getuid()
	// The program leads a session and a process group of its own, as one a shell starts
	// (docs/harness.md), unless a supervisor's caller signals the init's group for it.
	attr := &syscall.SysProcAttr{Ptrace: true, Pdeathsig: syscall.SIGKILL, Setsid: !s.Supervised}
	if s.UID >= 0 {
		uid = s.UID
		attr.Credential = &syscall.Credential{Uid: uint32(s.UID), Gid: uint32(s.GID), Groups: []uint32{}}
	}
	s = s.withUserTasks(uid)
	env := make([]string, 0, len(os.Environ()))
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, Env+"=") {
			env = append(env, e)
		}
	}
	files := passedFDs(-1, s.StatusFD)
	if s.ErrFD >= 0 && s.ErrFD < len(files) {
		files[s.ErrFD] = ^uintptr(0) // the error pipe is the init's alone here
	}
	path := s.Path
	if !script {
		// The file opened before the box hid it: its descriptor is closed by the exec,
		// which has opened the file by then. Above the descriptors passed (the fork closes
		// those below that are not: a witness's door at WitnessFD passes them all).
		if fd < len(files) {
			if high, _, e := syscall.RawSyscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_DUPFD_CLOEXEC, uintptr(len(files))); e == 0 {
				fd = int(high)
			}
		}
		path = "/proc/self/fd/" + strconv.Itoa(fd)
	}
	var err error
	for range textBusyRetries {
		pid, err = syscall.ForkExec(path, os.Args, &syscall.ProcAttr{Env: env, Files: files, Sys: attr})
		if err != syscall.ETXTBSY {
			break
		}
		syscall.Nanosleep(&textBusyPause, nil)
	}
	switch {
	case err == syscall.EPERM:
		return 0, false // the trace refused: through the role
	case err != nil:
		return fail("exec " + s.Path + ": " + err.Error())
	}
	// Stopped at its exec: the limits, as the role would set them before its exec. Another
	// user's limits need CAP_SYS_RESOURCE, which a root in a container may lack: this
	// thread then becomes that user for the moment (credentials are a thread's). No other
	// process of the user can name it: it is in no PID namespace of theirs.
	if s.UID >= 0 && os.Getuid() == 0 {
		back, err := actAsUser(s.UID, s.GID)
		if err != nil {
			syscall.Kill(pid, syscall.SIGKILL)
			return fail("act as the program's user: " + err.Error())
		}
		defer back()
	}
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(pid, &ws, syscall.WALL, nil)
		if err != syscall.EINTR {
			break
		}
	}
	if !ws.Stopped() {
		return fail("exec " + s.Path + ": the program did not stop at its exec")
	}
	for _, l := range s.Limits() {
		if own && l.Resource == syscall.RLIMIT_AS {
			// The harness's own programs (the reference and mock programs) start without
			// it (see ownWithoutAS).
			continue
		}
		var old syscall.Rlimit
		_, _, e := syscall.RawSyscall6(sysPrlimit64, uintptr(pid), uintptr(l.Resource), 0, uintptr(unsafe.Pointer(&old)), 0, 0)
		lim := l.Within(old, e == 0)
		if _, _, e := syscall.RawSyscall6(sysPrlimit64, uintptr(pid), uintptr(l.Resource), uintptr(unsafe.Pointer(&lim)), 0, 0, 0); e != 0 {
			syscall.Kill(pid, syscall.SIGKILL)
			return fail("setrlimit " + l.Name + ": " + e.Error())
		}
	}
	if s.Nice > 0 {
		if err := syscall.Setpriority(syscall.PRIO_PROCESS, pid, s.Nice); err != nil {
			syscall.Kill(pid, syscall.SIGKILL)
			return fail("setpriority: " + err.Error())
		}
	}
	if hwm := peakRSS(); hwm > 0 && s.ErrFD >= 0 {
		syscall.Write(s.ErrFD, []byte("hwm "+strconv.FormatInt(hwm, 10)+"\n"))
	}
	// (The trace is this thread's whatever its user: detaching needs no permission.)
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PTRACE, syscall.PTRACE_DETACH, uintptr(pid), 0, 0, 0, 0); e != 0 {
		syscall.Kill(pid, syscall.SIGKILL)
		return fail("let the program go: " + e.Error())
	}
	// Started: the end of file on the error pipe tells the harness.
	if s.ErrFD >= 0 {
		syscall.Close(s.ErrFD)
	}
	return pid, true
}

// actAsUser makes this thread (only) user uid and group gid, keeping root as its saved
// user so that back can return to root. Go's Setresuid would change every thread.
func actAsUser(uid, gid int) (back func(), err error) {
	rgid := os.Getgid()
	if _, _, e := syscall.RawSyscall(syscall.SYS_SETRESGID, uintptr(gid), uintptr(gid), uintptr(rgid)); e != 0 {
		return nil, e
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_SETRESUID, uintptr(uid), uintptr(uid), 0); e != 0 {
		syscall.RawSyscall(syscall.SYS_SETRESGID, uintptr(rgid), uintptr(rgid), uintptr(rgid))
		return nil, e
	}
	return func() {
		syscall.RawSyscall(syscall.SYS_SETRESUID, 0, 0, 0)
		syscall.RawSyscall(syscall.SYS_SETRESGID, uintptr(rgid), uintptr(rgid), uintptr(rgid))
	}, nil
}
