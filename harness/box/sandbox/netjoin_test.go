package sandbox_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gauntlet/harness/box/sandbox"
	"gauntlet/internal/buildtest"
)

// rootlessNetOrSkip makes the calling test (a top-level one) parallel, for it runs in a
// process of its own, as another user: it reruns the test as an unprivileged user when
// this process is root (it returns true then: the test is done), and otherwise needs what a
// rootless Net needs: a rootless box, and a C compiler, which these tests have (TestMain).
func rootlessNetOrSkip(t *testing.T) (done bool) {
	t.Helper()
	t.Parallel()
	return rootlessNetAs(t, asUnprivileged)
}

// rootlessNetAs is rootlessNetOrSkip with the rerun as rerun makes it (asAlone: for a test
// that counts its user's tasks).
func rootlessNetAs(t *testing.T, rerun func(*testing.T, string) bool) (done bool) {
	t.Helper()
	if rerun(t, "^"+t.Name()+"$") {
		return true
	}
	buildtest.NeedBox(t, sandbox.RootlessProblem())
	if err := sandbox.NetProblem(); err != nil {
		t.Fatal(err)
	}
	return false
}

// untilListened waits until a socket of n listens on port, or the server has ended.
func untilListened(t *testing.T, n *sandbox.Net, port int, srv *sandbox.Group) bool {
	t.Helper()
	for start := time.Now(); time.Since(start) < 30*time.Second; time.Sleep(5 * time.Millisecond) {
		ok, err := n.Listens(port)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			return true
		}
		if _, ended := srv.Procs()[0].Exit(); ended {
			return false
		}
	}
	return false
}

// A grader that is not root gives the runs of one case one network (sandbox.Net, through
// its C holder and join helper): a server run in the background listens on the port
// FreePort chose, Listens sees it, and client runs of the same Net reach it; a run of
// another Net (another case's) and a run in a box of its own do not, nor does the other
// Net see the socket. Each run is still boxed as every rootless run is: no capability,
// not its namespace's init, no user namespace of its own, only a loopback; and nothing of
// it is left once it ends, nor of the holder once the Net is closed. Before 2026-11-28 a
// rootless grader had no Net (NewNet needed root).
func TestRootlessNetIsSharedByACasesRuns(t *testing.T) {
	if rootlessNetOrSkip(t) {
		return
	}
	n := newNet(t)
	other := newNet(t)
	port, err := n.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Do(func() error { return nil }); !errors.Is(err, sandbox.ErrNetRootless) {
		t.Errorf("Do on a rootless Net: %v, want ErrNetRootless", err)
	}
	shared := testConfig()
	shared.Box = &sandbox.Box{Net: n}
	srv := startGroup(t, shared, sandbox.Spec{Name: "server", Path: prog("tcpserve"), Args: []string{strconv.Itoa(port), "2"}})
	if !untilListened(t, n, port, srv) {
		t.Fatalf("the server does not listen on %d in the case's network: %+v", port, srv.Wait().Procs[0])
	}
	if seen, err := other.Listens(port); err != nil || seen {
		t.Errorf("another case's network sees the server's socket (%v)", err)
	}
	loopbackMissesServer(t, port)
	client := `(exec 3<>/dev/tcp/127.0.0.1/` + strconv.Itoa(port) + ` && cat <&3) 2>/dev/null || echo "cut off"`
	otherCfg := testConfig()
	otherCfg.Box = &sandbox.Box{Net: other}
	ownCfg := testConfig()
	ownCfg.Box = &sandbox.Box{}
	inside := `
unshare -Ur true 2>/dev/null && echo "nested: made" || echo "nested: refused"
grep -E '^Cap(Eff|Prm|Amb):' /proc/self/status
echo "pid: $$"
echo "init: $(cat /proc/1/comm 2>&1 | head -c 40)"
echo "netdevs: $(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\n' ' ')"
` + client
	for _, tc := range []struct {
		name   string
		cfg    sandbox.Config
		script string
		want   []string
	}{
		{"another case's network", otherCfg, client, []string{"cut off\n"}},
		{"a network of its own", ownCfg, client, []string{"cut off\n"}},
		{"the case's network", shared, inside, []string{"hello 2\n", "nested: refused\n", "CapEff:\t0000000000000000\n",
			"CapPrm:\t0000000000000000\n", "CapAmb:\t0000000000000000\n", "netdevs: lo \n", "init: cat: /proc/1/comm: No such file"}},
		{"the case's network again", shared, client, []string{"hello 1\n"}},
	} {
		res, err := sandbox.Run(tc.cfg, sandbox.Spec{Path: "/bin/bash", Args: []string{"-c", tc.script}})
		if err != nil {
			t.Fatal(err)
		}
		out := string(res.Procs[0].Stdout)
		for _, want := range tc.want {
			if !strings.Contains(out, want) {
				t.Errorf("%s: the client said %q, want %q in it (stderr %q)", tc.name, out, want, res.Procs[0].Stderr)
			}
		}
		if strings.Contains(out, "pid: 1\n") {
			t.Errorf("%s: the program is its namespace's init:\n%s", tc.name, out)
		}
		if len(res.Hygiene.Findings) > 0 || len(res.Errors) > 0 {
			t.Errorf("%s: findings %v, errors %v", tc.name, res.Hygiene.Findings, res.Errors)
		}
		assertNothingLeft(t, res)
	}
	res := srv.Wait()
	if e := res.Procs[0].Exit; e != (sandbox.Exit{}) || len(res.Hygiene.Findings) > 0 {
		t.Errorf("the server: %+v, want exit 0 after its two answers (stderr %q; findings %v)", e, res.Procs[0].Stderr, res.Hygiene.Findings)
	}
	assertNothingLeft(t, res)
	holder := sandbox.NetHolder(n)
	if holder <= 0 {
		t.Fatal("a rootless Net without a holder")
	}
	if err := n.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := syscall.Kill(holder, 0); err != syscall.ESRCH {
		t.Errorf("the holder %d is still there after Close (%v)", holder, err)
	}
	if _, err := sandbox.Run(shared, sandbox.Spec{Path: "/bin/true"}); err == nil {
		t.Errorf("a run joined a closed Net")
	}
}

// startSleeper starts a program named sleeper in cfg that sleeps once it has said so.
func startSleeper(t *testing.T, cfg sandbox.Config) *sandbox.Group {
	t.Helper()
	g := startGroup(t, cfg, sandbox.Spec{Name: "sleeper", Path: "/bin/sh", Args: []string{"-c", "echo up; exec sleep 30"},
		Stdout: sandbox.Pipe})
	line := make([]byte, 3)
	if _, err := g.Procs()[0].Stdout().Read(line); err != nil {
		t.Fatal(err)
	}
	return g
}

// A signal to a rootless run of a Net reaches the program (its pid alone, or the run's
// group), and the program's end is the run's, not its join helper's nor its init's.
func TestRootlessNetRunEndsAsItsProgram(t *testing.T) {
	if rootlessNetOrSkip(t) {
		return
	}
	n := newNet(t)
	cfg := testConfig()
	cfg.Box = &sandbox.Box{Net: n}
	res, err := sandbox.Run(cfg, sandbox.Spec{Path: "/bin/sh", Args: []string{"-c", "exit 3"}})
	if err != nil {
		t.Fatal(err)
	}
	if e := res.Procs[0].Exit; e.Code != 3 {
		t.Errorf("exit 3 ended as %+v", e)
	}
	// A program its owner may only run (as the grader's are, rootless), which the role
	// opens with the capability the join helper raised for it.
	keep := t.TempDir()
	b, err := os.ReadFile("/bin/true")
	if err != nil {
		t.Fatal(err)
	}
	runOnly := filepath.Join(keep, "true")
	if err := os.WriteFile(runOnly, b, 0o111); err != nil {
		t.Fatal(err)
	}
	kept := cfg
	kept.Box = &sandbox.Box{Net: n, Keep: []string{keep}}
	if res, err := sandbox.Run(kept, sandbox.Spec{Path: runOnly}); err != nil || res.Procs[0].Exit != (sandbox.Exit{}) {
		t.Errorf("an execute-only program in a rootless Net: %v %+v", err, res)
	}
	for _, group := range []bool{false, true} {
		g := startSleeper(t, cfg)
		if group {
			g.Procs()[0].Signal(syscall.SIGINT)
		} else {
			syscall.Kill(g.Procs()[0].Pid(), syscall.SIGHUP)
		}
		res := g.Wait()
		want := map[bool]syscall.Signal{false: syscall.SIGHUP, true: syscall.SIGINT}[group]
		if got := res.Procs[0].Exit; got.Signal != want {
			t.Errorf("after %v the program ended with %+v", want, got)
		}
		if len(res.Hygiene.Findings) > 0 || len(res.Errors) > 0 {
			t.Errorf("findings %v, errors %v", res.Hygiene.Findings, res.Errors)
		}
		assertNothingLeft(t, res)
	}
	// A run past its deadline: the hang's diagnosis is the program's, never its init's
	// nor the helper's.
	hung := cfg
	hung.Deadline = 300 * time.Millisecond
	g := startSleeper(t, hung)
	pid := g.Procs()[0].Pid()
	res = g.Wait()
	if !res.DeadlinePassed || res.Hang == nil || len(res.Hang.Procs) != 1 || res.Hang.Procs[0].Pid != pid || res.Hang.Procs[0].Comm != "sleeper" {
		t.Errorf("the hang of program %d: %+v", pid, res.Hang)
	}
	assertNothingLeft(t, res)
	// sandbox.Command (a tournament's, a fuzzer's) in a Net: it ends as its program.
	cmd := sandbox.Command(cfg, nil, "/bin/sh", "-c", "exit 5")
	if err := cmd.Run(); err == nil || cmd.ProcessState.ExitCode() != 5 {
		t.Errorf("a Command in a rootless Net: %v, want exit 5", err)
	}
}

// orphanNetHarnessEnv makes the test binary a harness like orphanHarness, whose two boxed
// sleeps share a rootless Net: it says "started HOLDER" and waits to be killed.
const orphanNetHarnessEnv = "GAUNTLET_SANDBOX_TEST_ORPHAN_NET"

// A harness killed outright takes the runs of its rootless Nets with it, and the Nets'
// holders.
func TestRootlessNetEndsWithAKilledHarness(t *testing.T) {
	if rootlessNetOrSkip(t) {
		return
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	marker := strconv.Itoa(410000 + os.Getpid())
	cmd, line := startOrphanHarness(t, self, orphanNetHarnessEnv, marker)
	holder, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(line), "started "))
	if !strings.HasPrefix(line, "started ") || err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the harness did not start its programs: %q", line)
	}
	// The programs and their inits (whose command lines are the programs'), and the holder.
	all := append(sleepsOf(marker), holder)
	cmd.Process.Kill()
	cmd.Wait()
	if left := buildtest.UntilDying(all); len(left) > 0 {
		t.Errorf("boxed programs or the holder %v outlived the harness killed outright", left)
	}
	// They come to this process, the tracker's subreaper: reaped here once dead (an init
	// ends once the kernel has ended every process of its namespace).
	deadline := time.Now().Add(buildtest.GoneWithin)
	for _, pid := range all {
		for syscall.Kill(pid, 0) != syscall.ESRCH && time.Now().Before(deadline) {
			var ws syscall.WaitStatus
			if wpid, _ := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); wpid != pid {
				time.Sleep(5 * time.Millisecond)
			}
		}
	}
}

// orphanNetHarness is orphanHarness with its sleeps in a rootless Net, whose holder it names.
func orphanNetHarness(marker string) {
	n, err := sandbox.NewNet()
	if err != nil {
		fmt.Println(err)
		return
	}
	if !startOrphans(&sandbox.Box{Net: n}, marker) {
		return
	}
	fmt.Printf("started %d\n", sandbox.NetHolder(n))
	select {}
}

// A run of a rootless Net has the same room under the process limit as a run with a
// network of its own: the join helper's thin parent, which the kernel counts in the run's
// user namespace but the role cannot see, is not taken from the program's processes. (The
// most of a few runs each: a thread the init's runtime starts after the role counted its
// tasks leaves a program one process less, now and then, either way.)
func TestRootlessNetKeepsTheProcessLimit(t *testing.T) {
	// As a user no other test runs as meanwhile: the limit counts that user's tasks.
	if rootlessNetAs(t, asAlone) {
		return
	}
	n := newNet(t)
	most := map[bool]int{}
	for range 5 {
		for _, withNet := range []bool{false, true} {
			cfg := testConfig()
			cfg.Limits.Processes = 5
			cfg.Box = &sandbox.Box{}
			if withNet {
				cfg.Box.Net = n
			}
			res, err := sandbox.Run(cfg, sandbox.Spec{Path: prog("forkcount")})
			if err != nil {
				t.Fatal(err)
			}
			var forked int
			if _, err := fmt.Sscanf(string(res.Procs[0].Stdout), "forked %d", &forked); err != nil {
				t.Fatalf("forkcount said %q (%v)", res.Procs[0].Stdout, err)
			}
			most[withNet] = max(most[withNet], forked)
			assertNothingLeft(t, res)
		}
	}
	if most[false] != most[true] || most[false] < 1 {
		t.Errorf("with a network of its own the program forked up to %d processes, in a Net up to %d", most[false], most[true])
	}
}
