// Package hygiene inspects what a subject program leaves behind and why it hangs, from
// outside and without its cooperation: it reads /proc (Linux only) and walks the subject's
// working directory.
//
// It offers three things, all plain functions over snapshots so the sandbox (and tests) can
// call them at the moments they choose:
//
//   - Scan reads every process of the machine (pid, parent, group, session, owner, state,
//     start time, CPU time); the sandbox uses it to find the processes a run created, even
//     those that left the run's session with setsid() or were orphaned by a double fork.
//   - Diagnose samples hung processes a few times and tells a deadlock (everyone blocked
//     reading or waiting for another process), a busy loop (CPU time growing), a write blocked
//     on a full pipe, and a plain sleep apart.
//   - SnapshotDir and DiffDirs list the files a run created, changed or removed.
//
// Findings are facts with the evidence that supports them; the verdict built on them belongs
// to the caller.
package hygiene

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"gauntlet/harness/box/rawfile"
)

// procRoot is where the proc file system is mounted.
const procRoot = "/proc"

// Proc is one process as /proc showed it at one moment.
type Proc struct {
	Pid   int
	PPid  int
	Pgid  int
	Sid   int
	UID   uint32 // owner of the folder /proc/PID: the effective uid, dumpable or not
	State byte   // R running, S sleeping, D disk wait, Z zombie, T stopped, t traced, ...
	Comm  string // the command name the kernel keeps (at most 15 bytes)
	// Start is the start time in clock ticks after boot: with Pid it names a process
	// uniquely, so a recycled pid is never mistaken for the process seen before.
	Start uint64
	// CPUTicks is user plus system CPU time in clock ticks (1/100 s on Linux).
	CPUTicks uint64
	// ChildTicks is the CPU time, in clock ticks, of its children that it reaped (and of
	// theirs that they reaped): the kernel adds a child's time to its parent's on reaping.
	ChildTicks uint64
	Threads    int
}

// Zombie reports whether the process has ended but not been reaped by its parent: all its
// threads have ended. The state in /proc/PID/stat is the first thread's: a process whose
// first thread ended (pthread_exit in main) while others run shows Z, and lives on.
func (p Proc) Zombie() bool { return (p.State == 'Z' || p.State == 'X') && p.Threads <= 1 }

// ErrGone is returned by ReadProc for a process that no longer exists.
var ErrGone = errors.New("process gone")

// ReadProc reads /proc/PID/stat and its owner. It uses raw system calls and a buffer on the
// stack: the sandbox scans every process of the machine ten times a second while runs go.
func ReadProc(pid int) (Proc, error) {
	p, err := readStat(pid)
	if err != nil {
		return Proc{}, err
	}
	// The owner of the folder /proc/PID is the process's effective uid. Not that of its
	// files: the kernel shows those as root's while the process is not dumpable, which a
	// process may choose (prctl) to hide whose it is.
	var st syscall.Stat_t
	if err := syscall.Stat(procRoot+"/"+strconv.Itoa(pid), &st); err != nil {
		return Proc{}, ErrGone
	}
	p.UID = st.Uid
	return p, nil
}

// readStat reads /proc/PID/stat alone (ReadProc without the owner).
func readStat(pid int) (Proc, error) {
	path := procRoot + "/" + strconv.Itoa(pid) + "/stat"
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		if err == syscall.ENOENT || err == syscall.ESRCH {
			return Proc{}, ErrGone
		}
		return Proc{}, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var buf [1024]byte
	n, err := syscall.Read(fd, buf[:])
	if err != nil || n <= 0 {
		return Proc{}, ErrGone // the process ended between open and read
	}
	p, err := parseStat(buf[:n])
	if err != nil {
		return Proc{}, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// parseStat parses the contents of /proc/PID/stat. The command name sits in parentheses and
// may itself contain spaces and parentheses, so the fields are counted from the last ')'.
func parseStat(b []byte) (Proc, error) {
	open := bytes.IndexByte(b, '(')
	closing := bytes.LastIndexByte(b, ')')
	if open < 0 || closing < open {
		return Proc{}, errors.New("malformed stat")
	}
	var p Proc
	pid, err := strconv.Atoi(strings.TrimSpace(string(b[:open])))
	if err != nil {
		return Proc{}, errors.New("malformed pid")
	}
	p.Pid = pid
	p.Comm = string(b[open+1 : closing])
	f := strings.Fields(string(b[closing+1:]))
	// f[0] state, f[1] ppid, f[2] pgrp, f[3] session, f[11] utime, f[12] stime,
	// f[13] cutime, f[14] cstime, f[17] num_threads, f[19] starttime (proc(5), counting
	// from field 3).
	if len(f) < 20 || len(f[0]) != 1 {
		return Proc{}, errors.New("short stat")
	}
	p.State = f[0][0]
	nums := []struct {
		i   int
		dst *int
	}{{1, &p.PPid}, {2, &p.Pgid}, {3, &p.Sid}, {17, &p.Threads}}
	for _, n := range nums {
		v, err := strconv.Atoi(f[n.i])
		if err != nil {
			return Proc{}, fmt.Errorf("field %d: %w", n.i+3, err)
		}
		*n.dst = v
	}
	utime, err1 := strconv.ParseUint(f[11], 10, 64)
	stime, err2 := strconv.ParseUint(f[12], 10, 64)
	start, err3 := strconv.ParseUint(f[19], 10, 64)
	cutime, err4 := strconv.ParseUint(f[13], 10, 64)
	cstime, err5 := strconv.ParseUint(f[14], 10, 64)
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
		return Proc{}, err
	}
	p.CPUTicks = utime + stime
	p.ChildTicks = cutime + cstime
	p.Start = start
	return p, nil
}

// pidNames lists the names of the process folders of /proc.
func pidNames() ([]string, error) {
	names, err := rawfile.Names(procRoot)
	if err != nil {
		return nil, err
	}
	pids := names[:0]
	for _, name := range names {
		if name != "" && name[0] >= '0' && name[0] <= '9' {
			pids = append(pids, name)
		}
	}
	return pids, nil
}

// Scan reads every process in /proc. Processes that end while it reads are left out.
func Scan() ([]Proc, error) { return ScanWhere(nil) }

// ScanWhere is Scan limited to the processes keep accepts (nil: all), given each one's pid
// and owner (the owner of /proc/PID, as in Proc.UID). The owner costs one stat of the
// folder, where reading a process makes the kernel render its stat file: a caller that
// wants the processes of a few users (the sandbox users of the runs under way) skips
// rendering everyone else's.
func ScanWhere(keep func(pid int, uid uint32) bool) ([]Proc, error) {
	names, err := pidNames()
	if err != nil {
		return nil, err
	}
	return readPids(names, func(pid int, owner func() (uint32, bool)) bool {
		if keep == nil {
			return true
		}
		uid, ok := owner()
		return ok && keep(pid, uid)
	})
}

// readPids reads the processes of names (pids, as /proc lists them) that want accepts,
// given the pid and a way to learn the owner (one stat of /proc/PID).
func readPids(names []string, want func(pid int, owner func() (uint32, bool)) bool) ([]Proc, error) {
	procs := make([]Proc, 0, len(names))
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		owner := func() (uint32, bool) {
			var st syscall.Stat_t
			if syscall.Stat(procRoot+"/"+name, &st) != nil {
				return 0, false
			}
			return st.Uid, true
		}
		if !want(pid, owner) {
			continue
		}
		p, err := ReadProc(pid)
		if err != nil {
			continue // gone, or unreadable: nothing to learn from it
		}
		procs = append(procs, p)
	}
	return procs, nil
}

// Owners returns the owner of every process in /proc: the effective uid, as in Proc.UID.
// It reads no file: one stat of each /proc/PID, where Scan opens and reads each process's
// stat, so a caller that needs only the users (the pool of sandbox users) pays a fraction
// of a scan.
func Owners() (map[uint32]bool, error) {
	names, err := pidNames()
	if err != nil {
		return nil, err
	}
	owners := map[uint32]bool{}
	for _, name := range names {
		var st syscall.Stat_t
		if syscall.Stat(procRoot+"/"+name, &st) == nil {
			owners[st.Uid] = true
		}
	}
	return owners, nil
}

// Alive reports whether a process with this pid and start time still exists (a zombie
// counts as existing: it still holds its pid).
func Alive(pid int, start uint64) bool {
	p, err := ReadProc(pid)
	return err == nil && p.Start == start
}

// maxCmdline bounds what Cmdline reads, so a subject with a huge argv cannot make the
// harness copy it.
const maxCmdline = 256

// Cmdline returns the process's argument list joined by spaces, cut to a few hundred bytes
// (for findings and diagnoses meant for people). It returns "" when it cannot be read,
// e.g. for a zombie.
func Cmdline(pid int) string {
	f, err := os.Open(procRoot + "/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, maxCmdline+1)
	n, _ := f.Read(buf)
	cut := n > maxCmdline
	if cut {
		n = maxCmdline
	}
	s := strings.TrimRight(string(buf[:n]), "\x00")
	s = strings.ReplaceAll(s, "\x00", " ")
	if cut {
		s += "..."
	}
	return s
}

// maxEnviron bounds how much of a process's environment EnvValue reads.
const maxEnviron = 1 << 16

// EnvValue returns the value of variable name in the environment the process was started
// with (the block the kernel keeps from execve; later setenv calls do not show), searching
// only its first 64 KiB. ok is false when the variable is absent or the environment cannot
// be read (another user's process, a zombie).
func EnvValue(pid int, name string) (value string, ok bool) {
	f, err := os.Open(procRoot + "/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return "", false
	}
	defer f.Close()
	buf := make([]byte, maxEnviron)
	n := 0
	for n < len(buf) {
		m, err := f.Read(buf[n:])
		n += m
		if err != nil || m == 0 {
			break
		}
	}
	prefix := name + "="
	for _, e := range bytes.Split(buf[:n], []byte{0}) {
		if v, found := strings.CutPrefix(string(e), prefix); found {
			return v, true
		}
	}
	return "", false
}

// MayBeReaping reports whether a process may be about to reap a child that has ended: one of
// its threads is runnable (state R: woken, by the child's end or its SIGCHLD, and waiting only
// for a CPU) or is blocked in the kernel's wait (wchan do_wait: it is reaping another child
// first, as a hub that waits for its players in order does). A zombie seen while its parent
// may be reaping is not yet the parent's fault; one seen while every thread of the parent
// sleeps on something else (a read, a poll, a sleep) is. A process that cannot be read is
// reported as not reaping.
func MayBeReaping(pid int) bool {
	dir := procRoot + "/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, t := range tasks {
		b, err := os.ReadFile(dir + "/" + t.Name() + "/stat")
		if err != nil {
			continue
		}
		th, err := parseStat(b)
		if err != nil {
			continue
		}
		if th.State == 'R' {
			return true
		}
		if w, err := os.ReadFile(dir + "/" + t.Name() + "/wchan"); err == nil && isDoWait(strings.TrimSpace(string(w))) {
			return true
		}
	}
	return false
}
