package sandbox

import (
	"fmt"
	"strings"
	"syscall"
	"time"

	"gauntlet/harness/box/hygiene"
	"gauntlet/harness/runtime/transcript"
)

// Exit is how a process ended.
type Exit struct {
	Code   int            // exit status, when Signal is 0
	Signal syscall.Signal // the signal that killed it, or 0
	Core   bool           // a core dump was made (never with the default limits)
}

// Signaled reports whether a signal killed the process.
func (e Exit) Signaled() bool { return e.Signal != 0 }

// String says "exit status N" or "killed by SIGNAME".
func (e Exit) String() string {
	if e.Signal != 0 {
		s := "killed by " + transcript.SignalName(e.Signal)
		if e.Core {
			s += " (core dumped)"
		}
		return s
	}
	return fmt.Sprintf("exit status %d", e.Code)
}

// Limit names a resource limit a process ran into.
type Limit string

// The limits the sandbox can tell a process ran into.
const (
	LimitCPU       Limit = "cpu"       // killed by SIGXCPU, or by SIGKILL after using its CPU time
	LimitFileSize  Limit = "file-size" // killed by SIGXFSZ
	LimitMemory    Limit = "memory"    // likely: its peak RSS reached 3/4 of the address space limit
	LimitProcesses Limit = "processes" // the run had as many processes as Limits.Processes
	// LimitDisk: a rootless box's working folder (Box.WorkDisk) could not be copied back to
	// the host within its bound (execrole's workdisk.go; the run's stderr says why).
	LimitDisk Limit = "disk"
)

// ProcResult is what one process the harness started did.
type ProcResult struct {
	Name string
	Pid  int
	Exit Exit
	// Stdout and Stderr hold the first OutputLimit bytes of captured streams; the Cut flags
	// say more was written, and the Bytes counts say how much.
	Stdout, Stderr           []byte
	StdoutCut, StderrCut     bool
	StdoutBytes, StderrBytes int64
	Duration                 time.Duration // from start to exit
	CPU                      time.Duration // user + system time of it and its reaped children
	// PeakRSS is the kernel's peak resident set of the process or a reaped child, in
	// bytes. The kernel keeps the peak across exec, so it includes StartRSS: the peak of
	// the sandbox's exec-with-limits step and of the harness itself (forked with CLONE_VM,
	// whose peak the exec folds in). A PeakRSS at or below StartRSS only says that the
	// program stayed below it.
	PeakRSS  int64
	StartRSS int64
	// Signals lists the signals the harness sent to its process group, in order.
	Signals []syscall.Signal
	Limit   Limit // the limit it ran into, if one can be told, else ""
	// FolderFull says that the run's working folder, a tmpfs of Box.WorkDisk bytes in a
	// rootless box, was full when the program ended (all its files together at the
	// bound). A root box's folder is its caller's, who can tell that itself.
	FolderFull bool
	// Orphans is how many processes the program left for its box to reap when it ended
	// (execrole.StatusOrphans): those it started, or their descendants, that were still
	// there (alive, or dead and not waited for) or had been orphaned before. The box
	// reaps them whatever the program did, so this is what tells a hub that killed and
	// reaped its players (0) from one that died and left them to the box.
	// -1 when the program had no box's init to count them (an unboxed run).
	Orphans int
}

// KilledByHarness reports whether the process died of a signal the harness sent.
func (p ProcResult) KilledByHarness() bool {
	for _, s := range p.Signals {
		if s == p.Exit.Signal {
			return true
		}
	}
	return false
}

// Crashed reports whether a signal the harness did not send killed the process.
func (p ProcResult) Crashed() bool { return p.Exit.Signaled() && !p.KilledByHarness() }

// Verdict is the sandbox's judgement of a run from its own evidence. The grader adds what
// only it knows (expected output, exit status, protocol); the names and the meaning of
// each are the grader's verdicts' (docs/architecture.md, "Verdicts and the fault
// catalogue"): a process a resource limit ended is LIMIT there and here, never TIMEOUT
// or CRASH.
type Verdict string

// The sandbox's verdicts, in order of precedence.
const (
	HarnessError Verdict = "HARNESS-ERROR" // the harness failed; never the subject's fault
	Timeout      Verdict = "TIMEOUT"       // deadline passed (see Result.Hang)
	LimitReached Verdict = "LIMIT"         // a process ran into a resource limit (ProcResult.Limit)
	Crash        Verdict = "CRASH"         // a process died of a signal the harness did not send
	Hygiene      Verdict = "HYGIENE"       // left processes, zombies or files behind
	OK           Verdict = "OK"            // ended by itself within its limits and left nothing
)

// Result is what a run did.
type Result struct {
	Procs          []ProcResult
	DeadlinePassed bool
	Stopped        bool // ended early by Stop
	Duration       time.Duration
	// Hang is the diagnosis taken when the deadline passed, before anything was killed.
	Hang *hygiene.Diagnosis
	// Hygiene lists processes left running, unreaped zombies and files changed.
	Hygiene hygiene.Report
	// PeakProcesses is the most processes of the run alive at once (as sampled).
	PeakProcesses int
	// Processes counts the distinct processes of the run seen.
	Processes int
	// Limits are the limits the run had (defaults filled in); UID is the user it ran as.
	Limits Limits
	UID    int
	// Token is the value of TokenEnv in the run's processes.
	Token string
	// Transcript holds the run's events.
	Transcript *transcript.Log
	// WorkDir is the kept working directory (Config.KeepWorkDir), else "".
	WorkDir string
	// Errors are failures of the harness (a process it could not kill, a directory it could
	// not remove): they make the verdict HARNESS-ERROR.
	Errors []string
	// Warnings are weaknesses of the run that are not failures (e.g. a limit the kernel
	// does not enforce for root).
	Warnings []string
}

// Verdict judges the run: HARNESS-ERROR if the harness failed; TIMEOUT if the deadline
// passed or a process hit its CPU limit; CRASH if a process died of a signal the harness
// did not send; HYGIENE if the audit found anything; else OK.
func (r *Result) Verdict() Verdict {
	if len(r.Errors) > 0 {
		return HarnessError
	}
	if r.DeadlinePassed {
		return Timeout
	}
	for _, p := range r.Procs {
		if p.Limit != "" {
			return LimitReached
		}
	}
	for _, p := range r.Procs {
		if p.Crashed() {
			return Crash
		}
	}
	if !r.Hygiene.Clean() {
		return Hygiene
	}
	return OK
}

// Proc returns the result of the process named name, or nil.
func (r *Result) Proc(name string) *ProcResult {
	for i := range r.Procs {
		if r.Procs[i].Name == name {
			return &r.Procs[i]
		}
	}
	return nil
}

// String summarises the run in a few lines for people.
func (r *Result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s after %.3fs", r.Verdict(), r.Duration.Seconds())
	if r.DeadlinePassed {
		b.WriteString(" (deadline passed)")
	}
	b.WriteByte('\n')
	if r.Hang != nil {
		fmt.Fprintf(&b, "hang: %s\n", r.Hang)
	}
	for _, p := range r.Procs {
		fmt.Fprintf(&b, "%s (pid %d): %s after %.3fs, CPU %.3fs, peak RSS %d KiB", p.Name, p.Pid,
			p.Exit, p.Duration.Seconds(), p.CPU.Seconds(), p.PeakRSS>>10)
		if p.Limit != "" {
			fmt.Fprintf(&b, ", hit %s limit", p.Limit)
		}
		if p.StdoutCut || p.StderrCut {
			fmt.Fprintf(&b, ", output cut (stdout %d bytes, stderr %d bytes)", p.StdoutBytes, p.StderrBytes)
		}
		b.WriteByte('\n')
	}
	b.WriteString(r.Hygiene.String())
	for _, e := range r.Errors {
		fmt.Fprintf(&b, "harness error: %s\n", e)
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return b.String()
}
