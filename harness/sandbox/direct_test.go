package sandbox_test

import (
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"

	"gauntlet/harness/sandbox"
)

// ownUserConfig is testConfig for a run as the harness's own user, outside a box: the
// programs start without the exec role.
func ownUserConfig() sandbox.Config {
	cfg := testConfig()
	cfg.Identity = sandbox.Identity{Same: true}
	return cfg
}

// ignoreHUP makes this process ignore SIGHUP until the returned function runs: the sandbox
// then starts every program through the exec role, the one way to give the program the
// default action back.
func ignoreHUP() (restore func()) {
	signal.Ignore(syscall.SIGHUP)
	// signal.Reset would leave SIGHUP ignored (see TestIgnoredSignalsReset).
	return func() { signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP) }
}

// A program of the harness's own user, outside a box, starts without the exec role, set up
// while it is stopped at its exec: it has the limits, the niceness, no_new_privs, the
// empty signal mask and the session of its own that the role gives (the same program
// started through the role prints the same), and it is no longer traced.
func TestDirectStartGivesWhatTheRoleGives(t *testing.T) {
	// The shell's own status is read last, by itself once it has exec'd grep: while the
	// shell forks, it blocks every signal for a moment.
	script := `ulimit -a; ulimit -Ha
set -- $(cut -d')' -f2 /proc/$$/stat)
echo "session leader: $([ "$4" = $$ ] && echo yes || echo no)"
echo "nice: ${17}"
exec grep -E '^(NoNewPrivs|SigBlk|SigIgn|TracerPid):' /proc/self/status
`
	run := func(t *testing.T) (out string, direct bool) {
		t.Helper()
		before := sandbox.DirectStarts()
		res, err := sandbox.Run(ownUserConfig(), sandbox.Spec{Path: "/bin/sh", Args: []string{"-c", script}})
		if err != nil {
			t.Fatal(err)
		}
		if p := res.Procs[0]; p.Exit != (sandbox.Exit{}) || len(p.Stderr) > 0 {
			t.Fatalf("%s", res)
		}
		return string(res.Procs[0].Stdout), sandbox.DirectStarts() == before+1
	}
	direct, wasDirect := run(t)
	if !wasDirect {
		t.Fatal("the program of the harness's own user was started through the exec role")
	}
	restore := ignoreHUP()
	role, wasDirect := run(t)
	restore()
	if wasDirect {
		t.Fatal("a harness that ignores SIGHUP started a program without the exec role")
	}
	if direct != role {
		t.Errorf("started directly, the program sees\n%s\nthrough the exec role\n%s", direct, role)
	}
	for _, want := range []string{"NoNewPrivs:\t1\n", "SigBlk:\t0000000000000000\n", "SigIgn:\t0000000000000000\n",
		"TracerPid:\t0\n", "session leader: yes\n", "nice: 10\n"} {
		if !strings.Contains(direct, want) {
			t.Errorf("started directly, the program does not see %q:\n%s", want, direct)
		}
	}
}
