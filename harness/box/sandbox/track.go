package sandbox

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"gauntlet/harness/box/hygiene"
)

// SweepInterval is how often the sandbox looks at /proc while runs are in progress. Each
// look finds the processes every run has made (so that a child that double-forks away is
// seen while its parent still links it to the run), counts them, and notes zombies that
// their parents leave unreaped.
const SweepInterval = 100 * time.Millisecond

// A zombie's parent is reported for not reaping it once the zombie has been seen on at least
// ZombieSightings sweeps, spread over at least ZombieGrace, while the parent could have
// reaped it: every thread of the parent asleep on something other than a wait
// (hygiene.MayBeReaping). A sweep that finds the parent runnable (on a loaded machine, still
// waiting for a CPU to reap with) or reaping another child first does not count, so neither
// a slow machine nor a hub that waits for its players in order is blamed.
const (
	ZombieSightings = 3
	ZombieGrace     = time.Second
)

// zombieWatch is what the tracker has seen of one zombie.
type zombieWatch struct {
	first     time.Time // first sighting that counted
	sightings int       // sightings that counted
	reported  bool
}

// procKey names a process without ambiguity: a pid and the start time of its holder.
type procKey struct {
	pid   int
	start uint64
}

// runTrack is what the tracker knows of one run.
type runTrack struct {
	token string // value of TokenEnv in the run's processes
	uid   int    // owner of the run's processes when exclusive, else -1
	// delegate is the one other user a run of the harness's user starts its programs as
	// (Identity.Delegate), else 0 (never a sandbox user): the scans need only its
	// processes and the run's own.
	delegate int
	from     hygiene.PidMark          // the pid allocation before the run's first start
	sids     map[int]bool             // sessions of the processes the harness started (their pids)
	marks    map[int]uint64           // processes of the run seen at the last sweep: pid -> start
	roots    map[int]uint64           // the processes the harness started
	inits    map[int]uint64           // the roots that are the harness's inits (isInit)
	zseen    map[procKey]*zombieWatch // zombies with a live parent of the run
	zombs    []hygiene.Finding
	peak     int // most live processes seen at once
	total    int // distinct processes seen
	asked    int // sweeps asked for this run alone (tracker.sweep with it)
	// cpu is the CPU time (clock ticks) of the run's live processes at the last sweep, and
	// quiet when the sweeps began to see the run use none and have no process runnable
	// (zero while it does).
	cpu   uint64
	quiet time.Time
}

// sharedScan hands out scans of /proc that began after each caller asked: callers that
// ask while a scan runs wait for the next one, which serves them all. Many runs of a grade
// end together, and each must look at /proc after its programs ended: one scan then
// answers them all instead of one each.
type sharedScan struct {
	// scan reads /proc (nil: hygiene.Scan, every process).
	scan    func() ([]hygiene.Proc, error)
	mu      sync.Mutex
	done    *sync.Cond
	running bool
	gen     uint64         // scans completed
	procs   []hygiene.Proc // the last scan's
}

// since returns a scan of /proc that began after the call.
func (s *sharedScan) since() []hygiene.Proc {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done == nil {
		s.done = sync.NewCond(&s.mu)
	}
	want := s.gen + 1
	if s.running {
		want++ // the scan under way began before this call
	}
	for s.gen < want {
		if s.running {
			s.done.Wait()
			continue
		}
		s.running = true
		s.mu.Unlock()
		scan := s.scan
		if scan == nil {
			scan = hygiene.Scan
		}
		procs, _ := scan()
		s.mu.Lock()
		s.procs, s.running = procs, false
		s.gen++
		s.done.Broadcast()
	}
	return s.procs
}

// tracker watches /proc for every active run. One sweep serves all runs.
type tracker struct {
	scans   sharedScan
	mu      sync.Mutex
	runs    map[*runTrack]bool
	foreign map[procKey]string // token of processes whose environment was read ("" none)
	wake    chan struct{}
	// setupErr is why the tracker cannot do its job (it could not become a subreaper).
	setupErr error
}

var (
	trk     *tracker
	trkOnce sync.Once
	selfPid = os.Getpid()
)

// theTracker starts the tracker on first use. It also makes the harness a child subreaper:
// orphans of the subject are reparented to the harness instead of init, so they remain
// findable and the harness can reap them.
func theTracker() *tracker {
	trkOnce.Do(func() {
		trk = &tracker{runs: map[*runTrack]bool{}, foreign: map[procKey]string{}, wake: make(chan struct{}, 1)}
		trk.scans.scan = trk.scanRuns
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			// Without it the run's orphans go to init, out of the harness's reach: every
			// Start reports it rather than run without the guarantee.
			trk.setupErr = fmt.Errorf("sandbox: cannot become the subreaper of the runs' orphans: %w", err)
		}
		go trk.loop()
	})
	return trk
}

func (t *tracker) add(r *runTrack) {
	t.mu.Lock()
	t.runs[r] = true
	t.mu.Unlock()
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

func (t *tracker) remove(r *runTrack) {
	t.mu.Lock()
	delete(t.runs, r)
	t.mu.Unlock()
}

// loop sweeps every SweepInterval while some run is active, and sleeps otherwise.
func (t *tracker) loop() {
	tick := time.NewTicker(SweepInterval)
	defer tick.Stop()
	for {
		t.mu.Lock()
		idle := len(t.runs) == 0
		t.mu.Unlock()
		if idle {
			<-t.wake
			continue
		}
		<-tick.C
		t.sweep(nil)
	}
}

// scanRuns reads the processes of /proc that the runs under way can own. A run with a
// sandbox user of its own owns only that user's processes, and the ones the harness
// started (the exec role begins as the harness's user and becomes the sandbox user before
// the program's first instruction): none of its processes can take another user, as the
// role sets no_new_privs (a setuid program keeps its caller's user). The other processes
// are only stat'ed, not read. A run of the harness's user with a delegate (a judge) owns
// the processes the harness started, the delegate's, and what earlier sweeps saw of it:
// its programs start nothing as another user (Identity.Delegate). While a run without a
// user of its own or a delegate is under way (the harness's user, or one it shares), any
// process of any user may be its, but only one that started after the run did: every
// process whose pid the kernel may have allocated since the oldest such run began is read
// (hygiene.ScanSince; every process, when the kernel's cycle of pids may have gone round).
func (t *tracker) scanRuns() ([]hygiene.Proc, error) {
	t.mu.Lock()
	uids := map[uint32]bool{}
	var pids []int              // the processes the runs started, and those seen at the last sweep
	var since *hygiene.PidMark  // the oldest run's that may own any process
	var oldest *hygiene.PidMark // the oldest run's of all
	for r := range t.runs {
		switch {
		case r.uid >= 0:
			uids[uint32(r.uid)] = true
		case r.delegate > 0:
			uids[uint32(r.delegate)] = true
		case since == nil || r.from.Before(*since):
			since = &r.from
		}
		if oldest == nil || r.from.Before(*oldest) {
			oldest = &r.from
		}
		for pid := range r.roots {
			pids = append(pids, pid)
		}
		for pid := range r.marks {
			pids = append(pids, pid)
		}
	}
	t.mu.Unlock()
	var keepOwner func(uint32) bool
	if len(uids) > 0 {
		keepOwner = func(uid uint32) bool { return uids[uid] }
	}
	// A process of a run's user (or delegate) started after the oldest live run began: a
	// user that comes back to a pool, or to a case's later run, has none of an earlier run
	// left (the last of its runs to finish, and the pool, kill every one since the first
	// began: clearUser), so the owners of older processes need no look.
	return hygiene.ScanSince(since, pids, keepOwner, oldest)
}

// sweep scans /proc once and updates every run (or only r, when r is not nil). It returns
// the processes of r as found, zombies included. The scan is one that began after the call
// (sharedScan), shared with the runs that ask at the same moment.
func (t *tracker) sweep(r *runTrack) []hygiene.Proc {
	procs := t.scans.since()
	t.mu.Lock()
	defer t.mu.Unlock()
	if r != nil {
		r.asked++
	}
	byPid := make(map[int]int, len(procs))
	children := map[int][]int{}
	live := map[procKey]bool{}
	for i, p := range procs {
		byPid[p.Pid] = i
		children[p.PPid] = append(children[p.PPid], i)
		live[procKey{p.Pid, p.Start}] = true
	}
	for k := range t.foreign {
		if !live[k] {
			delete(t.foreign, k)
		}
	}
	var out []hygiene.Proc
	for run := range t.runs {
		if r != nil && run != r {
			continue
		}
		mine := t.update(run, procs, byPid, children)
		if run == r {
			out = mine
		}
	}
	return out
}

// update finds the processes of one run in a scan: those seen before (same start time),
// those in the sessions of the processes the harness started, those owned by the run's own
// user while no other live run holds it, orphans carrying the run's token, and every
// descendant of these.
func (t *tracker) update(r *runTrack, procs []hygiene.Proc, byPid map[int]int, children map[int][]int) []hygiene.Proc {
	now := time.Now()
	// A user's processes are the run's only while no other live run holds the user: a
	// case's runs overlap when one is in the background, and each has its own processes.
	byOwner := r.uid >= 0 && aloneWith(r.uid)
	mine := map[int]bool{}
	var queue []int
	for i, p := range procs {
		ok := false
		start, known := r.marks[p.Pid]
		switch {
		case known && start == p.Start:
			ok = true
		case r.sids[p.Sid]:
			ok = true
		case byOwner && int(p.UID) == r.uid:
			ok = true
		case (p.PPid == selfPid || p.PPid == 1) && !p.Zombie():
			key := procKey{p.Pid, p.Start}
			tok, seen := t.foreign[key]
			if !seen {
				tok, _ = hygiene.EnvValue(p.Pid, TokenEnv)
				t.foreign[key] = tok
			}
			ok = tok == r.token
		}
		if ok && !mine[i] {
			mine[i] = true
			queue = append(queue, i)
		}
	}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		if procs[i].Pid == selfPid {
			continue // never the harness, whatever a subject does
		}
		for _, c := range children[procs[i].Pid] {
			if !mine[c] {
				mine[c] = true
				queue = append(queue, c)
			}
		}
	}
	marks := make(map[int]uint64, len(mine))
	var out []hygiene.Proc
	alive := 0
	for i := range mine {
		p := procs[i]
		if p.Pid == selfPid {
			continue
		}
		if _, seen := r.marks[p.Pid]; !seen {
			r.total++
		}
		marks[p.Pid] = p.Start
		out = append(out, p)
		if !p.Zombie() {
			alive++
			continue
		}
		// A zombie whose parent is a live process of the run: the parent has not reaped it
		// (see ZombieSightings for when that is the parent's fault).
		if j, ok := byPid[p.PPid]; ok && mine[j] && !procs[j].Zombie() && p.PPid != selfPid {
			key := procKey{p.Pid, p.Start}
			w := r.zseen[key]
			if w == nil {
				w = &zombieWatch{}
				r.zseen[key] = w
			}
			if !w.reported && !r.isInit(procs[j]) && !hygiene.MayBeReaping(p.PPid) {
				if w.sightings == 0 {
					w.first = now
				}
				w.sightings++
				if w.sightings >= ZombieSightings && now.Sub(w.first) >= ZombieGrace {
					w.reported = true
					r.zombs = append(r.zombs, hygiene.Finding{Kind: hygiene.Zombie, Pid: p.Pid, PPid: p.PPid, Command: p.Comm})
				}
			}
		}
	}
	for k := range r.zseen {
		if marks[k.pid] != k.start {
			delete(r.zseen, k)
		}
	}
	r.marks = marks
	r.peak = max(r.peak, alive)
	var cpu uint64
	runnable := false
	for _, p := range out {
		if !p.Zombie() {
			cpu += p.CPUTicks
			runnable = runnable || p.State == 'R' || p.State == 'D'
			// A starved thread uses no CPU between two sweeps; the process's state is its
			// first thread's (a Go program's often asleep while another thread waits for
			// a CPU): a run on a loaded machine must not look quiet for that. Not an init
			// of the harness's, whose work (starting the program, reaping, copying a
			// folder back) is on its first thread, the others the Go runtime's.
			if !runnable && p.Threads > 1 && !r.isInit(p) {
				runnable = threadsRunnable(p.Pid)
			}
		}
	}
	switch {
	case alive == 0:
		// Nothing of the run is left to wait on anything: it is ending (the harness's
		// own work after it, which a loaded machine can make long), not quiet. A grade
		// that took it for quiet gave its slot to the next case (with -j 1, two cases
		// ran at once, and -failfast started a case after the first failure).
		r.quiet = time.Time{}
	case runnable || cpu != r.cpu:
		r.cpu, r.quiet = cpu, time.Time{}
	case r.quiet.IsZero():
		r.quiet = now
	}
	return out
}

// isInit says whether p is one of the run's inits (the harness's own: trackRoot).
//
// The sweeps never read an init's threads (/proc/PID/task): a thread's folder looked up
// there stays in the kernel's cache under the init's, and when the init ends, its last
// thread's exit flushes that folder while the harness, woken by the same exit, reaps the
// init and flushes the init's: the reap then spins until the thread, which a loaded
// machine may hold off the CPU for milliseconds, has finished (about 10 ms of the
// harness's CPU per case run on 2 busy cores, half its CPU in a grade). An init always
// reaps (execrole's reap), so a zombie it has not reaped yet is never its fault either.
func (r *runTrack) isInit(p hygiene.Proc) bool {
	start, ok := r.inits[p.Pid]
	return ok && start == p.Start
}

// threadsRunnable is anyThreadRunnable, or what a test puts in its place to see which
// processes' threads the sweeps read.
var threadsRunnable = anyThreadRunnable

// signalProc sends sig to the process only if it is still the one seen (same start time):
// through a pidfd, so a recycled pid is never hit.
func signalProc(p hygiene.Proc, sig syscall.Signal) {
	fd, err := unix.PidfdOpen(p.Pid, 0)
	if err != nil {
		if errors.Is(err, unix.ENOSYS) {
			if hygiene.Alive(p.Pid, p.Start) {
				unix.Kill(p.Pid, sig)
			}
		}
		return
	}
	defer unix.Close(fd)
	if hygiene.Alive(p.Pid, p.Start) {
		unix.PidfdSendSignal(fd, sig, nil, 0)
	}
}
