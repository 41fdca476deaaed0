package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"gauntlet/execrole"
	"gauntlet/harness/box/hygiene"
	"gauntlet/harness/box/rawfile"
	"gauntlet/harness/runtime/limitkill"
	"gauntlet/harness/runtime/transcript"
)

// How long the clean-up may try before it reports a harness error. killTimeout is a
// backstop for a process that cannot be killed at all: a killed process on a loaded
// machine can take seconds to be scheduled, die and be reaped (3 s once turned such
// deaths into HARNESS-ERRORs of the adequacy runs at load 80), and a run whose processes
// die at once never waits for it.
const (
	killTimeout  = 30 * time.Second
	drainTimeout = 500 * time.Millisecond
)

// finish ends the run, cleans up and builds the result. It runs once per Group.
func (g *Group) finish() {
	log := g.cfg.Transcript
	r := &Result{Limits: g.cfg.Limits, Transcript: log, UID: os.Getuid(), Token: g.track.token}
	if g.lease != nil {
		r.UID = g.lease.uid
	} else if os.Geteuid() == 0 && g.cfg.Identity.Delegate == nil {
		// A judge's run (Delegate) is root by design, and starts the subject as its
		// sandbox user: no note, which read as if the subject ran unboxed.
		r.Warnings = append(r.Warnings, "running as root without a sandbox user: the process limit is not enforced")
	}
	allDone := make(chan struct{})
	go func() {
		for _, p := range g.procs {
			<-p.done
		}
		close(allDone)
	}()
	timer := time.NewTimer(time.Until(g.start.Add(g.cfg.Deadline)))
	defer timer.Stop()
	normal := false
	select {
	case <-allDone:
		normal = true
	case <-timer.C:
		r.DeadlinePassed = true
	case <-g.stop:
		r.Stopped = true
	}
	if !normal {
		select {
		case <-allDone: // ended at the same moment: not a timeout
			normal, r.DeadlinePassed, r.Stopped = true, false, false
		default:
		}
	}

	if r.DeadlinePassed {
		log.Notef(transcript.Harness, "deadline of %s passed", g.cfg.Deadline)
		inits := map[int]bool{}
		for _, p := range g.procs {
			if p.status != nil {
				inits[p.pid] = true     // the init of a program's PID namespace, never the hang
				inits[p.initPid] = true // (or its parent, netjoin.go)
			}
		}
		var pids []int
		for _, p := range g.trk.sweep(g.track) {
			if !p.Zombie() && !inits[p.Pid] {
				pids = append(pids, p.Pid)
			}
		}
		slices.Sort(pids)
		drained := map[string]bool{}
		for _, p := range g.procs {
			for _, c := range []*capture{p.outCap, p.errCap} {
				if c != nil && c.pipe != "" {
					drained[c.pipe] = true
				}
			}
		}
		d := hygiene.Diagnose(pids, hygiene.DiagOptions{Drained: drained})
		g.nameProcs(d.Procs)
		r.Hang = &d
		log.Notef(transcript.Harness, "hang diagnosis: %s", d)
	}
	var swept []hygiene.Proc // the run's processes as the last sweep found them
	if normal && g.nothingLeft() {
		swept = []hygiene.Proc{} // found nothing, without a look at /proc
	} else if normal {
		var left []hygiene.Proc
		left, swept = g.leftRunning()
		for _, p := range left {
			cmd := hygiene.Cmdline(p.Pid)
			if cmd == "" {
				cmd = p.Comm
			}
			r.Hygiene.Add(hygiene.Finding{Kind: hygiene.LeftRunning, Pid: p.Pid, Command: cmd})
			log.Notef(transcript.Harness, "pid %d (%s) left running: killed", p.Pid, cmd)
		}
	} else {
		g.escalate(allDone)
	}
	if r.Stopped && g.inOwnNamespaces() {
		g.endInits(allDone)
	} else if err := g.killAll(swept); err != nil {
		r.Errors = append(r.Errors, err.Error())
	}
	reaped := time.After(killTimeout)
	select {
	case <-allDone:
	case <-reaped:
		r.Errors = append(r.Errors, "a started process was not reaped")
	}
	// The inits of the programs' PID namespaces, which killAll ended with the rest.
	for _, p := range g.procs {
		if p.initDone == nil {
			continue
		}
		select {
		case <-p.initDone:
		case <-reaped:
			r.Errors = append(r.Errors, "the init of "+p.Name+"'s PID namespace was not reaped")
		}
	}
	// A second line behind the sweeps: the last run of a sandbox user to finish kills every
	// process of that user started since the first of its runs began (releaseUser), such
	// as one a judge's run left, or one the sweeps could not tell as the run's.
	for _, u := range g.users {
		escaped, zombies, ok := releaseUser(u)
		g.trk.mu.Lock()
		var adopted []hygiene.Proc // not the programs started, which their waiters reap
		for _, p := range append(escaped, zombies...) {
			if _, started := g.track.roots[p.Pid]; !started {
				adopted = append(adopted, p)
			}
		}
		g.trk.mu.Unlock()
		reapAdopted(adopted)
		for _, p := range escaped {
			r.Hygiene.Add(hygiene.Finding{Kind: hygiene.LeftRunning, Pid: p.Pid, Command: p.Comm})
			log.Notef(transcript.Harness, "pid %d (%s) left running: killed", p.Pid, p.Comm)
		}
		if !ok {
			r.Errors = append(r.Errors, fmt.Sprintf("processes of sandbox user %d could not all be killed", u))
		}
	}
	g.trk.mu.Lock()
	for _, z := range g.track.zombs {
		r.Hygiene.Add(z)
	}
	r.PeakProcesses, r.Processes = g.track.peak, g.track.total
	g.trk.mu.Unlock()
	g.trk.remove(g.track)

	g.closeStreams()
	r.Procs = g.procResults()
	if g.lease != nil && g.lease.exclusive && r.PeakProcesses >= g.cfg.Limits.Processes {
		for i := range r.Procs {
			if r.Procs[i].Limit == "" {
				r.Procs[i].Limit = LimitProcesses
			}
		}
	}

	after := hygiene.SnapshotDir(g.dir)
	r.Hygiene.AddFiles(hygiene.DiffDirs(g.before, after))
	if g.cfg.KeepWorkDir || g.cfg.WorkDir != "" {
		r.WorkDir = g.dir
	} else if err := hygiene.RemoveAll(g.dir); err != nil {
		r.Errors = append(r.Errors, "remove working directory: "+err.Error())
	}
	g.devnull.Close()
	g.lease.release()
	r.Duration = time.Since(g.start)
	g.res = r
}

// nameProcs shows, in the diagnosis, the name of each process the harness started.
func (g *Group) nameProcs(ds []hygiene.ProcDiag) {
	for i := range ds {
		for _, p := range g.procs {
			if p.pid == ds[i].Pid || p.progPid == ds[i].Pid {
				ds[i].Comm = p.Name
			}
		}
	}
}

// nothingLeft says whether the run has no process left, known without a sweep: every
// program ran in a PID namespace of its own (a box's, with no join helper), left its init
// no process (StatusOrphans 0), and the init has ended by itself (waiting up to
// initEndWait for it). The kernel ends every process of a namespace before its init ends,
// so nothing of the run is left to find, and finish spares its sweeps of /proc (a grade's
// runs end by thousands: three sweeps each were about a tenth of a grade's CPU). Any
// other run (a program that left a process, or an init slow to end) is swept as before.
func (g *Group) nothingLeft() bool {
	if !g.inOwnNamespaces() {
		return false
	}
	wait := time.NewTimer(initEndWait)
	defer wait.Stop()
	for _, p := range g.procs {
		if p.orphans != 0 {
			return false
		}
		select {
		case <-p.initDone:
		case <-wait.C:
			return false
		}
	}
	return true
}

// inOwnNamespaces says whether every program of the run was started by an init of a PID
// namespace of its own that the harness started itself (a box's, with no join helper
// between: netjoin.go): then nothing of the run lives outside those namespaces, and
// nothing in them outlives their inits.
func (g *Group) inOwnNamespaces() bool {
	for _, p := range g.procs {
		if p.initDone == nil || p.initPid != 0 {
			return false
		}
	}
	return true
}

// endInits ends a stopped run whose programs all ran in namespaces of their own
// (inOwnNamespaces), without a sweep of /proc: once the programs' ends are told (escalate
// killed them), it kills each init that has not ended, and the kernel every process of its
// namespace with it.
func (g *Group) endInits(allDone <-chan struct{}) {
	select {
	case <-allDone:
	case <-time.After(killTimeout):
	}
	for _, p := range g.procs {
		select {
		case <-p.initDone:
		default:
			p.proc.Signal(syscall.SIGKILL)
		}
	}
}

// initEndWait bounds how long finish waits for the inits of a run that left them nothing
// to end by themselves, before it looks in /proc instead (nothingLeft). A variable for the
// tests, which wait longer on a loaded machine.
var initEndWait = 50 * time.Millisecond

// leftRunning returns the processes of the run still alive after every started program
// ended by itself, and what its last sweep found of the run (zombies included), for killAll
// to start from.
//
// A process is not blamed while it may still be on its way out: one that is runnable (a
// thread of it running or waiting for a CPU, or in an uninterruptible wait) and has run
// less than orphanCPU since it was first seen here, such as a player woken by the end of
// file its hub's exit caused. The wait is measured in the process's own CPU time, not in
// wall time, so a busy machine does not turn it into a finding (with about 100 ms of wall
// time instead, five real submissions' "left running" verdicts came and went with the
// machine's load). A process that sleeps (it waits on something that will
// not come: a pipe another leftover holds, a timer), or that keeps running past orphanCPU,
// is left running; so is what has not finished within leftRunningBackstop of wall time.
// Every leftover has leftRunningFloor of wall time at least, as it had before: a short
// sleep of an orphan ends within it.
func (g *Group) leftRunning() (left, swept []hygiene.Proc) {
	began := time.Now()
	backstop := began.Add(leftRunningBackstop)
	first := map[int]activity{}
	pause := time.Millisecond
	for {
		left = left[:0]
		swept = g.trk.sweep(g.track)
		if swept == nil {
			swept = []hygiene.Proc{} // swept, and found nothing
		}
		for _, p := range swept {
			if !p.Zombie() && !g.isRoot(p) {
				left = append(left, p)
			}
		}
		pending := false
		for _, p := range left {
			now := activityOf(p.Pid)
			was, seen := first[p.Pid]
			if !seen {
				first[p.Pid], was = now, now
			}
			if now.runnable && now.ran < was.ran+uint64(orphanCPU) {
				pending = true
			}
		}
		// Whatever its state, a leftover has at least leftRunningFloor to go (a short
		// sleep ending).
		if len(left) == 0 || (!pending && time.Since(began) >= leftRunningFloor) || time.Now().After(backstop) {
			return left, swept
		}
		time.Sleep(pause)
		pause = min(2*pause, 20*time.Millisecond)
	}
}

// orphanCPU is the CPU time a runnable leftover may use on its way out before it counts as
// left running (a busy loop reaches it); leftRunningBackstop bounds in wall time how long
// leftRunning waits for runnable leftovers.
const (
	orphanCPU           = 100 * time.Millisecond
	leftRunningFloor    = 100 * time.Millisecond
	leftRunningBackstop = 10 * time.Second
)

// activity is what the scheduler says of a process: whether a thread of it is runnable (R)
// or in an uninterruptible wait (D), and the CPU time its threads have run.
type activity struct {
	runnable bool
	ran      uint64 // nanoseconds run, all threads
}

// activityOf reads the activity of process pid from /proc/PID/task/*/stat and schedstat.
// A process that cannot be read (it ended meanwhile) is not runnable.
func activityOf(pid int) activity {
	var a activity
	base := "/proc/" + strconv.Itoa(pid) + "/task"
	tids, err := os.ReadDir(base)
	if err != nil {
		return a
	}
	for _, t := range tids {
		a.runnable = a.runnable || threadRunnable(base+"/"+t.Name())
		if ss, err := rawfile.Read(base+"/"+t.Name()+"/schedstat", nil); err == nil {
			if f := strings.Fields(string(ss)); len(f) == 3 {
				ran, _ := strconv.ParseUint(f[0], 10, 64)
				a.ran += ran
			}
		}
	}
	return a
}

// threadRunnable says whether the thread whose /proc folder is dir is runnable (R) or in an
// uninterruptible wait (D).
func threadRunnable(dir string) bool {
	stat, err := rawfile.Read(dir+"/stat", nil)
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && (stat[i+2] == 'R' || stat[i+2] == 'D')
}

// anyThreadRunnable says whether a thread of process pid is runnable or in an
// uninterruptible wait: /proc/PID/stat shows the first thread's state only, and a Go
// program's first thread often sleeps (in a futex) while another thread works or waits
// for a CPU.
func anyThreadRunnable(pid int) bool {
	base := "/proc/" + strconv.Itoa(pid) + "/task"
	tids, err := os.ReadDir(base)
	if err != nil {
		return false
	}
	for _, t := range tids {
		if threadRunnable(base + "/" + t.Name()) {
			return true
		}
	}
	return false
}

func (g *Group) isRoot(p hygiene.Proc) bool {
	g.trk.mu.Lock()
	defer g.trk.mu.Unlock()
	start, ok := g.track.roots[p.Pid]
	return ok && start == p.Start
}

// escalate sends FirstSignal to the group of every started process still running, waits up
// to Grace for them to end, then sends SIGKILL to those that did not.
func (g *Group) escalate(allDone <-chan struct{}) {
	var running []*Process
	for _, p := range g.procs {
		if _, ended := p.Exit(); !ended {
			running = append(running, p)
		}
	}
	if len(running) == 0 {
		return
	}
	for _, p := range running {
		p.Signal(g.cfg.FirstSignal)
	}
	if g.cfg.FirstSignal != syscall.SIGKILL {
		select {
		case <-allDone:
		case <-time.After(g.cfg.Grace):
		}
	}
	for _, p := range running {
		p.Signal(syscall.SIGKILL)
	}
}

// killAll kills every process of the run and reaps those that were reparented to the
// harness, until none is left. Processes started by the harness are reaped by their own
// waiters. A fork loop is caught because each round kills everything seen, and the run's
// process limit bounds what a round can miss.
//
// swept, when not nil, is the sweep leftRunning took once every started program had ended:
// the first round acts on it instead of scanning /proc again a moment later.
func (g *Group) killAll(swept []hygiene.Proc) error {
	ownPgid := syscall.Getpgrp()
	deadline := time.Now().Add(killTimeout)
	pause := time.Millisecond
	killed := 0
	for {
		procs := swept
		if procs == nil {
			procs = g.trk.sweep(g.track)
		}
		swept = nil
		var alive []hygiene.Proc
		pending := 0
		mine := map[int]bool{}
		for _, p := range procs {
			mine[p.Pid] = true
		}
		for _, p := range procs {
			switch {
			case !p.Zombie():
				alive = append(alive, p)
			case g.isRoot(p):
				// reaped by its waiter
			case p.PPid == selfPid:
				var ws unix.WaitStatus
				unix.Wait4(p.Pid, &ws, unix.WNOHANG, nil)
				pending++
			default:
				pending++ // its parent is being killed; it will be reparented to us
			}
		}
		if len(alive) == 0 && pending == 0 {
			if killed > 0 {
				g.cfg.Transcript.Notef(transcript.Harness, "killed %d leftover processes", killed)
			}
			return nil
		}
		if time.Now().After(deadline) {
			var pids []string
			for _, p := range procs {
				pids = append(pids, fmt.Sprintf("%d(%c)", p.Pid, p.State))
			}
			return fmt.Errorf("could not kill or reap the run's processes: %s", strings.Join(pids, " "))
		}
		groups := map[int]bool{}
		for _, p := range alive {
			if !g.isRoot(p) {
				killed++
			}
			signalProc(p, syscall.SIGKILL)
			if p.Pgid > 1 && p.Pgid != ownPgid && mine[p.Pgid] {
				groups[p.Pgid] = true
			}
		}
		for pg := range groups {
			unix.Kill(-pg, syscall.SIGKILL)
		}
		time.Sleep(pause)
		pause = min(2*pause, 20*time.Millisecond)
	}
}

// closeStreams closes the harness's ends of stdin pipes and drains the captures.
func (g *Group) closeStreams() {
	for _, p := range g.procs {
		if p.stdin != nil {
			p.stdin.Close()
		}
		if p.inFile != nil {
			p.inFile.Close()
			<-p.fed
		}
	}
	for _, p := range g.procs {
		for _, c := range []*capture{p.outCap, p.errCap} {
			if c != nil {
				c.finish(drainTimeout)
			}
		}
	}
}

// procResults builds the result of each started process.
func (g *Group) procResults() []ProcResult {
	var out []ProcResult
	for _, p := range g.procs {
		pr := ProcResult{Name: p.Name, Pid: p.Pid(), Exit: p.exit, Duration: p.ended.Sub(p.started), StartRSS: p.startRSS,
			Orphans: p.orphans}
		p.mu.Lock()
		pr.Signals = append(pr.Signals, p.signals...)
		p.mu.Unlock()
		if c := p.outCap; c != nil {
			pr.Stdout, pr.StdoutBytes = c.result()
			pr.StdoutCut = pr.StdoutBytes > int64(len(pr.Stdout))
		}
		if c := p.errCap; c != nil {
			pr.Stderr, pr.StderrBytes = c.result()
			pr.StderrCut = pr.StderrBytes > int64(len(pr.Stderr))
		}
		if ru := p.rusage; ru != nil {
			pr.CPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
			pr.PeakRSS = ru.Maxrss << 10
		}
		lim := g.cfg.Limits
		var cpuLim time.Duration
		if lim.CPU > 0 {
			cpuLim = cpuLimit(lim.CPU)
		}
		// SIGXCPU, SIGKILL at the CPU limit, SIGXFSZ, and a shell's 152, 137 or 153 for a
		// program it ran without exec that died so (limitkill).
		// A SIGKILL the harness sent (the deadline's) is not the limit's.
		kill := limitkill.None
		if !pr.KilledByHarness() {
			kill = limitkill.Of(p.exit.Signal, p.exit.Code, pr.CPU, cpuLim)
		}
		switch {
		case kill == limitkill.CPU:
			pr.Limit = LimitCPU
		case kill == limitkill.FileSize:
			pr.Limit = LimitFileSize
		case lim.AddressSpace > 0 && pr.PeakRSS > pr.StartRSS && pr.PeakRSS*4 >= lim.AddressSpace*3:
			pr.Limit = LimitMemory
		case p.folder&execrole.FolderLost != 0:
			pr.Limit = LimitDisk
		}
		pr.FolderFull = p.folder&execrole.FolderFull != 0
		out = append(out, pr)
	}
	return out
}

// cpuLimit is the CPU limit as the kernel applies it: rounded up to whole seconds.
func cpuLimit(d time.Duration) time.Duration {
	return (d + time.Second - 1).Truncate(time.Second)
}
