package sandbox

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"gauntlet/harness/runtime/transcript"
)

// Unlimited, as a Limits field, lifts that limit (the subject inherits the harness's own).
const Unlimited = -1

// Limits are the resource limits every subject process runs under. They are set with
// setrlimit(2) in the subject's process just before it execs (see Init), are inherited by
// every process it forks, and never touch the harness itself. A zero field takes the
// default below; Unlimited (-1) leaves the limit as the harness has it.
type Limits struct {
	// CPU is the CPU time each process may use (RLIMIT_CPU, rounded up to whole seconds):
	// SIGXCPU at the limit, SIGKILL one second later. Default 10 s.
	CPU time.Duration
	// AddressSpace is the virtual memory of each process in bytes (RLIMIT_AS): past it
	// malloc returns NULL and mmap fails. Default 1 GiB.
	AddressSpace int64
	// Processes is how many processes (threads included) the subject may have at once
	// (RLIMIT_NPROC). The kernel counts this per user: it is exact when the subject runs as a
	// sandbox user of its own (the default when the harness is root, see Identity). When the
	// subject runs as the harness's own user, the limit is set to the number of tasks that
	// user already has plus Processes, which is approximate; when that user is root the
	// kernel ignores the limit altogether and Result.Warnings says so. Default 1024: the
	// kernel counts threads, a Go program (the reference and mock programs) has about six,
	// and the largest case, a 26-player game with every player behind a recording relay,
	// needs over 300; a fork bomb is still stopped long before it hurts the machine.
	Processes int
	// FileSize is the largest file a process may write, in bytes (RLIMIT_FSIZE): past it
	// the write fails and SIGXFSZ is sent. Default 64 MiB.
	FileSize int64
	// OpenFiles is the number of descriptors a process may have open (RLIMIT_NOFILE).
	// Default 256.
	OpenFiles int
	// Nice is the scheduling niceness added to the subject (0 to 19), so that a busy
	// subject slows the harness less. Default 0.
	Nice int
	// CaseMemory is the memory of a whole case, every process of it together (RSS, page
	// cache, files in its private tmpfs), where the machine gives cgroups (harness/box/cgroup):
	// past it the kernel kills a process of the case. Default 1 GiB.
	CaseMemory int64
	// CaseDisk is the size of the subject's working folder in a graded case (a tmpfs
	// mount), all its files together. Default 64 MiB.
	CaseDisk int64
}

// AddFlags registers the flags -cpu, -mem, -procs, -fsize, -nofile and -nice that set l,
// starting from the defaults.
func (l *Limits) AddFlags(fs *flag.FlagSet) {
	d := DefaultLimits()
	*l = d
	fs.DurationVar(&l.CPU, "cpu", d.CPU, "CPU time each subject process may use")
	fs.Var((*byteSize)(&l.AddressSpace), "mem", "address space of each subject process (e.g. 512M; -1: unlimited)")
	fs.IntVar(&l.Processes, "procs", d.Processes, "processes and threads the subject may have at once (threads count: a Go program has about six)")
	fs.Var((*byteSize)(&l.FileSize), "fsize", "largest file the subject may write (e.g. 64M)")
	fs.IntVar(&l.OpenFiles, "nofile", d.OpenFiles, "descriptors each subject process may open")
	fs.IntVar(&l.Nice, "nice", d.Nice, "niceness of the subject (0-19)")
	fs.Var((*byteSize)(&l.CaseMemory), "case-mem", "memory of a whole case, all its processes together (e.g. 1G; needs cgroups)")
	fs.Var((*byteSize)(&l.CaseDisk), "case-disk", "size of the subject's folder in a case, all its files together (e.g. 64M)")
}

// Validate reports a limit no run could use: a negative CPU time, process count or
// descriptor count, or a niceness outside 0-19 (values withDefaults would otherwise change
// silently).
func (l Limits) Validate() error {
	switch {
	case l.CPU < 0:
		return fmt.Errorf("-cpu %v: want a positive duration", l.CPU)
	case l.Processes < 0:
		return fmt.Errorf("-procs %d: want a positive count", l.Processes)
	case l.OpenFiles < 0:
		return fmt.Errorf("-nofile %d: want a positive count", l.OpenFiles)
	case l.Nice < 0 || l.Nice > 19:
		return fmt.Errorf("-nice %d: want 0 to 19", l.Nice)
	}
	return nil
}

// DefaultLimits returns the limits a zero Limits stands for.
func DefaultLimits() Limits {
	return Limits{
		CPU:          10 * time.Second,
		AddressSpace: 1 << 30,
		Processes:    1024,
		FileSize:     64 << 20,
		OpenFiles:    256,
		CaseMemory:   1 << 30,
		CaseDisk:     64 << 20,
	}
}

// WithDefaults returns l with every zero field set to its default.
func (l Limits) WithDefaults() Limits { return l.withDefaults() }

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.CPU == 0 {
		l.CPU = d.CPU
	}
	if l.AddressSpace == 0 {
		l.AddressSpace = d.AddressSpace
	}
	if l.Processes == 0 {
		l.Processes = d.Processes
	}
	if l.FileSize == 0 {
		l.FileSize = d.FileSize
	}
	if l.OpenFiles == 0 {
		l.OpenFiles = d.OpenFiles
	}
	if l.CaseMemory == 0 {
		l.CaseMemory = d.CaseMemory
	}
	if l.CaseDisk == 0 {
		l.CaseDisk = d.CaseDisk
	}
	l.Nice = min(max(l.Nice, 0), 19)
	return l
}

// Identity selects the user the subject runs as.
//
// The zero value means: when the harness runs as root, each run gets a sandbox user of its
// own, a uid nobody else uses taken from a pool of high uids (with the same number as its
// group), so that the process limit is exact, the run's processes are found by their owner
// even if they leave its session, and the subject cannot signal the harness or other runs.
// Such a subject can open only what "others" may open: its working directory (owned by it)
// and world-readable files. The program itself is opened by the harness before the switch,
// so it only needs to be executable by others, whatever the permissions of its directory
// (shell scripts are the exception: the kernel reopens them by path). When the harness is not
// root, the subject runs as the harness's user.
type Identity struct {
	// Same runs the subject as the harness's own user even when that is root: the process
	// limit then does nothing (see Limits.Processes). Use only for trusted programs.
	Same bool
	// UID and GID, when UID is not 0, name a fixed user to run as (the harness must be
	// root). Runs sharing a fixed user share its process count.
	UID, GID int
	// Lease, when not nil, is a sandbox user the caller holds (NewLease): the run uses it
	// as its own and leaves it leased.
	Lease *Lease
	// Delegate, for a run of the harness's own user (Same), is the one sandbox user its
	// programs start others as: a judge that starts the subject as the case's user. The
	// run's processes are then the ones the harness started, that user's, and what the
	// sweeps saw before, so the tracker reads only those instead of every process on the
	// machine. It is for trusted programs that start nothing as any other user: the exec
	// role's no_new_privs keeps the delegate's processes from taking another, and a child
	// the program forks is the harness's user only until it drops to the delegate.
	Delegate *Lease
}

// Defaults of Config.
const (
	DefaultDeadline    = 10 * time.Second
	DefaultGrace       = 500 * time.Millisecond
	DefaultOutputLimit = 1 << 20
)

// Config configures one run (a Group of processes started together). A zero field takes its
// default.
type Config struct {
	Limits   Limits
	Identity Identity
	// Deadline is the wall-clock time the run may take from Start (default 10 s). When it
	// passes, the hang is diagnosed and the processes are stopped (FirstSignal, Grace,
	// SIGKILL).
	Deadline time.Duration
	// FirstSignal is sent to each process group still running when the run must end
	// (default SIGTERM); Grace later, SIGKILL follows (default 500 ms).
	FirstSignal syscall.Signal
	Grace       time.Duration
	// OutputLimit is how many bytes of each captured stream are kept (default 1 MiB). The
	// rest is read and discarded, so the subject never blocks on a full pipe; the result
	// says the capture was cut and how many bytes there were.
	OutputLimit int
	// TempDir is where the private working directory of the run is made (default
	// os.TempDir()). It must be searchable by the sandbox user.
	TempDir string
	// Files are written into the working directory before the run (mode 0644, owned by the
	// subject's user). Names are slash-separated relative paths; parent directories are
	// made. They are part of the "before" snapshot of the hygiene audit.
	Files map[string][]byte
	// KeepWorkDir keeps the working directory after the run (Result.WorkDir names it);
	// otherwise it is removed.
	KeepWorkDir bool
	// WorkDir, when set, is an existing directory the programs run in instead of a private
	// one: a conformance script's own folder, whose input files the programs read and where
	// recordings are written. Files are still written into it and it is still audited (files
	// created are findings), but it is neither handed to the sandbox user nor removed, so use
	// it with Identity.Same, with a directory that user may use, or with GiveWorkDir.
	WorkDir string
	// GiveWorkDir hands WorkDir, the whole tree, to the sandbox user (when the run has one)
	// before the run, so that the subject may write there as a script expects (recordings,
	// files it must not leave). The harness, being root, can still read and remove it all.
	// Every folder above WorkDir must be searchable by others.
	GiveWorkDir bool
	// Env is added to the environment of every process of the run, after the base
	// environment (PATH, HOME and TMPDIR set to the working directory, LANG=C) and before
	// each Spec's own Env. A later NAME=value replaces an earlier one.
	Env []string
	// Cgroup lists the cgroup.procs files of the group every process of the run joins
	// before it execs (harness/box/cgroup), for totals over a whole case.
	Cgroup []string
	// Box, when not nil, puts every process of the run in a box of its own (namespaces, a
	// private /tmp, /proc showing only its user's processes, loopback only: see Box).
	Box *Box
	// Transcript, if not nil, receives the run's events; otherwise a new Log is made.
	Transcript *transcript.Log
}

func (c Config) withDefaults() Config {
	c.Limits = c.Limits.withDefaults()
	if c.Deadline <= 0 {
		c.Deadline = DefaultDeadline
	}
	if c.FirstSignal == 0 {
		c.FirstSignal = syscall.SIGTERM
	}
	if c.Grace <= 0 {
		c.Grace = DefaultGrace
	}
	if c.OutputLimit <= 0 {
		c.OutputLimit = DefaultOutputLimit
	}
	if c.TempDir == "" {
		c.TempDir = os.TempDir()
	}
	if c.Transcript == nil {
		c.Transcript = transcript.New(transcript.Options{})
	}
	return c
}

// AddFlags registers command-line flags that set c's limits and run settings, with the
// defaults as their default values: -deadline, -grace, -cpu, -mem, -procs, -fsize, -nofile,
// -nice, -output-limit. Sizes accept a K, M or G suffix (powers of 1024).
func (c *Config) AddFlags(fs *flag.FlagSet) {
	d := DefaultLimits()
	c.Deadline, c.Grace = DefaultDeadline, DefaultGrace
	c.Limits = d
	c.OutputLimit = DefaultOutputLimit
	fs.DurationVar(&c.Deadline, "deadline", c.Deadline, "wall-clock time a run may take")
	fs.DurationVar(&c.Grace, "grace", c.Grace, "time between the first signal and SIGKILL")
	c.Limits.AddFlags(fs)
	var out = int64(c.OutputLimit)
	fs.Func("output-limit", "bytes of each output stream kept (e.g. 1M; default 1M)", func(s string) error {
		if err := (*byteSize)(&out).Set(s); err != nil {
			return err
		}
		c.OutputLimit = int(out)
		return nil
	})
}

// byteSize is an int64 flag value with an optional K, M or G suffix.
type byteSize int64

func (b *byteSize) String() string {
	if b == nil {
		return "0"
	}
	n := int64(*b)
	for _, u := range []struct {
		s string
		n int64
	}{{"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}} {
		if n > 0 && n%u.n == 0 {
			return strconv.FormatInt(n/u.n, 10) + u.s
		}
	}
	return strconv.FormatInt(n, 10)
}

func (b *byteSize) Set(s string) error {
	mult := int64(1)
	t := strings.ToUpper(strings.TrimSpace(s))
	switch {
	case strings.HasSuffix(t, "K"):
		mult, t = 1<<10, strings.TrimSuffix(t, "K")
	case strings.HasSuffix(t, "M"):
		mult, t = 1<<20, strings.TrimSuffix(t, "M")
	case strings.HasSuffix(t, "G"):
		mult, t = 1<<30, strings.TrimSuffix(t, "G")
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		return fmt.Errorf("bad size %q", s)
	}
	if n == -1 && mult == 1 {
		*b = Unlimited
		return nil
	}
	if n < 0 {
		// Only -1 means unlimited: another negative size is a mistake, not a wish.
		return fmt.Errorf("bad size %q: want a size (e.g. 512M), or -1 for unlimited", s)
	}
	*b = byteSize(n * mult)
	return nil
}
