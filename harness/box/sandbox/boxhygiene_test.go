package sandbox_test

import (
	"fmt"
	"strings"
	"testing"

	"gauntlet/harness/box/hygiene"
	"gauntlet/harness/box/sandbox"
	"gauntlet/internal/buildtest"
)

// The box's hygiene of issues 56 and 57, root and rootless (TestSandboxRootless runs these
// again as an unprivileged user).

// The init of a program's PID namespace survives every signal the program can send it
// (kill(1, SIGSEGV) from a rootless box's program, which has the init's user, crashed it),
// and nothing of it reaches the program's streams: the program's end is reported as the
// program made it, and its stderr holds no Go traceback.
func TestInitSurvivesItsProgramsSignals(t *testing.T) {
	boxOrSkip(t)
	cfg := testConfig()
	cfg.Box = &sandbox.Box{}
	res, err := sandbox.Run(cfg, sandbox.Spec{Path: prog("initkiller")})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Procs[0]
	if p.Exit != (sandbox.Exit{Code: 3}) || string(p.Stdout) != "still here\n" || len(res.Errors) > 0 {
		t.Errorf("after signalling its init, the program ended with %v, stdout %q, errors %q; want exit status 3 and its line", p.Exit, p.Stdout, res.Errors)
	}
	if len(p.Stderr) > 0 {
		t.Errorf("the program's stderr holds what it did not write (the init's?):\n%s", p.Stderr)
	}
	assertNothingLeft(t, res)
}

// A boxed program may make no user namespace, root box or rootless (a root box let
// unshare(CLONE_NEWUSER) then CLONE_NEWNS through: kernel attack surface), by unshare, by
// clone (refused: EPERM) or by clone3 (ENOSYS: the C library falls back to clone), and its
// capability bounding set is empty; a plain fork still works.
func TestBoxRefusesUserNamespaces(t *testing.T) {
	boxOrSkip(t)
	cfg := testConfig()
	cfg.Box = &sandbox.Box{}
	res, err := sandbox.Run(cfg, sandbox.Spec{Path: prog("userns")})
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.Procs[0].Stdout)
	for _, want := range []string{"clone: Operation not permitted\n", "clone3: Function not implemented\n", "fork: made\n",
		"unshare: Operation not permitted\n", "CapBnd:\t0000000000000000\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("in the box, want %q; the program said (%v):\n%s%s", want, res.Procs[0].Exit, out, res.Procs[0].Stderr)
		}
	}
}

// A boxed program leads a session and a process group of its own, as a program a shell
// starts (docs/harness.md; it was its init's: pid=5 pgrp=1 sid=1), and the box counts the
// children it left for the box's init to reap: none when it killed and reaped them, each
// otherwise, the one dead before it ended and the one still alive alike (issue 57), and
// one that is not dumpable too, which a rootless init may not trace: the box's /proc hides
// it from that init, whose count missed it (as it missed the witness's execute-only
// stand-ins for a dealer's players) until the init counted in a /proc of its own.
func TestBoxedProgramLeadsItsSessionAndLeavesNoChildUncounted(t *testing.T) {
	boxOrSkip(t)
	t.Run("own network", func(t *testing.T) { checkSessionAndOrphans(t, &sandbox.Box{}) })
	// A case's runs that share a network start otherwise (rootless, through the join
	// helper: netjoin.go), to the same init.
	t.Run("shared network", func(t *testing.T) {
		buildtest.NeedBox(t, sandbox.NetProblem())
		checkSessionAndOrphans(t, &sandbox.Box{Net: newNet(t)})
	})
	// Unboxed, nothing counts them.
	res, err := sandbox.Run(testConfig(), sandbox.Spec{Path: prog("unreaped"), Args: []string{"reap"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Procs[0].Orphans != -1 {
		t.Errorf("unboxed, Orphans = %d, want -1 (not counted)", res.Procs[0].Orphans)
	}
}

// checkSessionAndOrphans runs unreaped in box (TestBoxedProgramLeadsItsSessionAndLeavesNoChildUncounted).
func checkSessionAndOrphans(t *testing.T, box *sandbox.Box) {
	cfg := testConfig()
	cfg.Box = box
	for _, c := range []struct {
		args    []string
		orphans int
		stays   bool // a child waits for ever: the harness finds it left running
	}{{[]string{"reap"}, 0, false}, {nil, 2, false}, {[]string{"hidden"}, 3, true}} {
		res, err := sandbox.Run(cfg, sandbox.Spec{Path: prog("unreaped"), Args: c.args})
		if err != nil {
			t.Fatal(err)
		}
		p := res.Procs[0]
		var pid, pgrp, sid int
		if n, _ := fmt.Sscanf(string(p.Stdout), "pid=%d pgrp=%d sid=%d", &pid, &pgrp, &sid); n != 3 || pid != pgrp || pid != sid {
			t.Errorf("%v: the program does not lead its own session and group: %q", c.args, p.Stdout)
		}
		if p.Orphans != c.orphans {
			t.Errorf("%v: the box counted %d children left to it, want %d (exit %v)", c.args, p.Orphans, c.orphans, p.Exit)
		}
		if c.stays && !res.Hygiene.Has(hygiene.LeftRunning) {
			t.Errorf("%v: the child that waits for ever was not found left running: %v", c.args, res.Hygiene)
		}
		assertNothingLeft(t, res)
	}
}

// The same, where the box's init cannot trace its program's start (a kernel or container
// that refuses ptrace) and starts it through the exec role instead: forked as the
// program's user, with the bounding set already empty, the filter, the session and the
// count of what the program left the same.
func TestBoxHygieneThroughTheRole(t *testing.T) {
	defer sandbox.InitsUseRole()()
	t.Run("init", TestInitSurvivesItsProgramsSignals)
	t.Run("userns", TestBoxRefusesUserNamespaces)
	t.Run("session", TestBoxedProgramLeadsItsSessionAndLeavesNoChildUncounted)
}
