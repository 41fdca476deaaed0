package sandbox_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gauntlet/harness/box/hygiene"
	"gauntlet/harness/box/sandbox"
	"gauntlet/harness/runtime/child"
	"gauntlet/internal/buildtest"
)

// A boxed program is in a PID namespace of its own, whose init is the harness's (pid 1):
// it sees only its namespace's processes, is never pid 1 itself, and ends by the signals
// the harness sends its group, with their default actions (the init is shielded from
// them by the kernel); what it leaves running is still found, reported and killed.
func TestBoxedProgramHasItsOwnPIDNamespace(t *testing.T) {
	boxOrSkip(t)
	cfg := testConfig()
	cfg.Box = &sandbox.Box{}
	script := `echo "pid: $$"; echo "procs: $(ls -d /proc/[0-9]* | tr '\n' ' ')"; echo "init: $(cat /proc/1/comm 2>&1 | head -c 40)"`
	res, err := sandbox.Run(cfg, sandbox.Spec{Path: "/bin/sh", Args: []string{"-c", script}})
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.Procs[0].Stdout)
	// The init's threads take the first pids of the namespace; the init itself is
	// root's, which hidepid hides from the sandbox user.
	var pid int
	fmt.Sscanf(out, "pid: %d", &pid)
	if pid <= 1 || pid > 20 || res.Procs[0].Exit != (sandbox.Exit{}) {
		t.Errorf("the program is not a low pid other than 1 in its own namespace (exit %+v):\n%s%s", res.Procs[0].Exit, out, res.Procs[0].Stderr)
	}
	procs := strings.Fields(strings.TrimPrefix(strings.SplitN(out, "\n", 3)[1], "procs: "))
	if len(procs) > 4 || !strings.Contains(out, "init: cat: /proc/1/comm: No such file") {
		t.Errorf("the namespace shows more than the program's own processes:\n%s", out)
	}
	assertNothingLeft(t, res)

	// A signal to the program's pid alone reaches it, not the init the harness started
	// for it (a script's run -signal).
	g := startSleeper(t, cfg)
	syscall.Kill(g.Procs()[0].Pid(), syscall.SIGHUP)
	res = g.Wait()
	if got := res.Procs[0].Exit; got.Signal != syscall.SIGHUP {
		t.Errorf("after SIGHUP to its pid the program ended with %+v, want the signal", got)
	}
	assertNothingLeft(t, res)

	// A signal to the run's group ends the program by it, not the init.
	g = startSleeper(t, cfg)
	g.Procs()[0].Signal(syscall.SIGINT)
	res = g.Wait()
	if got := res.Procs[0].Exit; got.Signal != syscall.SIGINT {
		t.Errorf("after SIGINT the program ended with %+v, want the signal", got)
	}
	assertNothingLeft(t, res)

	// A process the program leaves behind is found, reported and gone.
	res, err = sandbox.Run(cfg, sandbox.Spec{Path: "/bin/sh", Args: []string{"-c", "sleep 30 & echo started"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Procs[0].Exit != (sandbox.Exit{}) || !hasFinding(res, hygiene.LeftRunning) {
		t.Errorf("a background sleep was not found left running: exit %+v, hygiene %v", res.Procs[0].Exit, res.Hygiene)
	}
	assertNothingLeft(t, res)
}

// A boxed run whose program left its init nothing ends without a sweep of /proc: the
// init's end shows its namespace empty. A run whose program left a process is swept, and
// the process found (above).
func TestBoxedRunThatLeftNothingIsNotSwept(t *testing.T) {
	boxOrSkip(t)
	defer sandbox.WaitForInits(time.Minute)()
	cfg := testConfig()
	cfg.Box = &sandbox.Box{}
	for _, script := range []string{"echo hi", "sleep 0.1 & wait; echo waited", "kill -HUP $$"} {
		g, err := sandbox.Start(cfg, sandbox.Spec{Path: "/bin/sh", Args: []string{"-c", script}})
		if err != nil {
			t.Fatal(err)
		}
		res := g.Wait()
		if len(res.Hygiene.Findings) > 0 || len(res.Errors) > 0 {
			t.Errorf("%q: findings %v, errors %v", script, res.Hygiene.Findings, res.Errors)
		}
		if n := sandbox.SweepsAsked(g); n != 0 {
			t.Errorf("%q left nothing, and its run's end swept /proc %d times", script, n)
		}
		assertNothingLeft(t, res)
	}
	g, err := sandbox.Start(cfg, sandbox.Spec{Path: "/bin/sh", Args: []string{"-c", "sleep 30 & echo started"}})
	if err != nil {
		t.Fatal(err)
	}
	if res := g.Wait(); !hasFinding(res, hygiene.LeftRunning) || sandbox.SweepsAsked(g) == 0 {
		t.Errorf("a background sleep: findings %v, %d sweeps", res.Hygiene.Findings, sandbox.SweepsAsked(g))
	}
}

// A stopped boxed run ends with its inits, without a sweep of /proc: what its program left
// running goes with its namespace, and the program's end is the signal it was stopped by.
func TestStoppedBoxedRunEndsWithItsInits(t *testing.T) {
	boxOrSkip(t)
	cfg := testConfig()
	cfg.Box = &sandbox.Box{}
	g := startGroup(t, cfg, sandbox.Spec{Name: "leaver", Path: "/bin/sh", Args: []string{"-c", "sleep 30 & echo up; exec sleep 30"},
		Stdout: sandbox.Pipe})
	if _, err := g.Procs()[0].Stdout().Read(make([]byte, 3)); err != nil {
		t.Fatal(err)
	}
	res := g.Stop()
	if got := res.Procs[0].Exit; got.Signal != syscall.SIGTERM {
		t.Errorf("the stopped program ended with %+v", got)
	}
	if len(res.Errors) > 0 {
		t.Errorf("errors: %v", res.Errors)
	}
	if n := sandbox.SweepsAsked(g); n != 0 {
		t.Errorf("the stopped run's end swept /proc %d times", n)
	}
	assertNothingLeft(t, res)
}

// hasFinding says whether the run's hygiene audit found one of kind.
func hasFinding(res *sandbox.Result, kind hygiene.FindingKind) bool {
	for _, f := range res.Hygiene.Findings {
		if f.Kind == kind {
			return true
		}
	}
	return false
}

// A boxed program that a caller waits for itself (sandbox.Command: the fuzzer, tournaments)
// ends, as the caller sees it, as the program ended: by its exit status or its signal, and
// nothing it started outlives it.
func TestBoxedCommandEndsAsItsProgram(t *testing.T) {
	boxOrSkip(t)
	cfg := testConfig()
	cfg.Box = &sandbox.Box{}
	for _, tc := range []struct {
		script string
		check  func(ws syscall.WaitStatus) bool
		want   string
	}{
		{"exit 7", func(ws syscall.WaitStatus) bool { return ws.Exited() && ws.ExitStatus() == 7 }, "exit 7"},
		{"kill -HUP $$", func(ws syscall.WaitStatus) bool { return ws.Signaled() && ws.Signal() == syscall.SIGHUP }, "SIGHUP"},
		{"sleep 3600 & echo $$", func(ws syscall.WaitStatus) bool { return ws.Exited() && ws.ExitStatus() == 0 }, "exit 0"},
	} {
		var out bytes.Buffer
		cmd := sandbox.Command(cfg, nil, "/bin/sh", "-c", tc.script)
		cmd.Stdout = &out
		cmd.Dir = t.TempDir()
		// The background sleep holds no stream: Wait returns when the program's end
		// ends the namespace.
		var err error
		buildtest.Returns(t, tc.script+": the command waits for the background sleep", func() { err = cmd.Run() })
		if err != nil && !isExit(err) {
			t.Fatalf("%s: %v", tc.script, err)
		}
		ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
		if !tc.check(ws) {
			t.Errorf("%s: the command ended with %v, want %s", tc.script, ws, tc.want)
		}
	}
	// The same through child.Start, as the fuzzer starts a program and signals it.
	c, err := child.Start(child.Spec{Path: "/bin/sh", Args: []string{"-c", "echo up; read x"},
		Build: func(path string, args []string) *exec.Cmd { return sandbox.Command(cfg, nil, path, args...) }})
	if err != nil {
		t.Fatal(err)
	}
	line := make([]byte, 3)
	if _, err := c.Out.Read(line); err != nil {
		t.Fatal(err)
	}
	c.Signal(syscall.SIGTERM)
	c.Cmd.Wait()
	if ws := c.Cmd.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Errorf("after SIGTERM the command ended with %v", ws)
	}
	// A signal for the program alone (a mock hub's signal step, as a hub's kill(pid, sig))
	// goes to ProgramPid: the command's own pid is its supervisor's, which ignores it.
	c, err = child.Start(child.Spec{Path: "/bin/sh", Args: []string{"-c", "echo up; read x"},
		Build: func(path string, args []string) *exec.Cmd { return sandbox.Command(cfg, nil, path, args...) }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Out.Read(line); err != nil {
		t.Fatal(err)
	}
	pid := sandbox.ProgramPid(cfg, c.Cmd)
	if pid <= 0 || pid == c.Cmd.Process.Pid {
		c.Signal(syscall.SIGKILL)
		c.Cmd.Wait()
		t.Fatalf("ProgramPid = %d, want the program's below the supervisor %d", pid, c.Cmd.Process.Pid)
	}
	syscall.Kill(pid, syscall.SIGTERM)
	c.Cmd.Wait()
	if ws := c.Cmd.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Errorf("after SIGTERM to ProgramPid the command ended with %v", ws)
	}
}

func isExit(err error) bool {
	_, ok := err.(*exec.ExitError)
	return ok
}

// A FIFO in a program's place is refused at once, directly and through the role, where
// the open of the program waited for a writer forever before 2026-11-28.
func TestFIFOInTheProgramsPlaceIsRefused(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "prog")
	if err := syscall.Mkfifo(fifo, 0o755); err != nil {
		t.Fatal(err)
	}
	cfgs := []sandbox.Config{{Identity: sandbox.Identity{Same: true}}}
	if boxProblem() == nil {
		boxed := testConfig()
		boxed.Box = &sandbox.Box{Keep: []string{filepath.Dir(fifo)}}
		cfgs = append(cfgs, boxed)
	}
	for _, cfg := range cfgs {
		done := make(chan error, 1)
		go func() {
			res, err := sandbox.Run(cfg, sandbox.Spec{Path: fifo})
			if err == nil && (len(res.Procs) != 1 || res.Procs[0].Exit == (sandbox.Exit{})) {
				err = fmt.Errorf("a FIFO ran: %s", res)
			} else {
				err = nil
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Error(err)
			}
		case <-time.After(30 * time.Second): // a backstop: a refusal takes milliseconds
			t.Fatalf("boxed %v: the start of a FIFO did not return", cfg.Box != nil)
		}
	}
}

// orphanHarnessEnv makes the test binary a harness that starts two boxed programs, `sleep
// MARKER` (one in a Group, one by Command, each in a PID namespace of its own), says
// "started" and waits to be killed (orphanHarness).
const orphanHarnessEnv = "GAUNTLET_SANDBOX_TEST_ORPHAN"

func orphanHarness(marker string) {
	if !startOrphans(&sandbox.Box{}, marker) {
		return
	}
	fmt.Println("started")
	select {}
}

// startOrphans starts two boxed `sleep MARKER` in box, one a run of a Group and one a
// sandbox.Command, and returns once both run (their inits have started them); on an error
// it says it on stdout and returns false.
func startOrphans(box *sandbox.Box, marker string) bool {
	cfg := testConfig()
	cfg.Box = box
	cfg.Deadline = time.Hour
	if _, err := sandbox.Start(cfg, sandbox.Spec{Path: "/bin/sleep", Args: []string{marker}}); err != nil {
		fmt.Println(err)
		return false
	}
	cmd := sandbox.Command(cfg, nil, "/bin/sleep", marker)
	if err := child.StartCmd(cmd); err != nil {
		fmt.Println(err)
		return false
	}
	for len(sleepsOf(marker)) < 2 {
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// sleepsOf returns the pids of the processes `sleep MARKER`.
func sleepsOf(marker string) []int {
	var pids []int
	files, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err == nil && string(b) == "/bin/sleep\x00"+marker+"\x00" {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
			pids = append(pids, pid)
		}
	}
	return pids
}

// startOrphanHarness starts this test binary (self) as a harness of its own, told by the
// variable env to start boxed sleeps whose command lines carry marker, and returns it with
// the first line it wrote once they run. The test's cleanup kills the sleeps it left.
func startOrphanHarness(t *testing.T, self, env, marker string) (*exec.Cmd, string) {
	t.Helper()
	t.Cleanup(func() {
		for _, pid := range sleepsOf(marker) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	// Its runs' working folders go in a folder of the test's, which the test removes: the
	// harness, killed outright, cannot.
	tmp := t.TempDir()
	buildtest.SearchableByOthers(t, tmp)
	cmd := exec.Command(self, "-test.run", "^$")
	cmd.Env = append(os.Environ(), env+"="+marker, "TMPDIR="+tmp)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	return cmd, line
}

// A harness killed outright (SIGKILL, which it cannot catch) takes its boxed programs with
// it: the init of each program's PID namespace ends once its parent is gone, and the
// kernel then kills the namespace. A parent-death signal alone left them running for ever
// (the kernel keeps SIGKILL from a namespace's init): a killed tournament left its
// programs' sleeps behind.
func TestBoxedProgramsEndWithAKilledHarness(t *testing.T) {
	boxOrSkip(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	marker := strconv.Itoa(400000 + os.Getpid())
	cmd, line := startOrphanHarness(t, self, orphanHarnessEnv, marker)
	if line != "started\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the harness did not start its programs: %q", line)
	}
	sleeps := sleepsOf(marker)
	cmd.Process.Kill()
	cmd.Wait()
	// The inits (whose command lines are their programs') come to this process, the
	// tracker's subreaper, as zombies: dead, and reaped here.
	if left := buildtest.UntilDying(sleeps); len(left) > 0 {
		t.Errorf("boxed programs %v outlived the harness killed outright", left)
	}
	for _, pid := range sleeps {
		var ws syscall.WaitStatus
		syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
	}
}

// The sweeps read the threads of a boxed run's processes, but never those of the init the
// harness started for it (a Go program asleep in its wait, with the runtime's threads
// beside it): a thread's folder looked up under the init's in /proc made the init's reap
// spin in the kernel, about half the harness's CPU in a grade (runTrack.isInit).
func TestSweepsReadNoThreadOfTheInit(t *testing.T) {
	boxOrSkip(t)
	read, restore := sandbox.ThreadReads()
	defer restore()
	cfg := testConfig()
	cfg.Box = &sandbox.Box{}
	g := startSleeper(t, cfg)
	init := g.Procs()[0].RolePid()
	for range 3 {
		sandbox.SweepNow(g)
	}
	g.Stop()
	if slices.Contains(read(), init) {
		t.Errorf("the sweeps read the threads of the init %d the harness started for the run (read: %v)", init, read())
	}
}
