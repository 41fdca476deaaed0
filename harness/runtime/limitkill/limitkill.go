// Package limitkill tells a process that a resource limit ended from one that crashed,
// exited or broke a protocol, from what its parent sees: how it ended, its CPU time, and
// the CPU limit it ran under. The sandbox's limits are per process (setrlimit): past its
// CPU time a process gets SIGXCPU, and SIGKILL a second later if it lives on; a write past
// the file size limit gets SIGXFSZ. A program behind a shell wrapper that does not exec it
// (`#!/bin/sh` then `python3 ai.py`) does not die of the signal itself: the shell exits
// with 128 plus the signal's number, and only its CPU time (its reaped children's
// included) shows the limit. Used by the mock hub (whose reports the grader reads), the
// fuzzers' runner and the Stratego manager, so that a limit kill is LIMIT everywhere,
// never a crash or a broken rule of the game.
package limitkill

import (
	"fmt"
	"strings"
	"syscall"
	"time"
)

// Limit names the limit that ended a process.
type Limit string

// The limits a parent can tell.
const (
	None     Limit = ""
	CPU      Limit = "cpu"
	FileSize Limit = "file-size"
)

// Words is the limit in a sentence: "the CPU time limit", "the file size limit".
func (l Limit) Words() string {
	switch l {
	case CPU:
		return "the CPU time limit"
	case FileSize:
		return "the file size limit"
	}
	return ""
}

// UnknownCPU, as a CPU time, says the parent does not know the process's CPU time.
const UnknownCPU time.Duration = -1

// Of names the limit that ended a process that died of signal sig (0: it exited with
// status code), having used cpu (its own and its reaped children's; UnknownCPU when not
// known) under the CPU limit cpuLimit (the soft limit as the kernel applies it, whole
// seconds; 0 or less: none). A process killed by SIGKILL is blamed on the CPU limit only
// when its CPU time reached that limit (as a parent measures it: below); a shell's status 128+N for SIGXCPU or SIGKILL
// likewise when its CPU time is known, by the convention alone when it is not (for
// SIGXCPU; 137 is any SIGKILL); 128+SIGXFSZ always.
func Of(sig syscall.Signal, code int, cpu, cpuLimit time.Duration) Limit {
	// The limit counts the kernel's exact run time; the CPU time a parent gets from wait4
	// is ticks, which leave out time the host stole from a virtual machine: 0.80-0.82 s
	// for a kill at a 1 s limit, measured at load 45 on this project's 2-core machine.
	// Half the limit is taken as reached: no program exits 152 or is killed by SIGKILL
	// after half its CPU time by chance.
	reached := cpuLimit > 0 && cpu >= cpuLimit/2
	switch {
	case sig == syscall.SIGXCPU:
		return CPU
	case sig == syscall.SIGXFSZ:
		return FileSize
	case sig == syscall.SIGKILL && reached:
		return CPU
	case sig != 0:
		return None
	case code == 128+int(syscall.SIGXCPU) && (reached || cpu == UnknownCPU):
		return CPU
	case code == 128+int(syscall.SIGKILL) && reached:
		return CPU
	case code == 128+int(syscall.SIGXFSZ):
		return FileSize
	}
	return None
}

// Note is what to add to "killed by SIGNAME" or "exit status N" when l ended the process:
// " at the CPU time limit (1.02s of CPU)", " (a program it ran was killed at the file size
// limit)"; "" for None. cpu is shown when known.
func Note(l Limit, sig syscall.Signal, cpu time.Duration) string {
	if l == None {
		return ""
	}
	used := ""
	if cpu >= 0 {
		used = fmt.Sprintf(", %v of CPU", cpu.Round(10*time.Millisecond))
	}
	if sig != 0 {
		return fmt.Sprintf(" (%s%s)", l.Words(), used)
	}
	return fmt.Sprintf(" (a program it ran was killed at %s%s)", l.Words(), used)
}

// SoftCPU is this process's own CPU time limit (RLIMIT_CPU's soft value), which the
// programs it starts inherit; 0 when there is none.
func SoftCPU() time.Duration {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_CPU, &r); err != nil || r.Cur == ^uint64(0) || r.Cur > 1<<40 {
		return 0
	}
	return time.Duration(r.Cur) * time.Second
}

// InReport reports which limit a report names (None for none): a death by SIGXCPU or
// SIGXFSZ, or one that Note marked, in the report's first line, after its last
// "player: " when it has one. The grader and the fuzzers read the mock hub's
// reports by it.
func InReport(report string) Limit {
	// A judge's report ends its first line with how the program ended ("; player: ..."):
	// only that is read, not the lines quoted before it, which the program wrote.
	report, _, _ = strings.Cut(report, "\n")
	if i := strings.LastIndex(report, "player: "); i >= 0 {
		report = report[i:]
	}
	switch {
	case strings.Contains(report, "killed by SIGXCPU"), strings.Contains(report, CPU.Words()+")"), strings.Contains(report, CPU.Words()+", "):
		return CPU
	case strings.Contains(report, "killed by SIGXFSZ"), strings.Contains(report, FileSize.Words()+")"), strings.Contains(report, FileSize.Words()+", "):
		return FileSize
	}
	return None
}
