package hygiene

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// HangKind names why a set of processes made no progress before a deadline.
type HangKind string

// The hang kinds, from the most to the least specific evidence. When processes disagree the
// first kind in this list that applies to any of them wins: one busy process explains the
// hang better than its peers blocked waiting for it.
const (
	// BusyLoop: a process made progress between the samples (used CPU, or was runnable).
	BusyLoop HangKind = "busy-loop"
	// BlockedWrite: a process sat in a write system call, typically on a full pipe that its
	// reader does not drain.
	BlockedWrite HangKind = "blocked-write"
	// Deadlock: every process was blocked reading, polling, or waiting for a child: each
	// waits for another to act first.
	Deadlock HangKind = "deadlock"
	// LeakedPipe: a deadlock where a process blocked reading a pipe waits for an end of
	// file that cannot come, because a write end of that pipe is held by a process that is
	// not its writer (ProcDiag.LeakedTo): a sibling that inherited it, or the reader
	// itself. Not a line left unflushed: closing the pipe ends after fork and dup2 is the
	// fix.
	LeakedPipe HangKind = "leaked-pipe"
	// Sleeping: a process slept (nanosleep, pause, sigsuspend) or sat in some other blocking
	// call (futex, flock...): it waits for time or an event no peer will provide.
	Sleeping HangKind = "sleeping"
	// Unknown: nothing could be read (processes gone or /proc unreadable).
	Unknown HangKind = "unknown"
)

// Activity is what one process was doing across the samples.
type Activity string

// The activities of one process.
const (
	ActBusy     Activity = "busy"     // used CPU or was runnable
	ActReading  Activity = "reading"  // blocked in a read-like call
	ActWriting  Activity = "writing"  // blocked in a write-like call
	ActPolling  Activity = "polling"  // blocked in poll/select/epoll
	ActWaiting  Activity = "waiting"  // blocked in wait4/waitid for a child
	ActSleeping Activity = "sleeping" // nanosleep, pause, sigsuspend...
	ActBlocked  Activity = "blocked"  // another blocking call (futex, flock...)
	ActStopped  Activity = "stopped"  // stopped by a signal or a tracer
	ActUnknown  Activity = "unknown"  // could not be read
)

// ProcDiag is the evidence about one process.
type ProcDiag struct {
	Pid      int
	Comm     string
	Activity Activity
	State    byte          // state letter in the last sample
	Running  int           // samples that found it running or runnable
	Samples  int           // samples taken while it existed
	CPU      time.Duration // CPU time used between the first and the last sample
	Wall     time.Duration // time between the first and the last sample
	Syscall  string        // system call it was blocked in at the last sample ("" if none)
	FD       int           // descriptor that call was using, or -1
	FDTarget string        // what that descriptor is, e.g. "pipe:[81234]" ("" if unknown)
	Wchan    string        // kernel function it was waiting in ("" if unknown)
	// LeakedTo, for a process blocked reading a pipe, are the descriptors of that pipe's
	// write end held by processes of the diagnosis that are not its writer: neither the
	// reader's parent (which made the pipe to write to it) nor a process whose stdout or
	// stderr it is. While one of them is open no end of file can come.
	LeakedTo []PipeEnd
}

// PipeEnd is a descriptor of a pipe's write end in a process.
type PipeEnd struct {
	Pid  int
	Comm string
	FD   int
}

// String describes the process's evidence in one line.
func (p ProcDiag) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "pid %d (%s) %s", p.Pid, p.Comm, p.Activity)
	if p.Syscall != "" {
		fmt.Fprintf(&b, " in %s", p.Syscall)
		if p.FD >= 0 {
			fmt.Fprintf(&b, "(fd %d", p.FD)
			if p.FDTarget != "" {
				fmt.Fprintf(&b, " = %s", p.FDTarget)
			}
			b.WriteString(")")
		}
	} else if p.Wchan != "" && p.Activity != ActBusy {
		fmt.Fprintf(&b, " at %s", p.Wchan)
	}
	for i, e := range p.LeakedTo {
		if i == 0 {
			b.WriteString(" (its write end is also open in")
		} else {
			b.WriteString(",")
		}
		if e.Pid == p.Pid {
			fmt.Fprintf(&b, " itself as fd %d", e.FD)
		} else {
			fmt.Fprintf(&b, " pid %d (%s) as fd %d", e.Pid, e.Comm, e.FD)
		}
		if i == len(p.LeakedTo)-1 {
			b.WriteString(")")
		}
	}
	fmt.Fprintf(&b, ", state %c, CPU %.3fs in %.3fs", p.State, p.CPU.Seconds(), p.Wall.Seconds())
	return b.String()
}

// Diagnosis is the verdict on a hang with its evidence.
type Diagnosis struct {
	Kind  HangKind
	Procs []ProcDiag
}

// maxShown is how many processes String describes; the rest are counted.
const maxShown = 4

// String describes the diagnosis: its kind, then the evidence of the first few processes.
func (d Diagnosis) String() string {
	var b strings.Builder
	b.WriteString(string(d.Kind))
	for i, p := range d.Procs {
		if i == maxShown {
			fmt.Fprintf(&b, "; and %d more", len(d.Procs)-maxShown)
			break
		}
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// DiagOptions sets how Diagnose samples.
type DiagOptions struct {
	Samples  int           // samples per process (default 3, at least 2)
	Interval time.Duration // time between samples (default 50 ms)
	// Drained names descriptors the caller reads without end, as /proc/PID/fd links show
	// them (e.g. "pipe:[81234]"): a write blocked on one of these is output-bound work
	// waiting for a reader that will come, so it counts as busy, not as a blocked write.
	Drained map[string]bool
}

// Diagnose samples the given processes and classifies the hang. It takes about
// (Samples-1)*Interval. Zombies and processes that vanish are left out.
//
// A process counts as busy when it made progress: its CPU time grew by at least 1% of the
// sampling time, or some sample found it running or runnable (a busy process on a loaded
// machine may get little CPU, but stays runnable). A process writing to a pipe that its
// reader drains slowly is thus busy, not blocked: it progresses. Otherwise it made no
// progress at all, and the system call it sits in says what it waits for
// (/proc/PID/syscall, falling back to /proc/PID/wchan when that is not readable).
func Diagnose(pids []int, opts DiagOptions) Diagnosis {
	if opts.Samples < 2 {
		opts.Samples = 3
	}
	if opts.Interval <= 0 {
		opts.Interval = 50 * time.Millisecond
	}
	type track struct {
		first, last sample
		running, n  int
	}
	tracks := make([]*track, len(pids))
	for s := 0; s < opts.Samples; s++ {
		if s > 0 {
			time.Sleep(opts.Interval)
		}
		for i, pid := range pids {
			smp, ok := takeSample(pid)
			if !ok || (tracks[i] != nil && smp.proc.Start != tracks[i].first.proc.Start) {
				continue
			}
			if tracks[i] == nil {
				tracks[i] = &track{first: smp}
			}
			t := tracks[i]
			t.last = smp
			t.n++
			if smp.proc.State == 'R' || smp.running {
				t.running++
			}
		}
	}
	var d Diagnosis
	parents := map[int]int{} // pid -> parent pid, for leakedEnds
	for i, t := range tracks {
		if t == nil || t.last.proc.Zombie() {
			continue
		}
		pd := ProcDiag{
			Pid:     pids[i],
			Comm:    t.last.proc.Comm,
			State:   t.last.proc.State,
			Running: t.running,
			Samples: t.n,
			CPU:     t.last.cpu - t.first.cpu,
			Wall:    t.last.at.Sub(t.first.at),
			FD:      -1,
			Wchan:   t.last.wchan,
		}
		pd.Activity = classify(&pd, t.last)
		if pd.Activity == ActWriting && opts.Drained[pd.FDTarget] {
			pd.Activity = ActBusy
		}
		d.Procs = append(d.Procs, pd)
		parents[pd.Pid] = t.last.proc.PPid
	}
	for i := range d.Procs {
		if p := &d.Procs[i]; p.Activity == ActReading && strings.HasPrefix(p.FDTarget, "pipe:") {
			p.LeakedTo = leakedEnds(*p, parents, d.Procs)
		}
	}
	d.Kind = overall(d.Procs)
	return d
}

// leakedEnds finds, among procs, the descriptors of the write end of the pipe reader is
// blocked reading that no writer should hold: any but the reader's parent's (which made
// the pipe and writes to it) and a process's own stdout or stderr (fd 1 or 2, where its
// writer writes), the reader's own included. What /proc does not show (another user's
// process where the grader is not root) is left out.
func leakedEnds(reader ProcDiag, parents map[int]int, procs []ProcDiag) []PipeEnd {
	var leaked []PipeEnd
	for _, h := range procs {
		if h.Pid == parents[reader.Pid] && h.Pid != reader.Pid {
			continue
		}
		for _, fd := range writeEnds(h.Pid, reader.FDTarget) {
			if (fd == 1 || fd == 2) && h.Pid != reader.Pid {
				continue
			}
			leaked = append(leaked, PipeEnd{Pid: h.Pid, Comm: h.Comm, FD: fd})
		}
	}
	return leaked
}

// writeEnds lists the descriptors of process pid that are open for writing on target (a
// /proc/PID/fd link's text, e.g. "pipe:[81234]").
func writeEnds(pid int, target string) []int {
	dir := procRoot + "/" + strconv.Itoa(pid)
	entries, err := os.ReadDir(dir + "/fd")
	if err != nil {
		return nil
	}
	var fds []int
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if link, err := os.Readlink(dir + "/fd/" + e.Name()); err != nil || link != target {
			continue
		}
		info, err := os.ReadFile(dir + "/fdinfo/" + e.Name())
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(info), "\n") {
			if v, ok := strings.CutPrefix(line, "flags:"); ok {
				flags, err := strconv.ParseUint(strings.TrimSpace(v), 8, 64)
				if err == nil && flags&3 != 0 { // O_WRONLY or O_RDWR
					fds = append(fds, fd)
				}
			}
		}
	}
	return fds
}

// sample is what one look at a process found.
type sample struct {
	at      time.Time
	proc    Proc
	cpu     time.Duration
	sysNr   int64 // -1: not in a system call or unknown
	sysArg0 uint64
	sysRead bool // /proc/PID/syscall was readable
	running bool // /proc/PID/syscall said "running"
	wchan   string
}

func takeSample(pid int) (sample, bool) {
	s := sample{at: time.Now(), sysNr: -1}
	p, err := ReadProc(pid)
	if err != nil {
		return s, false
	}
	s.proc = p
	s.cpu = time.Duration(p.CPUTicks) * 10 * time.Millisecond
	dir := procRoot + "/" + strconv.Itoa(pid)
	// schedstat's first field is the time on CPU in nanoseconds, far finer than the ticks.
	if b, err := os.ReadFile(dir + "/schedstat"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			if ns, err := strconv.ParseInt(f[0], 10, 64); err == nil {
				s.cpu = time.Duration(ns)
			}
		}
	}
	if b, err := os.ReadFile(dir + "/syscall"); err == nil {
		s.sysRead = true
		f := strings.Fields(string(b))
		s.running = len(f) > 0 && f[0] == "running"
		if len(f) >= 2 && !s.running {
			if nr, err := strconv.ParseInt(f[0], 10, 64); err == nil && nr >= 0 {
				s.sysNr = nr
				s.sysArg0, _ = strconv.ParseUint(strings.TrimPrefix(f[1], "0x"), 16, 64)
			}
		}
	}
	if b, err := os.ReadFile(dir + "/wchan"); err == nil {
		if w := strings.TrimSpace(string(b)); w != "0" {
			s.wchan = w
		}
	}
	return s, true
}

// classify decides what one process was doing and fills in its system call evidence.
func classify(pd *ProcDiag, last sample) Activity {
	switch {
	case pd.State == 'T' || pd.State == 't':
		return ActStopped
	case pd.Wall > 0 && pd.CPU*100 >= pd.Wall, pd.Running > 0:
		return ActBusy
	}
	class := sysClass(-1)
	if last.sysNr >= 0 {
		info, ok := syscalls[uintptr(last.sysNr)]
		if !ok {
			info = sysInfo{"syscall " + strconv.FormatInt(last.sysNr, 10), sysOther}
		}
		pd.Syscall = info.name
		class = info.class
		if class == sysRead || class == sysWrite {
			pd.FD = int(last.sysArg0)
			pd.FDTarget, _ = os.Readlink(procRoot + "/" + strconv.Itoa(pd.Pid) + "/fd/" + strconv.Itoa(pd.FD))
		}
	} else if !last.sysRead {
		class = wchanClass(last.wchan)
	}
	switch class {
	case sysRead:
		return ActReading
	case sysWrite:
		return ActWriting
	case sysPoll:
		return ActPolling
	case sysWait:
		return ActWaiting
	case sysSleep:
		return ActSleeping
	case sysOther:
		return ActBlocked
	}
	return ActUnknown
}

// isDoWait reports whether a wait channel is the kernel's wait for a child (do_wait,
// perhaps with a compiler suffix such as ".isra.0"), and not a function whose name merely
// contains it (futex_do_wait, where every idle thread of a Go program sleeps).
func isDoWait(w string) bool {
	return w == "do_wait" || strings.HasPrefix(w, "do_wait.")
}

// wchanClass guesses from the kernel function a process waits in, for when
// /proc/PID/syscall is not readable (it needs ptrace rights; wchan usually does not).
func wchanClass(w string) sysClass {
	switch {
	case w == "":
		return -1
	case strings.Contains(w, "pipe_read"), strings.Contains(w, "tty_read"),
		strings.Contains(w, "unix_stream_read"), strings.Contains(w, "wait_woken"):
		return sysRead
	case strings.Contains(w, "pipe_write"), strings.Contains(w, "unix_stream_sendmsg"):
		return sysWrite
	case strings.Contains(w, "poll"), strings.Contains(w, "select"):
		return sysPoll
	case isDoWait(w):
		return sysWait
	case strings.Contains(w, "nanosleep"), strings.Contains(w, "pause"),
		strings.Contains(w, "sigsuspend"):
		return sysSleep
	}
	return sysOther
}

// overall combines the activities of the processes into one hang kind.
func overall(procs []ProcDiag) HangKind {
	if len(procs) == 0 {
		return Unknown
	}
	has := map[Activity]bool{}
	for _, p := range procs {
		has[p.Activity] = true
	}
	switch {
	case has[ActBusy]:
		return BusyLoop
	case has[ActWriting]:
		return BlockedWrite
	}
	waitingOnPeers := 0
	for _, p := range procs {
		switch p.Activity {
		case ActReading, ActPolling, ActWaiting:
			waitingOnPeers++
		}
	}
	switch {
	case waitingOnPeers == len(procs):
		for _, p := range procs {
			if len(p.LeakedTo) > 0 {
				return LeakedPipe
			}
		}
		return Deadlock
	case has[ActSleeping], has[ActBlocked], has[ActStopped], waitingOnPeers > 0:
		return Sleeping
	}
	return Unknown
}
