package sandbox

import (
	"slices"
	"sync"
	"time"
)

// InitsUseRole makes the init of every box start its program through the exec role, as
// where traces are refused, until the returned function puts things back.
func InitsUseRole() (restore func()) {
	old := initsUseRole.Swap(true)
	return func() { initsUseRole.Store(old) }
}

// RolePid is the pid of the process the harness started for p: the exec role, or the init of
// p's PID namespace (the one that gets the parent-death signal).
func (p *Process) RolePid() int { return p.pid }

// NetHolder is the pid of a rootless Net's holder (0 as root).
func NetHolder(n *Net) int {
	if n.rootless == nil {
		return 0
	}
	return n.rootless.holder.Process.Pid
}

// SweepNow sweeps g's processes at once, as the tracker does every SweepInterval.
func SweepNow(g *Group) { g.trk.sweep(g.track) }

// SweepsAsked is how many sweeps were made for g alone (its finish's; the tracker's
// periodic sweeps serve every run and are not counted).
func SweepsAsked(g *Group) int {
	g.trk.mu.Lock()
	defer g.trk.mu.Unlock()
	return g.track.asked
}

// WaitForInits makes finish wait up to d for the inits of a run that left them nothing
// (nothingLeft), until restore.
func WaitForInits(d time.Duration) (restore func()) {
	old := initEndWait
	initEndWait = d
	return func() { initEndWait = old }
}

// AnyThreadRunnable is anyThreadRunnable, for the tests.
func AnyThreadRunnable(pid int) bool { return anyThreadRunnable(pid) }

// ThreadReads records, until restore, the processes whose threads the sweeps read (a
// sweep updates its runs under the tracker's lock, so the swap is safe while it runs).
func ThreadReads() (read func() []int, restore func()) {
	t := theTracker()
	var mu sync.Mutex
	var pids []int
	t.mu.Lock()
	old := threadsRunnable
	threadsRunnable = func(pid int) bool {
		mu.Lock()
		pids = append(pids, pid)
		mu.Unlock()
		return old(pid)
	}
	t.mu.Unlock()
	read = func() []int {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(pids)
	}
	restore = func() {
		t.mu.Lock()
		threadsRunnable = old
		t.mu.Unlock()
	}
	return read, restore
}
