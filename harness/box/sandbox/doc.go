// Package sandbox runs untrusted programs (student submissions, bots) so that whatever they
// do, the harness finishes on time, stays small, and leaves nothing behind.
//
// Every program of a run is started by Start (one program: Run) in its own session and
// process group, as a sandbox user of its own when the harness is root (see Identity), in a
// private working directory, under resource limits (Limits: CPU time, address space,
// processes, file size, open files), with pipes the harness reads or hands to the caller
// (Stream), and a wall-clock deadline. Standard output and error are captured up to a bound
// and drained past it, so a subject never blocks on a full pipe and never makes the harness
// grow. Every line that passes, every signal sent and every exit go to a transcript.
//
// Limits are applied between fork and exec by re-executing the harness binary in a small
// "exec with limits" role: see Init, which every binary that uses this package runs
// through its package init function.
//
// When the run ends (all programs exited, the deadline passed, or Stop), the sandbox
// diagnoses a hang (hygiene.Diagnose: deadlock, busy loop, blocked write, sleep) before
// killing anything, sends FirstSignal to what still runs, SIGKILL after Grace, then finds and
// kills every process the run made, even those that left its session with setsid() or a
// double fork: the harness is a child subreaper, so orphans come back to it, and a sweep of
// /proc recognises the run's processes by session, owner, ancestry and a token in their
// environment. It reaps them, audits hygiene (processes left running, zombies not reaped,
// files created in the working directory), and removes the directory. The Result gives each
// program's exit status or signal name, whether the deadline passed, the captured output with
// cut flags, durations, CPU time, peak RSS, the limit hit, the hang diagnosis, the hygiene
// findings, and a Verdict.
//
// The harness process becomes a child subreaper on first use: orphans of any of its
// children are reparented to it. The sandbox reaps only the processes it attributes to one
// of its runs.
//
// docs/harness.md describes the limits and their defaults, the re-exec, and the known gaps.
package sandbox
