package sandbox_test

import (
	"syscall"
	"testing"

	"gauntlet/harness/box/sandbox"
)

// A run a resource limit ended is LIMIT, as the grader calls it (docs/architecture.md),
// never TIMEOUT (a CPU kill was, until 2026-12-07) or CRASH (the signal of a file-size
// limit was); its deadline passing is TIMEOUT, a crash of its own CRASH.
func TestVerdictOfALimitIsLimit(t *testing.T) {
	for _, tc := range []struct {
		name string
		res  sandbox.Result
		want sandbox.Verdict
	}{
		{"cpu", sandbox.Result{Procs: []sandbox.ProcResult{{Exit: sandbox.Exit{Signal: syscall.SIGXCPU}, Limit: sandbox.LimitCPU}}}, sandbox.LimitReached},
		{"file size", sandbox.Result{Procs: []sandbox.ProcResult{{Exit: sandbox.Exit{Signal: syscall.SIGXFSZ}, Limit: sandbox.LimitFileSize}}}, sandbox.LimitReached},
		{"memory, in the second process", sandbox.Result{Procs: []sandbox.ProcResult{{}, {Exit: sandbox.Exit{Signal: syscall.SIGSEGV}, Limit: sandbox.LimitMemory}}}, sandbox.LimitReached},
		{"deadline", sandbox.Result{DeadlinePassed: true, Procs: []sandbox.ProcResult{{Exit: sandbox.Exit{Signal: syscall.SIGKILL}}}}, sandbox.Timeout},
		{"crash", sandbox.Result{Procs: []sandbox.ProcResult{{Exit: sandbox.Exit{Signal: syscall.SIGSEGV}}}}, sandbox.Crash},
		{"ok", sandbox.Result{Procs: []sandbox.ProcResult{{}}}, sandbox.OK},
	} {
		if got := tc.res.Verdict(); got != tc.want {
			t.Errorf("%s: verdict %s, want %s", tc.name, got, tc.want)
		}
	}
	if sandbox.LimitReached != "LIMIT" {
		t.Errorf("the sandbox's limit verdict is %q, the grader's LIMIT", sandbox.LimitReached)
	}
}
