package hygiene

import (
	"bytes"
	"slices"
	"strconv"
	"syscall"

	"gauntlet/harness/box/rawfile"
)

// A PidMark is where the kernel's allocation of pids stood at one moment (MarkPids). Every
// process started since has a pid the kernel allocated since, and the kernel hands pids
// out in a cycle, so those pids lie between the last one allocated then and the last one
// allocated now, unless the cycle went round in between; the forks counted since, bounded
// against the size of the cycle, tell that apart. A scan for the processes a run made
// (which all started after the run did) then reads only those pids, where it read every
// process of the user (every process of the machine, for a root harness): ScanSince.
type PidMark struct {
	last  int    // the last pid allocated (the last field of /proc/loadavg)
	forks uint64 // tasks forked since boot (/proc/stat "processes")
	tasks int    // tasks alive, threads included (/proc/loadavg)
	ok    bool   // all three read
}

// MarkPids marks the pid allocation now. A mark that could not be read makes ScanSince
// read every process. Two files: /proc/loadavg has both the last pid allocated (as
// /proc/sys/kernel/ns_last_pid, which a kernel without checkpoint/restore lacks) and the
// tasks alive; /proc/stat the forks.
func MarkPids() PidMark {
	var m PidMark
	var buf [4096]byte // /proc/stat fits on a small machine; rawfile.Read grows it else
	load, err1 := rawfile.Read(procRoot+"/loadavg", buf[:0:128])
	stat, err2 := rawfile.Read(procRoot+"/stat", buf[128:128])
	if err1 != nil || err2 != nil {
		return m
	}
	// "processes N" in /proc/stat; "0.00 0.01 0.05 R/T PID" in /proc/loadavg.
	_, rest, ok1 := bytes.Cut(stat, []byte("\nprocesses "))
	n, _, _ := bytes.Cut(rest, []byte("\n"))
	forks, err3 := strconv.ParseUint(string(n), 10, 64)
	fields := bytes.Fields(load)
	var tasks, last int
	var err4, err5 error = strconv.ErrSyntax, strconv.ErrSyntax
	if len(fields) >= 5 {
		if _, t, ok := bytes.Cut(fields[3], []byte("/")); ok {
			tasks, err4 = strconv.Atoi(string(t))
		}
		last, err5 = strconv.Atoi(string(fields[4]))
	}
	if !ok1 || err3 != nil || err4 != nil || err5 != nil {
		return m
	}
	return PidMark{last: last, forks: forks, tasks: tasks, ok: true}
}

// Before says whether m was taken before o (an unread mark is before any other).
func (m PidMark) Before(o PidMark) bool { return !m.ok || o.ok && m.forks < o.forks }

// reservedPids are the pids the kernel skips when its cycle goes round.
const reservedPids = 300

// newSince returns a test of whether a pid may have been allocated between m and now (a
// mark taken now), or nil when the kernel's cycle of pids may have gone round since m, or
// either mark is unknown: then any pid may be new. In the cycle, the allocation moves past
// each pid it hands out and each pid in use it skips; since m, that is at most the forks
// counted since plus the pids in use at some point since (those alive at m and those
// handed out since): while that stays below the cycle's size, the new pids lie between
// the two marks' last pids.
func (m PidMark) newSince(now PidMark) func(pid int) bool {
	if !m.readBefore(now) {
		return nil
	}
	max, err := readIntFile(procRoot + "/sys/kernel/pid_max")
	if err != nil {
		return nil
	}
	return m.newSinceIn(now, max)
}

// readBefore says whether m and now were both read and m was taken first (or at the same
// count of forks): the only marks between which new pids can be told.
func (m PidMark) readBefore(now PidMark) bool { return m.ok && now.ok && now.forks >= m.forks }

// newSinceIn is newSince in a cycle of max pids.
func (m PidMark) newSinceIn(now PidMark, max int) func(pid int) bool {
	if !m.readBefore(now) {
		return nil
	}
	n := now.forks - m.forks
	if 2*n+uint64(m.tasks)+reservedPids >= uint64(max) {
		return nil
	}
	lo, hi := m.last, now.last
	if lo <= hi {
		return func(pid int) bool { return pid > lo && pid <= hi }
	}
	return func(pid int) bool { return pid > lo || pid <= hi }
}

// NewSince returns a test of whether a pid may have been allocated since mark m, taken
// now: every process started since m has a pid it accepts (processes listed before the
// call included). It returns nil when that cannot be told (the kernel's cycle of pids may
// have gone round, or a mark could not be read): then any pid may be new.
func (m PidMark) NewSince() func(pid int) bool { return m.newSince(MarkPids()) }

// newPids returns the pids the kernel may have allocated between m and now, when they are
// known (see newSince) and at most limit of them; else ok is false.
func (m PidMark) newPids(now PidMark, limit int) (pids []int, ok bool) {
	if !m.readBefore(now) {
		return nil, false
	}
	pidMax, err := readIntFile(procRoot + "/sys/kernel/pid_max")
	if err != nil || m.newSinceIn(now, pidMax) == nil {
		return nil, false
	}
	lo, hi := m.last, now.last
	spans := [][2]int{{lo + 1, hi}} // first and last pid of each span
	if lo > hi {
		spans = [][2]int{{lo + 1, pidMax - 1}, {1, hi}} // round the end of the cycle
	}
	n := 0
	for _, s := range spans {
		n += max(0, s[1]-s[0]+1)
	}
	if n > limit {
		return nil, false
	}
	pids = make([]int, 0, n)
	for _, s := range spans {
		for pid := s[0]; pid <= s[1]; pid++ {
			pids = append(pids, pid)
		}
	}
	return pids, true
}

// probeLimit is the most pids UserSince looks up one by one; past it, listing /proc is
// cheaper (a listing costs about what a hundred lookups of pids that are gone do).
var probeLimit = 128

// UserSince returns the live processes of user uid (as in Proc.UID) that may have started
// since mark m. When few pids were allocated since, it looks each one up instead of
// listing /proc: the cost follows what happened since the mark, not how many processes
// the machine has. Threads, which have pids too, are left out.
func UserSince(m PidMark, uid uint32) ([]Proc, error) {
	now := MarkPids()
	want := func(pid int, owner func() (uint32, bool)) bool {
		u, ok := owner()
		return ok && u == uid
	}
	if pids, ok := m.newPids(now, probeLimit); ok {
		return probePids(pids, want), nil
	}
	names, err := pidNames()
	if err != nil {
		return nil, err
	}
	isNew := m.newSince(now)
	return readPids(names, func(pid int, owner func() (uint32, bool)) bool {
		return (isNew == nil || isNew(pid)) && want(pid, owner)
	})
}

// probePids is readPids for pids looked up one by one, which may be gone or be threads'
// (a thread's id looks like a process's pid in /proc): only the processes among them that
// want accepts, given each one's pid and owner.
func probePids(pids []int, want func(pid int, owner func() (uint32, bool)) bool) []Proc {
	var procs []Proc
	for _, pid := range pids {
		var st syscall.Stat_t
		if syscall.Stat(procRoot+"/"+strconv.Itoa(pid), &st) != nil {
			continue // gone, or never used
		}
		if !want(pid, func() (uint32, bool) { return st.Uid, true }) || !leader(pid) {
			continue
		}
		if p, err := ReadProc(pid); err == nil {
			procs = append(procs, p)
		}
	}
	return procs
}

// leader says whether pid is the pid of a process (the leader of its thread group), not
// of one of its other threads.
func leader(pid int) bool {
	var buf [2048]byte
	status, err := rawfile.Read(procRoot+"/"+strconv.Itoa(pid)+"/status", buf[:0])
	if err != nil {
		return false
	}
	_, rest, ok := bytes.Cut(status, []byte("\nTgid:"))
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	tgid, err := strconv.Atoi(string(bytes.TrimSpace(line)))
	return ok && err == nil && tgid == pid
}

// ScanSince is Scan limited to the processes that may have started since mark m (every
// one, when that cannot be told; none, when m is nil), the pids of keep, and the processes
// whose owner keepOwner accepts (as in Proc.UID; each owner costs a stat of /proc/PID)
// among those that may have started since mark ownersSince (nil: among all). keepOwner may
// be nil. When few pids were allocated since the marks, it looks up those and keep's
// instead of listing /proc (as UserSince does): a run's sweeps then cost what the run did,
// where listing /proc was a twentieth of a boxed trivial case's CPU.
func ScanSince(m *PidMark, keep []int, keepOwner func(uid uint32) bool, ownersSince *PidMark) ([]Proc, error) {
	kept := make(map[int]bool, len(keep))
	for _, pid := range keep {
		kept[pid] = true
	}
	if procs, ok := probeSince(m, kept, keepOwner, ownersSince); ok {
		return procs, nil
	}
	names, err := pidNames()
	if err != nil {
		return nil, err
	}
	// Marked after the listing: every process listed that started since a mark has a pid
	// allocated before now.
	now := MarkPids()
	since := func(m *PidMark, none bool) func(int) bool {
		if m == nil {
			return func(int) bool { return !none }
		}
		if isNew := m.newSince(now); isNew != nil {
			return isNew
		}
		return func(int) bool { return true }
	}
	isNew, ownerMayKeep := since(m, true), since(ownersSince, false)
	return readPids(names, func(pid int, owner func() (uint32, bool)) bool {
		if isNew(pid) || kept[pid] {
			return true
		}
		if keepOwner == nil || !ownerMayKeep(pid) {
			return false
		}
		uid, ok := owner()
		return ok && keepOwner(uid)
	})
}

// probeSince is ScanSince by looking up each pid that may be wanted, when the marks tell
// few enough (ok); it returns ok false when /proc must be listed instead.
func probeSince(m *PidMark, kept map[int]bool, keepOwner func(uid uint32) bool, ownersSince *PidMark) (procs []Proc, ok bool) {
	if keepOwner != nil && ownersSince == nil {
		return nil, false // the owners of every process count
	}
	// Marked before the lookups: a process started after it started after the scan began.
	now := MarkPids()
	newPids := func(m *PidMark) (map[int]bool, bool) {
		if m == nil {
			return nil, true
		}
		pids, ok := m.newPids(now, probeLimit)
		set := make(map[int]bool, len(pids))
		for _, pid := range pids {
			set[pid] = true
		}
		return set, ok
	}
	isNew, ok1 := newPids(m)
	mayOwn := map[int]bool{}
	ok2 := true
	if keepOwner != nil {
		mayOwn, ok2 = newPids(ownersSince)
	}
	if !ok1 || !ok2 {
		return nil, false
	}
	var pids []int
	for _, set := range []map[int]bool{isNew, kept, mayOwn} {
		for pid := range set {
			pids = append(pids, pid)
		}
	}
	slices.Sort(pids)
	pids = slices.Compact(pids)
	return probePids(pids, func(pid int, owner func() (uint32, bool)) bool {
		if isNew[pid] || kept[pid] {
			return true
		}
		uid, ok := owner()
		return ok && keepOwner(uid)
	}), true
}

func readIntFile(path string) (int, error) {
	var buf [32]byte
	b, err := rawfile.Read(path, buf[:0])
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(string(bytes.TrimSpace(b)))
}
