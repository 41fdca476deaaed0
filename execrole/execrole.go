// Package execrole is the first code a program started by the sandbox runs. Go cannot run
// code in a child between fork and exec, so the sandbox (harness/box/sandbox) starts every
// program by re-executing its own binary (/proc/self/exe) with Env set to the Settings, the
// working directory, descriptors and argv already the program's. In that role the process
// makes the box's mounts and network, joins the case's cgroups, drops to the sandbox user,
// sets no_new_privs and the parent-death signal, lowers its niceness, restores the default
// action of ignored signals, applies the resource limits, and execs the program in its
// place (same pid). If a step fails it reports why on a close-on-exec pipe (or on stderr)
// and exits with ExitStatus.
//
// The role runs from this package's init function, which is why the package stands apart,
// at this import path, and uses nothing but the standard library's lowest packages (not
// even golang.org/x/sys/unix on amd64 and arm64, sys_linux.go): Go initialises a binary's
// packages in dependency order, taking the first ready one by import path, so this package
// runs before the game, grader and test packages of the binary that carries it
// (TestRunsBeforeTheBinarysPackages), rather than wait for every package of the gauntlet
// binary to initialise: about 1.7 ms less CPU on every program the harness starts
// (BenchmarkRoleStart).
package execrole

import (
	"errors"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// Env is the environment variable that puts a binary carrying this package in its role.
// Its value is Settings.Encode.
const Env = "GAUNTLET_SANDBOX_EXEC"

// ExitStatus is the role's exit status when it cannot exec the program.
const ExitStatus = 127

// Unlimited, as a limit, leaves the limit the harness has.
const Unlimited = -1

// Box is the isolation the role makes before it drops to the sandbox user, in the mount,
// IPC, network and UTS namespaces the harness cloned for it (see sandbox.Box).
type Box struct {
	Keep     []string // absolute, clean folders bound at the same path in the box's root
	ReadOnly []string // more of the host bound read-only, beside System
	Hide     []string // folders covered by an empty read-only folder
	// Mask lists files of the host the box would otherwise hold (in System, ReadOnly or
	// Keep) that it must not: the judge's own files, wherever they are installed
	// (sandbox's judgefiles.go). Each is covered by an empty file that nobody may read or
	// run; a path the box does not hold is passed over.
	Mask    []string
	TmpSize int64 // size of each private tmpfs in bytes
	// SameNet leaves the network namespace the role was started in as it is (the
	// harness cloned none for it).
	SameNet bool
	// UserNS, in a rootless box (Settings.Rootless: the role in a user namespace of its
	// own), is how many user namespaces the box's programs may make: 0 for a subject,
	// which could otherwise map its user to root in one and read, with that namespace's
	// capabilities, the files it may only run (sandbox's rootless.go); some for a judge,
	// which boxes its subject. A root box leaves the machine's limit as it is.
	UserNS int
	// ownUserNS says the role runs in a user namespace of its own (Settings.Rootless),
	// whose limits UserNS sets.
	ownUserNS bool
	// Net, when not empty, names a network namespace to join (a /proc/PID/fd/N link to
	// it) instead of the new one: the one several runs share. The role's thread that execs
	// the program joins it.
	Net string
	// Disk, when above 0 in a box whose role is the init of its PID namespace (PIDInit),
	// makes the run's working folder a tmpfs of Disk bytes in the box, copied in before
	// the program starts and back out once it has ended (workdisk.go): what a rootless
	// grader's build or case writes is bounded as a root grader's, whose folders are
	// tmpfs mounts on the host.
	Disk int64
	work *workDisk // the covered working folder (the init's)
	// init says the role is the init of the box's PID namespace (PIDInit), which counts
	// the processes its program leaves it (StatusOrphans) in procs, when above 0: an open
	// /proc of the namespace without hidepid, which no mount of the box holds (initProcs).
	init  bool
	procs int
}

// Settings is what the harness tells the role.
type Settings struct {
	Path     string   // absolute path of the program
	ErrFD    int      // write end of the error pipe, or -1 (failures then go to stderr)
	PPID     int      // the harness's pid: if the parent is already another, give up
	UID, GID int      // user to switch to, or -1
	CPU      int64    // seconds, or Unlimited
	AS       int64    // bytes of address space, or Unlimited
	NProc    int64    // processes of the user, or Unlimited
	NProcRel bool     // NProc counts on top of the tasks the user already has
	FSize    int64    // bytes a file may grow to, or Unlimited
	NoFile   int64    // open files, or Unlimited
	Nice     int      // niceness to add
	Box      *Box     // make the box's mounts and network first (nil: no box)
	Cgroup   []string // cgroup.procs files to join before the exec
	// Self names a copy of the harness's own binary (the grader's, which sandbox users
	// may run where they could not reach the original): a program that is this file is
	// the harness's own, as a link to /proc/self/exe is (isHarnessBinary).
	Self string
	// PID says how the run's PID namespace is made (pidns.go): PIDNone, PIDInit (this
	// process is the first of a new namespace: it makes the box, starts the program and
	// reports its end on StatusFD) or PIDSupervise (this process makes the namespace for
	// its init and ends as the program ends).
	PID int
	// StatusFD is the write end of the pipe on which the init of PIDInit reports the
	// program's end (-1: none).
	StatusFD int
	// Rootless says the role runs in a user namespace of its own, holding the
	// capabilities it needs as ambient ones (rootless.go): it does not switch users, and
	// clears them before the exec.
	Rootless bool
	// LifeFD is the read end of the pipe whose write end only this process's parent holds
	// (the harness, or the supervisor of PIDSupervise), or 0 (never one: standard input):
	// the init of a PID namespace ends, and the namespace with it, once the parent is gone.
	// A parent-death signal cannot do it: the kernel keeps every signal that an init has no
	// handler for, SIGKILL too, from a namespace's init.
	LifeFD int
	// ProgFD is the program's file, already open (by the init of a PID namespace, before
	// the box hid it), or 0 (never a program's: standard input).
	ProgFD int
	// Supervised says the init of PIDInit is a supervisor's (PIDSupervise): its program
	// stays in the init's session and process group, which the supervisor's caller
	// signals. Otherwise the program leads a session and a group of its own, as a program
	// a shell starts.
	Supervised bool
	// DenyUserNS and DropBounding are what a box gives its program, told to the role that
	// starts it from the init of its PID namespace (which has no Box): no user namespace
	// (Filter) and an empty capability bounding set.
	DenyUserNS, DropBounding bool
	// NoTrace makes the init of PIDInit start its program through the role, without first
	// trying a traced start, as it does where a traced start is refused: the tests' way to
	// take that path where traces are allowed.
	NoTrace bool
}

// ownWithoutAS says whether the harness's own programs (the reference and mock programs,
// isHarnessBinary) start without the address-space limit under these settings: as a
// sandbox user or in a rootless box, as they do in a box. They read bounded lines
// (lineio.MaxLine), and the case's cgroup holds their memory. As the harness's own user
// outside a box, they keep it.
func (s Settings) ownWithoutAS() bool { return s.UID >= 0 || s.Rootless }

// denyUserNS says whether the program may make no user namespace: a box's, unless it is a
// rootless judge's, which boxes its subject in one (Box.UserNS). A root box's programs
// never need one; a rootless box's are also held to Box.UserNS by its own user namespace.
func (s Settings) denyUserNS() bool {
	return s.DenyUserNS || s.Box != nil && !(s.Rootless && s.Box.UserNS > 0)
}

// dropsBounding says whether the program's capability bounding set is emptied (in a box):
// when it runs as a user other than root (a sandbox user, or a rootless box's, which is
// root nowhere but in its box's user namespace). A program that runs as root (a judge of a
// root grader, which starts its subject as the case's user) keeps the bounding set it
// needs to do so.
func (s Settings) dropsBounding() bool { return s.UID >= 0 || s.Rootless }

// loadFilter loads the seccomp filter the program gets (Filter) into the calling thread.
func (s Settings) loadFilter() error {
	if s.denyUserNS() {
		return denyKeyringsAndUserNS()
	}
	return denyKeyrings()
}

// PR_CAPBSET_READ and PR_CAPBSET_DROP, the same on every architecture.
const (
	prCapbsetRead = 23
	prCapbsetDrop = 24
)

// dropBounding empties the calling thread's capability bounding set, which the processes
// it starts inherit: no exec of theirs can gain a capability, whatever file it runs
// (no_new_privs already keeps setuid and file capabilities from them; this holds if that
// were ever lifted). Dropping one needs CAP_SETPCAP; a set already empty (inherited) needs
// nothing.
func dropBounding() error {
	for c := uintptr(0); c < 64; c++ {
		in, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prCapbsetRead, c, 0)
		if e == syscall.EINVAL {
			return nil // past the kernel's last capability
		}
		if e != 0 || in == 0 {
			continue
		}
		if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prCapbsetDrop, c, 0); e != 0 {
			return e
		}
	}
	return nil
}

// Encode writes s as the value of Env: words "key value" with Go-quoted values, one word
// pair per value (a list repeats its key).
func (s Settings) Encode() string {
	var b strings.Builder
	add := func(k, v string) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k + " " + strconv.Quote(v))
	}
	num := func(k string, n int64) { add(k, strconv.FormatInt(n, 10)) }
	add("path", s.Path)
	num("errfd", int64(s.ErrFD))
	num("ppid", int64(s.PPID))
	num("uid", int64(s.UID))
	num("gid", int64(s.GID))
	num("cpu", s.CPU)
	num("as", s.AS)
	num("nproc", s.NProc)
	num("fsize", s.FSize)
	num("nofile", s.NoFile)
	num("nice", int64(s.Nice))
	if s.NProcRel {
		add("nprocrel", "1")
	}
	for _, c := range s.Cgroup {
		add("cgroup", c)
	}
	if s.Self != "" {
		add("self", s.Self)
	}
	if s.PID != PIDNone {
		num("pid", int64(s.PID))
		num("statusfd", int64(s.StatusFD))
	}
	if s.LifeFD > 0 {
		num("lifefd", int64(s.LifeFD))
	}
	if s.Rootless {
		add("rootless", "1")
	}
	if s.ProgFD > 0 {
		num("progfd", int64(s.ProgFD))
	}
	for _, f := range []struct {
		k  string
		on bool
	}{{"supervised", s.Supervised}, {"nouserns", s.DenyUserNS}, {"nobounding", s.DropBounding}, {"notrace", s.NoTrace}} {
		if f.on {
			add(f.k, "1")
		}
	}
	if s.Box != nil {
		num("tmpsize", s.Box.TmpSize)
		for _, k := range s.Box.Keep {
			add("keep", k)
		}
		for _, h := range s.Box.Hide {
			add("hide", h)
		}
		for _, r := range s.Box.ReadOnly {
			add("ro", r)
		}
		for _, m := range s.Box.Mask {
			add("mask", m)
		}
		if s.Box.Net != "" {
			add("net", s.Box.Net)
		}
		if s.Box.SameNet {
			add("samenet", "1")
		}
		if s.Box.UserNS > 0 {
			num("userns", int64(s.Box.UserNS))
		}
		if s.Box.Disk > 0 {
			num("disk", s.Box.Disk)
		}
	}
	return b.String()
}

// Decode reads what Encode wrote.
func Decode(q string) (Settings, error) {
	v := map[string][]string{}
	for q != "" {
		k, rest, ok := strings.Cut(q, " ")
		if !ok {
			return Settings{}, errors.New("a key without a value: " + strconv.Quote(k))
		}
		quoted, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return Settings{}, errors.New("the value of " + k + " is not quoted")
		}
		val, _ := strconv.Unquote(quoted)
		v[k] = append(v[k], val)
		q = strings.TrimPrefix(rest[len(quoted):], " ")
	}
	one := func(k string) string {
		if len(v[k]) == 0 {
			return ""
		}
		return v[k][0]
	}
	s := Settings{Path: one("path"), NProcRel: one("nprocrel") == "1", Cgroup: v["cgroup"], Self: one("self"),
		Rootless: one("rootless") == "1", Supervised: one("supervised") == "1", DenyUserNS: one("nouserns") == "1",
		DropBounding: one("nobounding") == "1", NoTrace: one("notrace") == "1"}
	if pf := one("progfd"); pf != "" {
		n, err := strconv.Atoi(pf)
		if err != nil {
			return s, errors.New("progfd: " + err.Error())
		}
		s.ProgFD = n
	}
	if _, ok := v["lifefd"]; ok {
		n, err := strconv.Atoi(one("lifefd"))
		if err != nil || n <= 0 {
			return s, errors.New("lifefd: not a descriptor")
		}
		s.LifeFD = n
	}
	if _, ok := v["pid"]; ok {
		for k, dst := range map[string]*int{"pid": &s.PID, "statusfd": &s.StatusFD} {
			n, err := strconv.Atoi(one(k))
			if err != nil {
				return s, errors.New(k + ": " + err.Error())
			}
			*dst = n
		}
	}
	if _, boxed := v["tmpsize"]; boxed {
		s.Box = &Box{Keep: v["keep"], Hide: v["hide"], ReadOnly: v["ro"], Mask: v["mask"], Net: one("net"), SameNet: one("samenet") == "1"}
		if u := one("userns"); u != "" {
			n, err := strconv.Atoi(u)
			if err != nil {
				return s, errors.New("userns: " + err.Error())
			}
			s.Box.UserNS = n
		}
		if d := one("disk"); d != "" {
			n, err := strconv.ParseInt(d, 10, 64)
			if err != nil {
				return s, errors.New("disk: " + err.Error())
			}
			s.Box.Disk = n
		}
		n, err := strconv.ParseInt(one("tmpsize"), 10, 64)
		if err != nil {
			return s, errors.New("tmpsize: " + err.Error())
		}
		s.Box.TmpSize = n
	}
	for k, dst := range map[string]*int64{"cpu": &s.CPU, "as": &s.AS, "nproc": &s.NProc,
		"fsize": &s.FSize, "nofile": &s.NoFile} {
		n, err := strconv.ParseInt(one(k), 10, 64)
		if err != nil {
			return s, errors.New(k + ": " + err.Error())
		}
		*dst = n
	}
	for k, dst := range map[string]*int{"errfd": &s.ErrFD, "ppid": &s.PPID, "uid": &s.UID,
		"gid": &s.GID, "nice": &s.Nice} {
		n, err := strconv.Atoi(one(k))
		if err != nil {
			return s, errors.New(k + ": " + err.Error())
		}
		*dst = n
	}
	return s, nil
}

func init() { Init() }

// Init plays the role when this process was started for it (Env is set), and otherwise
// returns at once. The package's init function calls it; calling it again is harmless.
func Init() {
	q, ok := os.LookupEnv(Env)
	if !ok {
		// Not the role: a harness (or one of its programs) starting. Nothing it starts
		// may inherit a descriptor it was itself given (see confine.go).
		CloseInheritedOnExec()
		return
	}
	os.Exit(run(q))
}

// A failure the role reports on its error pipe may start with a line that says its kind,
// KindLine and the kind, for the harness to act on without reading the message: now only
// KindFolderOverBound, a working folder that holds more than the box's bound before the
// program starts (what the subject's earlier runs left). Without the line, the failure is
// the harness's.
const (
	KindLine            = "kind "
	KindFolderOverBound = "folder-over-bound"
)

// run does the role's work and returns an exit status when it could not exec the program.
func run(q string) int {
	// Everything below runs on one thread, the main one: the signal mask set last must be
	// the one of the thread that execs. The Go runtime keeps the main goroutine locked to
	// the main thread while packages initialise, so no LockOSThread here (it would start
	// the runtime's template thread, one more thread to start and to change the
	// credentials of, in every program the harness starts).
	s, err := Decode(q)
	if err != nil {
		os.Stderr.WriteString("gauntlet sandbox: bad " + Env + ": " + err.Error() + "\n")
		return ExitStatus
	}
	fail := func(stage string, err error) int {
		msg := stage + ": " + err.Error()
		if errors.As(err, new(overBound)) {
			// The failure's kind, on a line of its own before its message (StartKinds).
			msg = KindLine + KindFolderOverBound + "\n" + msg
		}
		if _, werr := syscall.Write(s.ErrFD, []byte(msg)); werr != nil {
			os.Stderr.WriteString("gauntlet sandbox: " + msg + "\n")
		}
		return ExitStatus
	}
	// Without an error pipe (sandbox.Command), failures are told on stderr.
	repFD := s.ErrFD
	if repFD < 0 {
		repFD = 2
	}
	if s.PID == PIDSupervise {
		return supervise(s)
	}
	syscall.CloseOnExec(s.ErrFD)
	env := make([]string, 0, len(os.Environ()))
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, Env+"=") {
			env = append(env, e)
		}
	}
	// Open the program while still the harness's user: the sandbox user then needs only
	// execute permission on the file, not search permission on its directories.
	fd := s.ProgFD
	if fd > 0 {
		syscall.CloseOnExec(fd)
	} else if fd, err = syscall.Open(s.Path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0); err != nil {
		// (Not blocking: a FIFO in the program's place would hold the role forever.)
		return fail("open "+s.Path, err)
	}
	head := make([]byte, 2)
	n, _ := syscall.Pread(fd, head, 0)
	script := n == 2 && string(head) == "#!"
	// Looked at before the box hides what it does not keep.
	own := isHarnessBinary(fd, s.Self)
	// A file opened for it before a box hid it is exec'd as open.
	useFD := s.ProgFD > 0 && !script
	if s.Box != nil && s.Box.Net != "" {
		// Before the box's /proc replaces the harness's, where the link lies.
		if err := joinNet(s.Box.Net); err != nil {
			return fail("box", errors.New("join the network "+s.Box.Net+": "+err.Error()))
		}
	}
	// Into the case's cgroups while still root, and before the box's root hides the cgroup files: the program never runs outside them.
	for _, f := range s.Cgroup {
		if err := joinCgroup(f); err != nil {
			return fail("cgroup", errors.New("join "+f+": "+err.Error()))
		}
	}
	if s.Box != nil {
		s.Box.ownUserNS = s.Rootless
		s.Box.init = s.PID == PIDInit
		if s.PID != PIDInit {
			s.Box.Disk = 0 // only an init outlives the program, to copy its folder back
		}
		if err := enterBox(s.Box); err != nil {
			return fail("box", err)
		}
		// The program was opened before the box hid what it does not keep (a link to a
		// private build folder): exec the file already open. Not for scripts, whose
		// interpreter reopens them by path.
		useFD = !script
	}
	if s.PID == PIDInit {
		return initProgram(s, fd, script, own)
	}
	if (s.Box != nil || s.DropBounding) && s.dropsBounding() {
		// While the role still has CAP_SETPCAP (root's, or a rootless box's ambient one).
		if err := dropBounding(); err != nil {
			return fail("empty the capability bounding set", err)
		}
	}
	if s.UID >= 0 {
		// The harness starts the role without supplementary groups when it is root
		// (sandbox.Command): setgroups, like setgid and setuid, is a signal to every thread
		// of the runtime and a wait for each, only worth it when there is a group to drop.
		if groups, err := syscall.Getgroups(); err != nil || len(groups) > 0 {
			if err := setIDs(syscall.SYS_SETGROUPS, 0); err != nil {
				return fail("setgroups", err)
			}
		}
		if err := setIDs(syscall.SYS_SETGID, s.GID); err != nil {
			return fail("setgid "+strconv.Itoa(s.GID), err)
		}
		if err := setIDs(syscall.SYS_SETUID, s.UID); err != nil {
			return fail("setuid "+strconv.Itoa(s.UID), err)
		}
		// If the sandbox user cannot reach the program by its path, exec the file already
		// open. Not for scripts: their interpreter reopens them by path.
		useFD = useFD || !script && syscall.Access(s.Path, xOK) != nil
	}
	if err := prctl(prSetNoNewPrivs, 1); err != nil {
		return fail("no_new_privs", err)
	}
	if s.Rootless {
		// The capabilities the role held in its user namespace end here: a program exec'd
		// by a user other than root keeps only ambient ones.
		if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prCapAmbient, prCapAmbientClearAll, 0); e != 0 {
			return fail("drop the capabilities", e)
		}
	}
	if err := s.loadFilter(); err != nil {
		return fail("seccomp", err)
	}
	// A change of user clears the parent-death signal: set it again, then make sure the
	// harness did not die in the meantime.
	if err := prctl(syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL)); err != nil {
		return fail("pdeathsig", err)
	}
	if os.Getppid() != s.PPID {
		return ExitStatus
	}
	if s.Nice > 0 {
		if err := syscall.Setpriority(syscall.PRIO_PROCESS, 0, s.Nice); err != nil {
			return fail("setpriority", err)
		}
	}
	s = s.withUserTasksAsProgram(os.Getuid())
	// Prepare the exec completely before the limits: once the address space limit is in
	// force the Go runtime may be unable to map more memory, so from there on nothing
	// allocates, and the exec is a raw system call.
	argvp, err1 := syscall.SlicePtrFromStrings(os.Args)
	envp, err2 := syscall.SlicePtrFromStrings(env)
	pathp, err3 := syscall.BytePtrFromString(s.Path)
	emptyp, err4 := syscall.BytePtrFromString("")
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return fail("exec "+s.Path, err)
	}
	// The report of a failed exec is written into room made now: allocating once the
	// limits hold could kill the role before it says why.
	execStage := "exec " + s.Path + ": "
	report := make([]byte, 0, len(execStage)+256)
	limits := s.Limits()
	if own && s.ownWithoutAS() {
		limits = slices.DeleteFunc(limits, func(l Limit) bool { return l.Resource == syscall.RLIMIT_AS })
	}
	// Tell the harness the peak RSS the process starts the program with (this step's and
	// the harness's own, peakRSS): the one the harness reads at the end includes it.
	if hwm := peakRSS(); hwm > 0 && s.ErrFD >= 0 {
		syscall.Write(s.ErrFD, []byte("hwm "+strconv.FormatInt(hwm, 10)+"\n"))
	}
	resetSignals()
	for _, l := range limits {
		var old syscall.Rlimit
		lim := l.Within(old, syscall.Getrlimit(l.Resource, &old) == nil)
		if err := syscall.Setrlimit(l.Resource, &lim); err != nil {
			return fail("setrlimit "+l.Name, err)
		}
	}
	unblockSignals()
	var e syscall.Errno
	for range textBusyRetries {
		if useFD {
			// execveat(fd, "", AT_EMPTY_PATH) needs only execute permission on the file itself.
			_, _, e = syscall.RawSyscall6(sysExecveat, uintptr(fd), uintptr(unsafe.Pointer(emptyp)),
				uintptr(unsafe.Pointer(&argvp[0])), uintptr(unsafe.Pointer(&envp[0])), atEmptyPath, 0)
		} else {
			_, _, e = syscall.RawSyscall(syscall.SYS_EXECVE, uintptr(unsafe.Pointer(pathp)),
				uintptr(unsafe.Pointer(&argvp[0])), uintptr(unsafe.Pointer(&envp[0])))
		}
		if e != syscall.ETXTBSY {
			break
		}
		syscall.RawSyscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&textBusyPause)), 0, 0)
	}
	report = append(report, execStage...)
	if msg := e.Error(); len(msg) <= 256 {
		report = append(report, msg...)
	}
	syscall.Write(repFD, report)
	return ExitStatus
}

// Limit is one resource limit a program starts under: soft limit Cur, hard limit Max.
type Limit struct {
	Name     string // e.g. "RLIMIT_CPU", for messages
	Resource int
	Cur, Max uint64
}

// Limits returns the resource limits the settings ask for, in the order they are applied,
// without those left Unlimited: no core files; CPU with a hard limit a second above the
// soft one (SIGXCPU at the limit, SIGKILL a second later); file size; open files; address
// space; and last the processes, since with too low a count a Go runtime could no longer
// start a thread.
func (s Settings) Limits() []Limit {
	all := [...]struct {
		name     string
		resource int
		soft     int64
		hardPlus int64
	}{
		{"RLIMIT_CORE", syscall.RLIMIT_CORE, 0, 0},
		{"RLIMIT_CPU", syscall.RLIMIT_CPU, s.CPU, 1},
		{"RLIMIT_FSIZE", syscall.RLIMIT_FSIZE, s.FSize, 0},
		{"RLIMIT_NOFILE", syscall.RLIMIT_NOFILE, s.NoFile, 0},
		{"RLIMIT_AS", syscall.RLIMIT_AS, s.AS, 0},
		{"RLIMIT_NPROC", rlimitNproc, s.NProc, 0},
	}
	var out []Limit
	for _, l := range all {
		if l.soft >= 0 {
			out = append(out, Limit{l.name, l.resource, uint64(l.soft), uint64(l.soft + l.hardPlus)})
		}
	}
	return out
}

// Within returns the limit as the process whose current limit is old may set it (known
// says whether old could be read): an unprivileged harness cannot raise a hard limit, so
// a lower hard limit it has is kept.
func (l Limit) Within(old syscall.Rlimit, known bool) syscall.Rlimit {
	lim := syscall.Rlimit{Cur: l.Cur, Max: l.Max}
	if known && old.Max != math.MaxUint64 && old.Max < lim.Max {
		lim.Max = old.Max
		lim.Cur = min(lim.Cur, old.Max)
	}
	return lim
}

// withUserTasks returns the settings with a relative process limit (NProcRel) made
// absolute for a program running as uid: the user's tasks now, plus NProc. The kernel does
// not hold root to RLIMIT_NPROC, so for root nothing is counted (every process of the
// machine, each /proc entry read, would only cost time on every start).
func (s Settings) withUserTasks(uid int) Settings {
	if s.NProcRel && s.NProc >= 0 && uid != 0 {
		s.NProc += int64(userTasks(uid))
		s.NProcRel = false
	}
	return s
}

// withUserTasksAsProgram is withUserTasks counted by the process that becomes the program
// (the role, about to exec it): the role's threads, all but the one that execs, end with
// the exec, so the role counts as the one task the program will be. Counted whole, they
// gave the program a few more processes than its limit (sandbox's
// TestUnboxedProgramGetsItsProcessLimit).
func (s Settings) withUserTasksAsProgram(uid int) Settings {
	if !s.NProcRel || s.NProc < 0 || uid == 0 {
		return s
	}
	s = s.withUserTasks(uid)
	if t := ownThreads(); t > 1 && os.Geteuid() == uid {
		s.NProc -= int64(t - 1)
	}
	return s
}

// ownThreads is how many threads this process has (/proc/self/status), or 0.
func ownThreads() int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	_, rest, ok := strings.Cut(string(b), "\nThreads:")
	if !ok {
		return 0
	}
	line, _, _ := strings.Cut(rest, "\n")
	n, _ := strconv.Atoi(strings.TrimSpace(line))
	return n
}

// joinCgroup moves this process into the cgroup whose cgroup.procs file is procs. Under
// cgroup v1 (a tasks file beside it) this thread moves itself, by writing 0 to the tasks
// file: the kernel then takes no lock on every thread group of the machine, where a pid
// written to cgroup.procs waits for an RCU grace period whenever no other move came in the
// last one (8 to 13 ms on a 2-core VM: 268 such waits, 2.2 s, in one grade). This thread
// alone is enough: the role's other threads run nothing but the runtime, the exec ends
// them, and this thread is the one that execs. Under v2 (no tasks file) the process moves
// by its pid.
func joinCgroup(procs string) error {
	fd, err := syscall.Open(tasksFile(procs), syscall.O_WRONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return os.WriteFile(procs, []byte(strconv.Itoa(os.Getpid())), 0)
	}
	defer syscall.Close(fd)
	_, err = syscall.Write(fd, []byte("0"))
	return err
}

// setIDs changes one of the credentials of this thread: setgroups to none (id unused),
// setgid or setuid to id. Linux keeps credentials per thread, the exec ends the other
// threads (which run nothing but the runtime until then), and this thread is the one that
// execs; telling every thread, as syscall.Setuid does, would stop the world and wait on
// each of them, a tenth of the role's CPU.
func setIDs(call uintptr, id int) error {
	if _, _, e := syscall.RawSyscall(call, uintptr(id), 0, 0); e != 0 {
		return e
	}
	return nil
}

// isHarnessBinary says whether the open program fd is the harness's own binary: this very
// file (a link to it), or the copy of it that the settings name.
func isHarnessBinary(fd int, self string) bool {
	var prog, st syscall.Stat_t
	if syscall.Fstat(fd, &prog) != nil {
		return false
	}
	for _, p := range []string{"/proc/self/exe", self} {
		if p != "" && syscall.Stat(p, &st) == nil && prog.Dev == st.Dev && prog.Ino == st.Ino {
			return true
		}
	}
	return false
}

// An exec fails with ETXTBSY while any process holds the file open for writing. That
// happens for a moment, through no fault of the subject, when a program was written just
// before (a test file, a copied submission) and a fork elsewhere in the harness copied the
// writer's descriptor: the fork's child drops it at its own exec. The exec is retried for
// up to textBusyRetries pauses of textBusyPause before the error counts.
const textBusyRetries = 200

var textBusyPause = syscall.NsecToTimespec(int64(time.Millisecond))

// peakRSS returns the peak resident set the kernel already counts for this process, in
// bytes: ru_maxrss. In the role it is what wait4 will report at the least whatever the
// program does: the role's own peak and, above all, the peak of the harness that forked
// it: the harness forks with CLONE_VM (vfork) and the exec folded the harness's peak into
// the process's maxrss (a harness of 96 MiB made every program it started report 96 MiB).
// The harness reads its own for a program it starts without the role, for the same
// reason. Reading it costs one system call, where /proc/self/status cost 1.5% of a
// fuzzing campaign's CPU.
func peakRSS() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Maxrss << 10
}

// userTasks counts the tasks (threads included) of the user's processes: what the kernel
// compares with RLIMIT_NPROC. It reads /proc itself (not through harness/box/hygiene, whose
// package would have to be initialised first).
func userTasks(uid int) int {
	entries, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		// The owner of /proc/PID is the process's effective user: only the user's own
		// processes are worth reading (the kernel renders status at some cost). A setuid
		// program the user runs shows another owner and is not counted, which makes the
		// limit stricter by that many tasks, never looser.
		var st syscall.Stat_t
		if syscall.Stat("/proc/"+e.Name(), &st) != nil || int(st.Uid) != uid {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/status")
		if err != nil {
			continue
		}
		owner, threads := -1, 0
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "Uid:"); ok {
				if f := strings.Fields(rest); len(f) > 0 {
					owner, _ = strconv.Atoi(f[0])
				}
			} else if rest, ok := strings.CutPrefix(line, "Threads:"); ok {
				threads, _ = strconv.Atoi(strings.TrimSpace(rest))
			}
		}
		if owner == uid {
			n += threads
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
	for sig := 1; sig <= 64; sig++ {
		if sig != int(syscall.SIGKILL) && sig != int(syscall.SIGSTOP) && ignored(sig) {
			var dfl kernelSigaction
			syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&dfl)), 0, 8, 0, 0)
		}
	}
}

// ignored says whether signal sig's action is to be ignored (SIG_IGN).
func ignored(sig int) bool {
	const sigIgn = 1
	var old kernelSigaction
	_, _, e := syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), 0,
		uintptr(unsafe.Pointer(&old)), 8, 0, 0)
	return e == 0 && old.handler == sigIgn
}

// unblockSignals empties the signal mask of the calling thread, which exec passes on.
func unblockSignals() {
	var none uint64
	syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, sigSetmask, uintptr(unsafe.Pointer(&none)), 0, 8, 0, 0)
}

// prctl calls prctl(2) with one argument.
func prctl(option, arg uintptr) error {
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, option, arg, 0); e != 0 {
		return e
	}
	return nil
}

// joinNet moves the calling thread into the network namespace that path names: in the
// role, the thread that execs (the exec ends the others).
func joinNet(path string) error {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	if _, _, e := syscall.RawSyscall(sysSetns, uintptr(fd), syscall.CLONE_NEWNET, 0); e != 0 {
		return e
	}
	return nil
}

// tasksFile is the cgroup v1 tasks file beside a group's cgroup.procs file: one thread moves
// by writing its id there.
func tasksFile(procs string) string {
	return procs[:strings.LastIndexByte(procs, '/')+1] + "tasks"
}

// LoopbackUp brings up the loopback interface of the calling thread's network namespace, so
// that programs of a run can talk over 127.0.0.1 (and nothing else). The sandbox calls it
// too, for a namespace several runs share.
func LoopbackUp() error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	var req [syscall.IFNAMSIZ + 24]byte
	copy(req[:], "lo")
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCGIFFLAGS, uintptr(unsafe.Pointer(&req[0]))); e != 0 {
		return e
	}
	flags := *(*uint16)(unsafe.Pointer(&req[syscall.IFNAMSIZ]))
	*(*uint16)(unsafe.Pointer(&req[syscall.IFNAMSIZ])) = flags | syscall.IFF_UP
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCSIFFLAGS, uintptr(unsafe.Pointer(&req[0]))); e != 0 {
		return e
	}
	return nil
}
