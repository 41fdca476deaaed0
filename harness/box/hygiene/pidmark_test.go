package hygiene

import (
	"os"
	"os/exec"
	"runtime"
	"slices"
	"syscall"
	"testing"
)

// A mark reads on Linux (the tests of marks would skip without one): its last pid is at or
// after that of a process started just before, and it counts forks and tasks.
func TestMarkPids(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	m := MarkPids()
	pidMax, err := readIntFile("/proc/sys/kernel/pid_max")
	if err != nil {
		t.Fatal(err)
	}
	// The child's pid is at most the last one, unless the cycle went round in between.
	behind := (m.last - cmd.Process.Pid + pidMax) % pidMax
	if !m.ok || m.forks == 0 || m.tasks == 0 || behind > 1000 {
		t.Errorf("mark %+v, want one read, at or after the pid %d of a process started before it", m, cmd.Process.Pid)
	}
}

// A scan since a mark reads the processes started after it (and the pids asked for), not
// the older ones nor threads; once the kernel's cycle of pids may have gone round, it reads
// them all. The answers are the same whether it looks up each new pid or, past
// probeLimit, lists /proc.
func TestScanSince(t *testing.T) {
	m := MarkPids()
	if !m.ok {
		t.Skip("no pid mark on this machine: ScanSince reads every process")
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	newTids := newThreads(t, m)
	pidsOf := func(procs []Proc, err error) []int {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var pids []int
		for _, p := range procs {
			pids = append(pids, p.Pid)
		}
		if slices.ContainsFunc(pids, func(pid int) bool { return slices.Contains(newTids, pid) }) {
			t.Errorf("threads %v read as processes: %v", newTids, pids)
		}
		return pids
	}
	child, self := cmd.Process.Pid, os.Getpid()
	mine := func(uid uint32) bool { return uid == uint32(os.Geteuid()) }
	defer func(limit int) { probeLimit = limit }(probeLimit)
	for _, limit := range []int{probeLimit, 0} {
		probeLimit = limit
		got := pidsOf(ScanSince(&m, nil, nil, nil))
		if !slices.Contains(got, child) || slices.Contains(got, self) || slices.Contains(got, 1) {
			t.Errorf("probe limit %d, since the mark: %v, want the child %d and neither this process %d nor init", limit, got, child, self)
		}
		got = pidsOf(ScanSince(nil, []int{self}, nil, nil))
		if !slices.Equal(got, []int{self}) {
			t.Errorf("probe limit %d, no mark, this pid asked for: %v, want [%d]", limit, got, self)
		}
		got = pidsOf(ScanSince(nil, nil, mine, nil))
		if !slices.Contains(got, child) || !slices.Contains(got, self) {
			t.Errorf("probe limit %d, no mark, this user's: %v, want the child %d and this process %d", limit, got, child, self)
		}
		got = pidsOf(ScanSince(nil, nil, mine, &m))
		if !slices.Contains(got, child) || slices.Contains(got, self) {
			t.Errorf("probe limit %d, no mark, this user's since the mark: %v, want the child %d and not this process %d", limit, got, child, self)
		}
		got = pidsOf(ScanSince(nil, nil, func(uint32) bool { return false }, &m))
		if len(got) != 0 {
			t.Errorf("probe limit %d, no mark, no owner's: %v, want none", limit, got)
		}
	}
	// A mark from a whole cycle of forks ago: any pid may be new.
	max, err := readIntFile("/proc/sys/kernel/pid_max")
	if err != nil {
		t.Fatal(err)
	}
	old := m
	old.forks -= uint64(max) / 2
	got := pidsOf(ScanSince(&old, nil, nil, nil))
	if !slices.Contains(got, 1) || !slices.Contains(got, self) {
		t.Errorf("since a mark a cycle ago: %v, want every process", got)
	}
}

// newThreads starts threads of this process (ended with the test) and returns those whose
// ids are new since mark m: their ids look like pids, but they are no processes. Each
// goroutine holds a thread of its own; idle threads are used first, so several make sure
// of new ones.
func newThreads(t *testing.T, m PidMark) []int {
	t.Helper()
	tids, done := make(chan int), make(chan struct{})
	t.Cleanup(func() { close(done) })
	for range 8 {
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			tids <- syscall.Gettid()
			<-done
		}()
	}
	var all, fresh []int
	for range 8 {
		all = append(all, <-tids)
	}
	isNew := m.newSince(MarkPids())
	for _, tid := range all {
		if isNew != nil && isNew(tid) {
			fresh = append(fresh, tid)
		}
	}
	if len(fresh) == 0 {
		t.Fatal("no thread started since the mark")
	}
	return fresh
}

// The pids allocated between two marks: between their last pids, or round the end of the
// cycle when the later one is lower; none when the cycle may have gone round.
func TestNewSince(t *testing.T) {
	max, err := readIntFile("/proc/sys/kernel/pid_max")
	if err != nil {
		t.Fatal(err)
	}
	mark := func(last int, forks uint64) PidMark { return PidMark{last: last, forks: forks, tasks: 100, ok: true} }
	in := func(isNew func(int) bool, pids ...int) []int {
		var out []int
		for _, p := range pids {
			if isNew(p) {
				out = append(out, p)
			}
		}
		return out
	}
	if got := in(mark(1000, 50).newSince(mark(1200, 250)), 999, 1000, 1001, 1200, 1201); !slices.Equal(got, []int{1001, 1200}) {
		t.Errorf("plain: %v, want [1001 1200]", got)
	}
	if got := in(mark(max-10, 50).newSince(mark(400, 200)), max-11, max-10, max-9, 300, 400, 401); !slices.Equal(got, []int{max - 9, 300, 400}) {
		t.Errorf("round the end: %v, want [%d 300 400]", got, max-9)
	}
	for _, tc := range []struct {
		name     string
		from, to PidMark
	}{
		{"a cycle of forks", mark(1000, 50), mark(1200, 50+uint64(max)/2)},
		{"an unread mark", PidMark{}, mark(1200, 250)},
		{"marks out of order", mark(1000, 250), mark(1200, 50)},
	} {
		if tc.from.newSince(tc.to) != nil {
			t.Errorf("%s: a range of new pids, want none (any pid may be new)", tc.name)
		}
	}
}

// UserSince finds the processes of a user started since a mark, by looking up each new pid
// or, past probeLimit, by listing /proc: the same answer either way, threads left out.
func TestUserSince(t *testing.T) {
	m := MarkPids()
	if !m.ok {
		t.Skip("no pid mark on this machine")
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	// Threads of this process started since the mark: their pids are new, but they are no
	// processes.
	newTids := newThreads(t, m)
	defer func(limit int) { probeLimit = limit }(probeLimit)
	for _, limit := range []int{probeLimit, 0} {
		probeLimit = limit
		procs, err := UserSince(m, uint32(os.Geteuid()))
		if err != nil {
			t.Fatal(err)
		}
		var pids []int
		for _, p := range procs {
			pids = append(pids, p.Pid)
		}
		if !slices.Contains(pids, cmd.Process.Pid) || slices.Contains(pids, os.Getpid()) || slices.ContainsFunc(pids, func(pid int) bool { return slices.Contains(newTids, pid) }) {
			t.Errorf("probe limit %d: %v, want the child %d, and neither the threads %v nor this process", limit, pids, cmd.Process.Pid, newTids)
		}
		if procs, _ := UserSince(m, 12345678); len(procs) != 0 {
			t.Errorf("probe limit %d: a user with no process has %v", limit, procs)
		}
	}
}

// The new pids of a mark run round the end of the kernel's cycle when the later mark's last
// pid is lower, and are not listed past the limit.
func TestNewPids(t *testing.T) {
	pidMax, err := readIntFile("/proc/sys/kernel/pid_max")
	if err != nil {
		t.Fatal(err)
	}
	m := PidMark{last: pidMax - 3, forks: 10, tasks: 50, ok: true}
	now := PidMark{last: 2, forks: 14, tasks: 50, ok: true}
	if pids, ok := m.newPids(now, 10); !ok || !slices.Equal(pids, []int{pidMax - 2, pidMax - 1, 1, 2}) {
		t.Errorf("round the end: %v %v, want [%d %d 1 2]", pids, ok, pidMax-2, pidMax-1)
	}
	if _, ok := m.newPids(now, 3); ok {
		t.Error("four new pids listed under a limit of three")
	}
	m.last, now.last = 100, 103
	if pids, ok := m.newPids(now, 10); !ok || !slices.Equal(pids, []int{101, 102, 103}) {
		t.Errorf("%v %v, want [101 102 103]", pids, ok)
	}
	now.forks = m.forks + uint64(pidMax) // the cycle may have gone round
	if _, ok := m.newPids(now, 1<<30); ok {
		t.Error("new pids listed when the cycle may have gone round")
	}
}
