package sandbox

import (
	"errors"
	"math"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"gauntlet/harness/cgroup"
	"gauntlet/harness/hygiene"
)

// roleEnv is the environment variable that puts the harness binary in its "exec with
// limits" role. Its value carries the settings, URL-query encoded (see execSettings).
const roleEnv = "GAUNTLET_SANDBOX_EXEC"

// TokenEnv is the variable every subject process is started with: its value is a random
// token naming the run, which lets the harness recognise the run's processes after they left
// its session and were orphaned.
const TokenEnv = "GAUNTLET_RUN"

// roleExitStatus is the exit status of the role when it cannot exec the subject.
const roleExitStatus = 127

func init() { Init() }

// Init runs the "exec with limits" role when this process was started for it, and otherwise
// returns at once.
//
// Go's os/exec cannot run code in the child between fork and exec, so the sandbox starts a
// subject by re-executing the harness's own binary (/proc/self/exe) with roleEnv set, the
// working directory, descriptors and argv already those of the subject. In that role the
// process drops to the sandbox user, sets no_new_privs and the parent-death signal, lowers
// its niceness, restores the default action of ignored signals, applies the resource limits,
// and execs the subject in its place (same pid). If any step fails it reports the error to
// the harness on a close-on-exec pipe and exits with status 127, so Start returns the error.
// The limits are thus set only in the child, never on the harness.
//
// The package's init function calls Init, so any binary that links the sandbox (the CLI, a
// test binary) can play the role before its own main or TestMain runs; calling Init again
// first thing in main is harmless and makes the role visible.
func Init() {
	spec, ok := os.LookupEnv(roleEnv)
	if !ok {
		return
	}
	os.Exit(execRole(spec))
}

// execSettings is what the harness passes to the role.
type execSettings struct {
	path     string // absolute path of the subject program
	errFD    int    // write end of the error pipe
	ppid     int    // the harness's pid: if the parent is already another, give up
	uid, gid int    // user to switch to, or -1
	cpu      int64  // seconds, or Unlimited
	as       int64
	nproc    int64
	nprocRel bool // nproc counts on top of the tasks the user already has
	fsize    int64
	nofile   int64
	nice     int
	box      *Box     // make the box's mounts and network first (nil: no box)
	cgroup   []string // cgroup.procs files to join before the exec
}

func (s execSettings) encode() string {
	v := url.Values{}
	v.Set("path", s.path)
	for k, n := range map[string]int64{"errfd": int64(s.errFD), "ppid": int64(s.ppid),
		"uid": int64(s.uid), "gid": int64(s.gid), "cpu": s.cpu, "as": s.as, "nproc": s.nproc,
		"fsize": s.fsize, "nofile": s.nofile, "nice": int64(s.nice)} {
		v.Set(k, strconv.FormatInt(n, 10))
	}
	if s.nprocRel {
		v.Set("nprocrel", "1")
	}
	s.box.encode(v)
	v["cgroup"] = s.cgroup
	return v.Encode()
}

func decodeSettings(q string) (execSettings, error) {
	v, err := url.ParseQuery(q)
	if err != nil {
		return execSettings{}, err
	}
	s := execSettings{path: v.Get("path"), nprocRel: v.Get("nprocrel") == "1"}
	if s.box, err = decodeBox(v); err != nil {
		return s, err
	}
	s.cgroup = v["cgroup"]
	for k, dst := range map[string]*int64{"cpu": &s.cpu, "as": &s.as, "nproc": &s.nproc,
		"fsize": &s.fsize, "nofile": &s.nofile} {
		if *dst, err = strconv.ParseInt(v.Get(k), 10, 64); err != nil {
			return s, err
		}
	}
	for k, dst := range map[string]*int{"errfd": &s.errFD, "ppid": &s.ppid, "uid": &s.uid,
		"gid": &s.gid, "nice": &s.nice} {
		if *dst, err = strconv.Atoi(v.Get(k)); err != nil {
			return s, err
		}
	}
	return s, nil
}

// execRole does the role's work and returns an exit status only when it failed.
func execRole(q string) int {
	// Everything below runs on one thread: the signal mask set last must be the one of the
	// thread that execs.
	runtime.LockOSThread()
	s, err := decodeSettings(q)
	if err != nil {
		os.Stderr.WriteString("gauntlet sandbox: bad " + roleEnv + ": " + err.Error() + "\n")
		return roleExitStatus
	}
	fail := func(stage string, err error) int {
		msg := stage + ": " + err.Error()
		if _, werr := unix.Write(s.errFD, []byte(msg)); werr != nil {
			os.Stderr.WriteString("gauntlet sandbox: " + msg + "\n")
		}
		return roleExitStatus
	}
	// Without an error pipe (Command), failures are told on stderr.
	repFD := s.errFD
	if repFD < 0 {
		repFD = 2
	}
	unix.CloseOnExec(s.errFD)
	env := make([]string, 0, len(os.Environ()))
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, roleEnv+"=") {
			env = append(env, e)
		}
	}
	// Open the program while still the harness's user: the sandbox user then needs only
	// execute permission on the file, not search permission on its directories.
	fd, err := unix.Open(s.path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fail("open "+s.path, err)
	}
	head := make([]byte, 2)
	n, _ := unix.Pread(fd, head, 0)
	script := n == 2 && string(head) == "#!"
	useFD := false
	if s.box != nil {
		if err := enterBox(s.box); err != nil {
			return fail("box", err)
		}
		// The program was opened before the box hid what it does not keep (a link to a
		// private build folder): exec the file already open. Not for scripts, whose
		// interpreter reopens them by path.
		useFD = !script
	}
	// Into the case's cgroup while still root: the subject never runs outside it.
	if err := cgroup.Join(s.cgroup, os.Getpid()); err != nil {
		return fail("cgroup", err)
	}
	if s.uid >= 0 {
		if err := syscall.Setgroups(nil); err != nil {
			return fail("setgroups", err)
		}
		if err := syscall.Setgid(s.gid); err != nil {
			return fail("setgid "+strconv.Itoa(s.gid), err)
		}
		if err := syscall.Setuid(s.uid); err != nil {
			return fail("setuid "+strconv.Itoa(s.uid), err)
		}
		// If the sandbox user cannot reach the program by its path, exec the file already
		// open. Not for scripts: their interpreter reopens them by path.
		useFD = useFD || !script && unix.Access(s.path, unix.X_OK) != nil
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fail("no_new_privs", err)
	}
	// A change of user clears the parent-death signal: set it again, then make sure the
	// harness did not die in the meantime.
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0, 0, 0); err != nil {
		return fail("pdeathsig", err)
	}
	if os.Getppid() != s.ppid {
		return roleExitStatus
	}
	if s.nice > 0 {
		if err := unix.Setpriority(unix.PRIO_PROCESS, 0, s.nice); err != nil {
			return fail("setpriority", err)
		}
	}
	if s.nprocRel && s.nproc >= 0 {
		s.nproc += int64(userTasks(os.Getuid()))
	}
	// Prepare the exec completely before the limits: once the address space limit is in
	// force the Go runtime may be unable to map more memory, so from there on nothing
	// allocates, and the exec is a raw system call.
	argvp, err1 := syscall.SlicePtrFromStrings(os.Args)
	envp, err2 := syscall.SlicePtrFromStrings(env)
	pathp, err3 := syscall.BytePtrFromString(s.path)
	emptyp, err4 := syscall.BytePtrFromString("")
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return fail("exec "+s.path, err)
	}
	// The report of a failed exec is written into room made now: allocating once the
	// limits hold could kill the role before it says why.
	execStage := "exec " + s.path + ": "
	report := make([]byte, 0, len(execStage)+256)
	type limit struct {
		name     string
		resource int
		soft     int64
		hardPlus int64
	}
	limits := [...]limit{
		{"RLIMIT_CORE", unix.RLIMIT_CORE, 0, 0},
		{"RLIMIT_CPU", unix.RLIMIT_CPU, s.cpu, 1}, // SIGXCPU at the limit, SIGKILL a second later
		{"RLIMIT_FSIZE", unix.RLIMIT_FSIZE, s.fsize, 0},
		{"RLIMIT_NOFILE", unix.RLIMIT_NOFILE, s.nofile, 0},
		{"RLIMIT_AS", unix.RLIMIT_AS, s.as, 0},
		// Last: with too low a count the Go runtime could no longer start a thread.
		{"RLIMIT_NPROC", unix.RLIMIT_NPROC, s.nproc, 0},
	}
	// Tell the harness how much memory this step used: the kernel's peak RSS of the
	// process, which the harness reads at the end, includes it.
	if hwm := selfHWM(); hwm > 0 && s.errFD >= 0 {
		unix.Write(s.errFD, []byte("hwm "+strconv.FormatInt(hwm, 10)+"\n"))
	}
	resetSignals()
	for i := range limits {
		l := &limits[i]
		if l.soft < 0 {
			continue
		}
		lim := syscall.Rlimit{Cur: uint64(l.soft), Max: uint64(l.soft + l.hardPlus)}
		var old syscall.Rlimit
		if err := syscall.Getrlimit(l.resource, &old); err == nil && old.Max != math.MaxUint64 && old.Max < lim.Max {
			// An unprivileged harness cannot raise a hard limit: keep what it has.
			lim.Max = old.Max
			lim.Cur = min(lim.Cur, old.Max)
		}
		if err := syscall.Setrlimit(l.resource, &lim); err != nil {
			return fail("setrlimit "+l.name, err)
		}
	}
	unblockSignals()
	var e syscall.Errno
	for range textBusyRetries {
		if useFD {
			// execveat(fd, "", AT_EMPTY_PATH) needs only execute permission on the file itself.
			_, _, e = unix.RawSyscall6(unix.SYS_EXECVEAT, uintptr(fd), uintptr(unsafe.Pointer(emptyp)),
				uintptr(unsafe.Pointer(&argvp[0])), uintptr(unsafe.Pointer(&envp[0])), unix.AT_EMPTY_PATH, 0)
		} else {
			_, _, e = unix.RawSyscall(unix.SYS_EXECVE, uintptr(unsafe.Pointer(pathp)),
				uintptr(unsafe.Pointer(&argvp[0])), uintptr(unsafe.Pointer(&envp[0])))
		}
		if e != syscall.ETXTBSY {
			break
		}
		unix.RawSyscall(unix.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&textBusyPause)), 0, 0)
	}
	report = append(report, execStage...)
	if msg := e.Error(); len(msg) <= 256 {
		report = append(report, msg...)
	}
	unix.Write(repFD, report)
	return roleExitStatus
}

// An exec fails with ETXTBSY while any process holds the file open for writing. That
// happens for a moment, through no fault of the subject, when a program was written just
// before (a test file, a copied submission) and a fork elsewhere in the harness copied the
// writer's descriptor: the fork's child drops it at its own exec. The exec is retried for
// up to textBusyRetries pauses of textBusyPause before the error counts.
const textBusyRetries = 200

var textBusyPause = unix.Timespec{Nsec: int64(time.Millisecond)}

// selfHWM returns the peak resident set of this process in bytes (VmHWM), or 0.
func selfHWM() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

// userTasks counts the tasks (threads included) of the user's processes: what the kernel
// compares with RLIMIT_NPROC.
func userTasks(uid int) int {
	procs, _ := hygiene.Scan()
	n := 0
	for _, p := range procs {
		if int(p.UID) == uid {
			n += p.Threads
		}
	}
	return n
}

// kernelSigaction is struct sigaction as rt_sigaction(2) takes it. Only the handler, at the
// start on every architecture, is read; the whole struct is zero when written (SIG_DFL).
type kernelSigaction struct {
	handler  uintptr
	flags    uint64
	restorer uintptr
	mask     uint64
}

// resetSignals gives back the default action to every signal the harness inherited as
// ignored (a harness started under nohup ignores SIGHUP): exec keeps ignored signals
// ignored, and a subject must meet SIGHUP, SIGINT and SIGPIPE as the spec expects.
func resetSignals() {
	const sigIgn = 1
	for sig := 1; sig <= 64; sig++ {
		if sig == int(syscall.SIGKILL) || sig == int(syscall.SIGSTOP) {
			continue
		}
		var old kernelSigaction
		_, _, e := unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), 0,
			uintptr(unsafe.Pointer(&old)), 8, 0, 0)
		if e == 0 && old.handler == sigIgn {
			var dfl kernelSigaction
			unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&dfl)), 0, 8, 0, 0)
		}
	}
}

// unblockSignals empties the signal mask of the calling thread, which exec passes on.
func unblockSignals() {
	var none uint64
	unix.RawSyscall6(unix.SYS_RT_SIGPROCMASK, unix.SIG_SETMASK, uintptr(unsafe.Pointer(&none)), 0, 8, 0, 0)
}
