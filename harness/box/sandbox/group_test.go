package sandbox_test

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gauntlet/harness/box/hygiene"
	"gauntlet/harness/box/sandbox"
	"gauntlet/harness/runtime/transcript"
	"gauntlet/internal/buildtest"
)

// TestPipesWithPeer drives a program line by line through Pipe streams, as a mock hub
// drives a player, and checks that the transcript names both sides in order.
func TestPipesWithPeer(t *testing.T) {
	g, err := sandbox.Start(testConfig(), sandbox.Spec{
		Name: "player 0", Path: prog("relay"), Peer: "hub",
		Stdin: sandbox.Pipe, Stdout: sandbox.Pipe,
	})
	if err != nil {
		t.Fatal(err)
	}
	p := g.Process("player 0")
	in, out := bufio.NewReader(p.Stdout()), p.Stdin()
	for _, msg := range []string{"ping", "pong\x01"} {
		if _, err := out.Write([]byte(msg + "\n")); err != nil {
			t.Fatal(err)
		}
		got, err := in.ReadString('\n')
		if err != nil || got != msg+"\n" {
			t.Fatalf("read %q, %v; want %q", got, err, msg+"\n")
		}
	}
	out.Write([]byte("last"))
	out.Close()
	rest, _ := in.ReadString('\n')
	res := g.Wait()
	if rest != "last" || res.Verdict() != sandbox.OK || res.Procs[0].Exit.Code != 0 {
		t.Fatalf("rest %q, %s", rest, res)
	}
	// Lines of Pipe streams are recorded as the caller writes and reads them, so the exit
	// may come before the caller reads the last line: only lines are compared here.
	var kinds []string
	events := res.Transcript.Events()
	for _, e := range events {
		if e.Kind == transcript.Line {
			kinds = append(kinds, e.From+">"+e.To+" "+transcript.Escape(e.Data))
		}
	}
	want := []string{
		"hub>player 0 ping", "player 0>hub ping",
		"hub>player 0 pong\\x01", "player 0>hub pong\\x01",
		"hub>player 0 last", "player 0>hub last",
	}
	if events[0].Kind != transcript.Start || !slices.ContainsFunc(events, func(e transcript.Event) bool { return e.Kind == transcript.Exit }) {
		t.Errorf("no start or no exit in %v", events)
	}
	if strings.Join(kinds, "\n") != strings.Join(want, "\n") {
		t.Errorf("transcript:\n%s\nwant:\n%s", strings.Join(kinds, "\n"), strings.Join(want, "\n"))
	}
}

// TestSignalAndStop: a signal the harness sends is not a crash, and Stop ends a run early.
func TestSignalAndStop(t *testing.T) {
	t.Parallel() // the stubborn program's grace: beside the other tests, not before them
	cfg := testConfig()
	g, err := sandbox.Start(cfg,
		sandbox.Spec{Name: "a", Path: prog("sleeper")},
		sandbox.Spec{Name: "b", Path: prog("stubborn"), Stdout: sandbox.Pipe})
	if err != nil {
		t.Fatal(err)
	}
	// b says its line once it ignores SIGTERM.
	if line, err := bufio.NewReader(g.Process("b").Stdout()).ReadString('\n'); err != nil {
		t.Fatalf("b said %q, %v", line, err)
	}
	a := g.Process("a")
	if err := a.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	<-a.Done()
	// b ignores SIGTERM: Stop ends only by killing it after the grace.
	res := g.Stop()
	if !res.Stopped || res.DeadlinePassed || res.Verdict() != sandbox.OK {
		t.Errorf("stopped %v, deadline %v, verdict %s; want a stopped OK run\n%s", res.Stopped, res.DeadlinePassed, res.Verdict(), res)
	}
	if pa := res.Proc("a"); pa.Exit.Signal != syscall.SIGUSR1 || !pa.KilledByHarness() || pa.Crashed() {
		t.Errorf("a: %v", pa.Exit)
	}
	if pb := res.Proc("b"); pb.Exit.Signal != syscall.SIGKILL {
		t.Errorf("b ignores SIGTERM and must be killed: %v", pb.Exit)
	}
	if err := a.Signal(syscall.SIGTERM); err != os.ErrProcessDone {
		t.Errorf("signal after the end: %v", err)
	}
	if again := g.Wait(); again != res {
		t.Error("Wait after Stop returned another result")
	}
	assertNothingLeft(t, res)
}

// A run started from a goroutine whose thread then ends goes on: its programs are forked
// from the spawner's thread, so their parent-death signal waits for the harness's end.
func TestStartFromAThreadThatEnds(t *testing.T) {
	t.Parallel()
	var g *sandbox.Group
	var err error
	buildtest.OnThreadThatEnds(func() { g, err = sandbox.Start(testConfig(), sandbox.Spec{Name: "a", Path: prog("sleeper")}) })
	if err != nil {
		t.Fatal(err)
	}
	// The thread is gone: a parent-death signal would have been sent by now.
	if a := g.Process("a"); buildtest.Dying(a.RolePid()) || buildtest.Dying(a.Pid()) {
		t.Fatalf("the program ended with the thread that started the run:\n%s", g.Wait())
	}
	assertNothingLeft(t, g.Stop())
}

// A run under a sandbox user of its own finds what it leaves behind in its own session,
// alone: no run of the harness's user is under way (TestHostile has one beside it), so the
// tracker reads only the processes of the runs' users and its own started ones.
func TestRunOfItsOwnUserFindsWhatItLeaves(t *testing.T) {
	buildtest.NeedRoot(t, "sandbox users need root")
	res, err := sandbox.Run(testConfig(), sandbox.Spec{Path: prog("grandchild"), Args: []string{"setsid"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.UID == 0 || !res.Hygiene.Has(hygiene.LeftRunning) {
		t.Errorf("user %d, findings %v; want a sandbox user and a process left running", res.UID, res.Hygiene.Findings)
	}
	assertNothingLeft(t, res)
}

// A run of the harness's user that starts its program as a sandbox user (a judge
// starting the subject: Identity.Delegate) finds what that user leaves in a session of
// its own, alone: the tracker then reads only the delegate's processes and the run's own
// started ones, and the grandchild is the delegate's, reparented to the harness.
func TestDelegateRunFindsWhatItsUserLeaves(t *testing.T) {
	buildtest.NeedRoot(t, "sandbox users need root")
	lease, err := sandbox.NewLease()
	if err != nil {
		t.Fatal(err)
	}
	defer lease.Release()
	cfg := testConfig()
	cfg.Identity = sandbox.Identity{Same: true, Delegate: lease}
	res, err := sandbox.Run(cfg, sandbox.Spec{Path: prog("asuser"),
		Args: []string{strconv.Itoa(lease.UID()), strconv.Itoa(lease.GID()), prog("grandchild"), "setsid"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Hygiene.Has(hygiene.LeftRunning) {
		t.Errorf("findings %v; want the delegate's grandchild left running\n%s", res.Hygiene.Findings, res)
	}
	assertNothingLeft(t, res)
}

// TestConnectedPrograms joins two programs with a pipe, as a hub and its player.
func TestConnectedPrograms(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	g, err := sandbox.Start(testConfig(),
		sandbox.Spec{Name: "first", Path: prog("relay"), Stdin: sandbox.Bytes([]byte("through two\n")), Stdout: sandbox.File(w)},
		sandbox.Spec{Name: "second", Path: prog("relay"), Stdin: sandbox.File(r)})
	r.Close()
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	res := g.Wait()
	if got := string(res.Proc("second").Stdout); got != "through two\n" || res.Verdict() != sandbox.OK {
		t.Errorf("second printed %q; %s", got, res)
	}
}

func TestStartErrors(t *testing.T) {
	notExec := filepath.Join(progDir, "not-executable")
	if err := os.WriteFile(notExec, []byte("\x7fELF"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		specs []sandbox.Spec
		want  string
	}{
		{"missing program", []sandbox.Spec{{Path: prog("no-such-program")}}, "no such file"},
		{"not executable", []sandbox.Spec{{Path: notExec}}, "permission denied"},
		{"second of two fails", []sandbox.Spec{{Name: "ok", Path: prog("sleeper")}, {Name: "bad", Path: notExec}}, "start bad"},
		{"repeated name", []sandbox.Spec{{Name: "x", Path: prog("sleeper")}, {Name: "x", Path: prog("sleeper")}}, "repeated"},
		{"reserved name", []sandbox.Spec{{Name: "stdout", Path: prog("sleeper")}}, "repeated"},
		{"nothing", nil, "no program"},
	}
	for _, user := range users {
		for _, tc := range cases {
			t.Run(user.name+"/"+tc.name, func(t *testing.T) {
				before := descendants()
				g, err := sandbox.Start(user.config(), tc.specs...)
				if err == nil {
					g.Stop()
					t.Fatal("started")
				}
				if !strings.Contains(err.Error(), tc.want) {
					t.Errorf("error %q does not say %q", err, tc.want)
				}
				if after := descendants(); len(after) > len(before) {
					t.Errorf("processes left: %v", after)
				}
			})
		}
	}
}

// users are the two ways a program starts: as a sandbox user, through the exec role, and
// as the harness's own user outside a box, directly (see TestDirectStartGivesWhatTheRoleGives).
var users = []struct {
	name   string
	config func() sandbox.Config
}{{"sandbox user", testConfig}, {"own user", ownUserConfig}}

// TestEnvironment checks what a subject sees: its private directory as working directory,
// HOME and TMPDIR, the seeded files, the variables given, the run token, and not the role's
// variable; and the sandbox user it runs as, without supplementary groups.
func TestEnvironment(t *testing.T) {
	cases := []struct {
		name     string
		identity sandbox.Identity
		wantUID  func(res *sandbox.Result) bool
	}{
		{"default identity", sandbox.Identity{}, func(res *sandbox.Result) bool {
			return os.Geteuid() != 0 || (res.UID != 0 && res.UID != os.Getuid())
		}},
		{"harness user", sandbox.Identity{Same: true}, func(res *sandbox.Result) bool { return res.UID == os.Getuid() }},
	}
	if os.Getuid() == 0 {
		// A harness with a supplementary group, which its sandbox users must not keep.
		orig, err := syscall.Getgroups()
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.Setgroups(append(orig, 4242)); err != nil {
			t.Fatal(err)
		}
		defer syscall.Setgroups(orig)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.Identity = tc.identity
			cfg.KeepWorkDir = true
			cfg.Files = map[string][]byte{"in/deck.txt": []byte("5,2\n")}
			cfg.Env = []string{"FOO=config", "BAR=config"}
			script := `cat in/deck.txt; pwd; echo "$HOME $TMPDIR $FOO $BAR"; id -u; sed -n 's/^Groups:[[:space:]]*/groups:/p' /proc/self/status; env`
			res, err := sandbox.Run(cfg, sandbox.Spec{Path: "sh", Args: []string{"-c", script}, Env: []string{"FOO=spec"}})
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(res.WorkDir)
			lines := strings.Split(string(res.Procs[0].Stdout), "\n")
			if len(lines) < 5 {
				t.Fatalf("output %q, stderr %q\n%s", res.Procs[0].Stdout, res.Procs[0].Stderr, res)
			}
			dir := res.WorkDir
			if lines[0] != "5,2" || lines[1] != dir || lines[2] != dir+" "+dir+" spec config" || lines[3] != strconv.Itoa(res.UID) {
				t.Errorf("output %q, want deck, %s, HOME/TMPDIR, FOO=spec, uid %d", lines[:4], dir, res.UID)
			}
			if !tc.wantUID(res) {
				t.Errorf("ran as uid %d", res.UID)
			}
			if res.UID != os.Getuid() && strings.TrimSpace(lines[4]) != "groups:" {
				t.Errorf("a sandbox user with supplementary %q, want none", lines[4])
			}
			env := string(res.Procs[0].Stdout)
			if !strings.Contains(env, sandbox.TokenEnv+"="+res.Token+"\n") || strings.Contains(env, "GAUNTLET_SANDBOX_EXEC") {
				t.Errorf("environment:\n%s", env)
			}
			if res.Verdict() != sandbox.OK {
				t.Errorf("%s", res)
			}
		})
	}
}

// TestIgnoredSignalsReset: a harness that ignores SIGHUP (started by nohup) must still give
// its subjects the default action, which ends them.
func TestIgnoredSignalsReset(t *testing.T) {
	defer ignoreHUP()()
	g, err := sandbox.Start(testConfig(), sandbox.Spec{Path: prog("sleeper")})
	if err != nil {
		t.Fatal(err)
	}
	// Signal it once it runs the sleeper (before its exec, the role would still be ignoring
	// SIGHUP as this process does).
	waitForExe(t, g.Procs()[0].Pid(), "sleeper")
	g.Procs()[0].Signal(syscall.SIGHUP)
	res := g.Wait()
	if res.Procs[0].Exit.Signal != syscall.SIGHUP {
		t.Errorf("exit %v, want killed by SIGHUP", res.Procs[0].Exit)
	}
}

// waitForExe waits until process pid runs a program whose file name is name.
func waitForExe(t *testing.T, pid int, name string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); err == nil && filepath.Base(exe) == name {
			return
		}
	}
	t.Fatalf("process %d never ran %s", pid, name)
}

func TestConfigFlags(t *testing.T) {
	var c sandbox.Config
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.AddFlags(fs)
	if c.Limits != sandbox.DefaultLimits() || c.Deadline != sandbox.DefaultDeadline {
		t.Errorf("defaults not shown: %+v", c)
	}
	err := fs.Parse([]string{"-deadline", "3s", "-cpu", "2s", "-mem", "512M", "-procs", "10",
		"-fsize", "-1", "-nofile", "32", "-nice", "5", "-output-limit", "64K", "-grace", "1s",
		"-case-mem", "256M", "-case-disk", "32M"})
	if err != nil {
		t.Fatal(err)
	}
	want := sandbox.Limits{CPU: 2 * time.Second, AddressSpace: 512 << 20, Processes: 10,
		FileSize: sandbox.Unlimited, OpenFiles: 32, Nice: 5, CaseMemory: 256 << 20, CaseDisk: 32 << 20}
	if c.Limits != want || c.Deadline != 3*time.Second || c.Grace != time.Second || c.OutputLimit != 64<<10 {
		t.Errorf("got %+v", c)
	}
	for _, bad := range []string{"lots", "-5", "-1M"} {
		if err := fs.Parse([]string{"-mem", bad}); err == nil {
			t.Errorf("bad size %q accepted", bad)
		}
	}
	if err := want.Validate(); err != nil {
		t.Errorf("Validate(%+v) = %v", want, err)
	}
	for _, bad := range []sandbox.Limits{{CPU: -time.Second}, {Processes: -1}, {OpenFiles: -2}, {Nice: 20}, {Nice: -1}} {
		if err := bad.Validate(); err == nil {
			t.Errorf("Validate(%+v) accepted it", bad)
		}
	}
}

// TestTranscriptSink: a run's transcript can be copied as JSON lines to a file as it goes,
// and read back whole.
func TestTranscriptSink(t *testing.T) {
	var sink bytes.Buffer
	cfg := testConfig()
	cfg.Transcript = transcript.New(transcript.Options{Sink: &sink})
	res, err := sandbox.Run(cfg, sandbox.Spec{Path: prog("polite"), Stdin: sandbox.Bytes([]byte("a\nb\n"))})
	if err != nil {
		t.Fatal(err)
	}
	events, err := transcript.ReadJSON(&sink)
	if err != nil {
		t.Fatal(err)
	}
	if kept := res.Transcript.Events(); len(events) != len(kept) || len(events) < 6 {
		t.Errorf("sink has %d events, log %d", len(events), len(kept))
	}
}

// With WorkDir the program runs in the given folder, which is audited and kept.
func TestWorkDirIsUsedAuditedAndKept(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "input.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := sandbox.Run(sandbox.Config{WorkDir: dir, Identity: sandbox.Identity{Same: true}}, sandbox.Spec{
		Path: "/bin/sh", Args: []string{"-c", "cat input.txt; echo x > made.txt"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(res.Procs[0].Stdout); got != "hello\n" {
		t.Errorf("stdout %q, want the input file's contents", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "input.txt")); err != nil {
		t.Errorf("the working directory was not kept: %v", err)
	}
	found := false
	for _, f := range res.Hygiene.Findings {
		found = found || strings.Contains(f.String(), "made.txt")
	}
	if !found {
		t.Errorf("the created file was not reported: %+v", res.Hygiene)
	}
}

// A program held open for writing for a moment (as when a fork elsewhere in the harness
// copied the descriptor of the file being written) still starts; one that stays busy fails
// with the kernel's error.
func TestProgramBusyForAMoment(t *testing.T) {
	t.Parallel() // the starts retry a busy program for a while: beside the other tests
	for _, tc := range []struct {
		name string
		busy time.Duration
		want string // "" for a start and a clean exit
	}{
		{"busy for 50ms", 50 * time.Millisecond, ""},
		{"busy throughout", 0, "text file busy"},
	} {
		for _, user := range users {
			t.Run(user.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel() // a program file of its own
				programBusy(t, user.config(), tc.busy, tc.want)
			})
		}
	}
}

// programBusy starts a copy of relay under cfg while the copy is held open for writing for
// busy (0: throughout), and checks that it starts and exits 0 (want "") or fails to start
// with an error that says want.
func programBusy(t *testing.T, cfg sandbox.Config, busy time.Duration, want string) {
	// Under the test's own folder, which a sandbox user cannot search, as progDir.
	path := filepath.Join(progDir, "busy-"+strconv.Itoa(int(busy))+"-"+strconv.Itoa(cfg.Identity.UID)+strconv.FormatBool(cfg.Identity.Same))
	w, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	relay, err := os.ReadFile(prog("relay")) // copies stdin (here empty) and exits 0
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(relay); err != nil {
		t.Fatal(err)
	}
	if busy > 0 {
		time.AfterFunc(busy, func() { w.Close() })
	}
	g, err := sandbox.Start(cfg, sandbox.Spec{Name: "p", Path: path})
	if want != "" {
		if err == nil {
			res := g.Wait()
			t.Fatalf("started: %s", res)
		}
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("error %q does not say %q", err, want)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if res := g.Wait(); res.Verdict() != sandbox.OK || res.Procs[0].Exit.Code != 0 {
		t.Fatalf("%s", res)
	}
}

// A run whose programs have all ended is not quiet: nothing of it waits on anything (what
// is left is the harness's own work after it, which a loaded machine can make long), so a
// grade never takes it for a hang and gives its CPU slot to the next case. A grade at -j 1
// once ran two cases at once so, and -failfast started a case after the first failure
// (TestStopOnAnOutcomeStartsNoMoreCases, under load).
func TestEndedRunIsNotQuiet(t *testing.T) {
	t.Parallel()
	g, err := sandbox.Start(testConfig(), sandbox.Spec{Name: "a", Path: "/bin/true"})
	if err != nil {
		t.Fatal(err)
	}
	<-g.Process("a").Done()
	// Two sweeps: the first sees the CPU total change (to none), the second the same.
	sandbox.SweepNow(g)
	sandbox.SweepNow(g)
	if q := g.Quiet(); q != 0 {
		t.Errorf("a run with no process left is quiet for %v", q)
	}
	assertNothingLeft(t, g.Wait())
}

// A process whose first thread sleeps while another works is runnable to the sweeps, which
// decide whether a run is quiet (a hang): /proc/PID/stat shows the first thread's state
// only, and a Go program's first thread often sleeps while another thread waits for a CPU.
func TestRunnableThreadBehindASleepingFirstThread(t *testing.T) {
	t.Parallel()
	g, err := sandbox.Start(testConfig(), sandbox.Spec{Name: "a", Path: prog("spinthread"), Stdout: sandbox.Pipe})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { assertNothingLeft(t, g.Stop()) }()
	if line, err := bufio.NewReader(g.Process("a").Stdout()).ReadString('\n'); err != nil || line != "spinning\n" {
		t.Fatalf("the program said %q, %v", line, err)
	}
	pid := g.Process("a").Pid()
	// Its first thread is asleep in pthread_join once it has said so (or about to be).
	buildtest.Await(t, "the first thread asleep", func() bool {
		p, err := hygiene.ReadProc(pid)
		return err == nil && p.State == 'S'
	})
	if !sandbox.AnyThreadRunnable(pid) {
		t.Errorf("process %d, whose second thread spins, has no runnable thread", pid)
	}
}
