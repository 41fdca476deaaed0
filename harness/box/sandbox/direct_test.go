package sandbox_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"gauntlet/harness/box/cgroup"
	"gauntlet/harness/box/sandbox"
	"gauntlet/harness/runtime/child"
	"gauntlet/internal/buildtest"
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
	// signal.Reset (or Stop) would leave SIGHUP ignored: the runtime gives back the action
	// it found when it began handling the signal, here SIG_IGN. And the role never stays in
	// a process that ignores a signal, nor does a program start without it. A channel that
	// stays registered keeps the runtime's handler in place instead.
	return func() { signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP) }
}

// A program that is not the harness's own binary starts without the exec role, set up
// while it is stopped at its exec, whether it runs as the harness's own user outside a box
// or as a sandbox user in a box and a cgroup: it sees what it sees when started through
// the role (its limits, niceness, no_new_privs, empty signal mask, session; its user, its
// mounts, its private /tmp, its network, its cgroups), and it is no longer traced.
func TestDirectStartGivesWhatTheRoleGives(t *testing.T) {
	// The shell's own status is read last, by itself once it has exec'd grep: while the
	// shell forks, it blocks every signal for a moment. Of the mounts, only those a box
	// makes are compared, and of /tmp only whether it is empty: other tests' mounts and
	// files come and go in the harness's own.
	script := `ulimit -a; ulimit -Ha
set -- $(cut -d')' -f2 /proc/$$/stat)
echo "session leader: $([ "$4" = $$ ] && echo yes || echo no)"
echo "nice: ${17}"
[ "$(id -u)" -ne 0 ] && echo "uid: not root" || echo "uid: root"
echo "groups: $(id -G | wc -w)"
echo "init: $([ -e /proc/1 ] && echo seen || echo hidden)"
echo "tmp: $(stat -c '%a %U' /tmp)$([ -z "$(ls -A /tmp | grep -vx "$(pwd | cut -d/ -f3)")" ] && echo ", empty but for the working folder")"
echo "net: $(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\n' ' ')"
echo "hostname: $(cat /proc/sys/kernel/hostname)"
while read -r id parent dev root point opts rest; do
	case $point in /tmp|/var/tmp|/dev/shm|/proc) echo "mount $point ${rest#* - }";; esac
done < /proc/self/mountinfo | sort
sed 's/^/cgroup /' /proc/self/cgroup
exec grep -E '^(NoNewPrivs|SigBlk|SigIgn|TracerPid):' /proc/self/status
`
	// A boxed program always starts through the role, the init of its PID namespace
	// (execrole's pidns.go): a sandbox user's program, in the case's cgroups, may start
	// directly.
	boxed := func() sandbox.Config {
		cfg := testConfig()
		if cgroup.Problem() == nil {
			g, err := cgroup.New("gauntlet-sandbox-direct-"+strconv.Itoa(os.Getpid()), cgroup.Limits{Memory: 1 << 30, Processes: 100})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { g.Remove() })
			cfg.Cgroup = g.ProcFiles()
		}
		return cfg
	}
	for _, tc := range []struct {
		name   string
		config func() sandbox.Config
		boxed  bool
	}{{"own user", ownUserConfig, false}, {"sandbox user in a cgroup", boxed, true}} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.boxed {
				boxOrSkip(t)
			}
			cfg := tc.config()
			run := func(t *testing.T) (out string, direct bool) {
				t.Helper()
				before := sandbox.DirectStarts()
				res, err := sandbox.Run(cfg, sandbox.Spec{Path: "/bin/sh", Args: []string{"-c", script}})
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
				t.Fatal("the program was started through the exec role")
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
			want := []string{"NoNewPrivs:\t1\n", "SigBlk:\t0000000000000000\n", "SigIgn:\t0000000000000000\n",
				"TracerPid:\t0\n", "session leader: yes\n", "nice: 10\n"}
			if tc.boxed {
				want = append(want, "uid: not root\n", "groups: 1\n")
				for _, procs := range cfg.Cgroup {
					want = append(want, "/"+filepath.Base(filepath.Dir(procs))+"\n")
				}
			}
			for _, w := range want {
				if !strings.Contains(direct, w) {
					t.Errorf("started directly, the program does not see %q:\n%s", w, direct)
				}
			}
		})
	}
}

// A command of Command started by its Starter (as the fuzzer's recorder starts its
// programs) runs as the sandbox user in its folder: started directly where the harness may
// set another user's limits, else through the exec role; one that cannot start directly
// starts through the role, which exits 127 with the reason on stderr.
func TestStarter(t *testing.T) {
	boxOrSkip(t)
	lease, err := sandbox.NewLease()
	if err != nil {
		t.Fatal(err)
	}
	defer lease.Release()
	dir := t.TempDir()
	os.Chmod(dir, 0o777)
	cfg := sandbox.Config{Identity: sandbox.Identity{Lease: lease}, Box: &sandbox.Box{Keep: []string{dir}}}
	notExec := filepath.Join(dir, "not-executable")
	if err := os.WriteFile(notExec, []byte("\x7fELF"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path string
		args       []string
		direct     bool
		status     int
		stdout     string
		stderr     string
	}{
		// The runs of a Config may overlap: their programs start directly only where the
		// harness may set another user's limits as root (TestNoThreadBecomesAUserWhose...).
		{"a shell", "/bin/sh", []string{"-c", "id -u; pwd"}, sandbox.CanSetOthersLimits(), 0, strconv.Itoa(lease.UID()) + "\n" + dir + "\n", ""},
		{"a file that is not executable", notExec, nil, false, 127, "", "exec " + notExec + ": permission denied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			before := sandbox.DirectStarts()
			c, err := child.Start(child.Spec{Path: tc.path, Args: tc.args, Dir: dir, Stderr: &stderr,
				Build: func(path string, args []string) *exec.Cmd {
					return sandbox.Command(cfg, os.Environ(), path, args...)
				},
				Starter: sandbox.Starter(cfg, os.Environ(), tc.path)})
			if err != nil {
				t.Fatal(err)
			}
			c.In.Close()
			io.Copy(&stdout, c.Out)
			c.Cmd.Wait()
			if direct := sandbox.DirectStarts() > before; direct != tc.direct {
				t.Errorf("started directly: %v, want %v", direct, tc.direct)
			}
			if got := c.Cmd.ProcessState.ExitCode(); got != tc.status || stdout.String() != tc.stdout || !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, stdout %q, stderr with %q",
					got, stdout.String(), stderr.String(), tc.status, tc.stdout, tc.stderr)
			}
		})
	}
}

// A program of a sandbox user may send any signal to a thread whose real user is that
// user, and one SIGKILL to one thread ends the whole process. Were the harness to set a
// program's limits by becoming its user for a moment (as it must without CAP_SYS_RESOURCE)
// while another program of that user runs, that program could kill the harness. Here a
// hostile program of the user sends SIGKILL to every thread of the harness without pause
// while forty more programs of its user start in a second run: any such moment kills the
// test (it did, before runs kept count of their users).
func TestNoThreadBecomesAUserWhoseProgramsRun(t *testing.T) {
	boxOrSkip(t)
	lease, err := sandbox.NewLease()
	if err != nil {
		t.Fatal(err)
	}
	defer lease.Release()
	cfg := testConfig()
	cfg.Identity = sandbox.Identity{Lease: lease}
	cfg.Limits.Processes = 100
	ok := func(res *sandbox.Result, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range res.Procs {
			if p.Exit != (sandbox.Exit{}) {
				t.Fatalf("%s", res)
			}
		}
	}
	// A run alone first, so that the threads that start programs exist.
	before := sandbox.DirectStarts()
	ok(sandbox.Run(cfg, sandbox.Spec{Path: "/bin/true"}))
	if sandbox.DirectStarts() != before+1 {
		t.Error("the first program of a run alone with its user did not start directly")
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	args := []string{strconv.Itoa(os.Getpid())}
	for _, task := range tasks {
		args = append(args, task.Name())
	}
	killer, err := sandbox.Start(cfg, sandbox.Spec{Name: "killer", Path: prog("tkiller"), Args: args, Stdout: sandbox.Pipe})
	if err != nil {
		t.Fatal(err)
	}
	defer killer.Stop()
	if line, err := bufio.NewReader(killer.Process("killer").Stdout()).ReadString('\n'); line != "ready\n" {
		t.Fatalf("the killer said %q, %v", line, err)
	}
	// The run's end kills every process of its user, the killer's included: the programs
	// start in one run, one after another, the killer alive throughout.
	var specs []sandbox.Spec
	for i := range 40 {
		specs = append(specs, sandbox.Spec{Name: fmt.Sprint("true ", i), Path: "/bin/true"})
	}
	g, err := sandbox.Start(cfg, specs...)
	if err != nil {
		t.Fatal(err)
	}
	ok(g.Wait(), nil)
}

// probeLimitsEnv makes this test binary, started as a program, print its address-space
// limits (soft, hard) as /proc/self/limits shows them.
const probeLimitsEnv = "SANDBOX_TEST_PROBE_LIMITS"

func probeLimits() {
	limits, _ := os.ReadFile("/proc/self/limits")
	for _, line := range strings.Split(string(limits), "\n") {
		if f := strings.Fields(line); strings.HasPrefix(line, "Max address space") && len(f) >= 5 {
			fmt.Println(f[3], f[4])
		}
	}
}

// The harness's own programs (here a copy of this binary that the harness names as its
// own, as a grade does with its folder of reference and mock programs) start directly too,
// as the sandbox user in the box, but without the address-space limit other programs get:
// through the role they went on in its process, where the limit could not apply. As the
// harness's own user outside a box, where they always started directly, they keep it.
func TestOwnProgramsStartDirectlyWithoutTheAddressSpaceLimit(t *testing.T) {
	boxOrSkip(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	own := buildtest.PublicCopy(t, self)
	sandbox.SetSelfCopy(own)
	defer sandbox.SetSelfCopy("")
	lease, err := sandbox.NewLease()
	if err != nil {
		t.Fatal(err)
	}
	defer lease.Release()
	boxed := sandbox.Config{Identity: sandbox.Identity{Lease: lease, Alone: true}, Box: &sandbox.Box{Keep: []string{filepath.Dir(own)}},
		Limits: sandbox.Limits{AddressSpace: 1 << 30}}
	unboxed := sandbox.Config{Identity: sandbox.Identity{Same: true}, Limits: sandbox.Limits{AddressSpace: 1 << 30}}
	ownSpec := sandbox.Spec{Path: own, Env: []string{probeLimitsEnv + "=1"}}
	for _, tc := range []struct {
		name   string
		cfg    sandbox.Config
		spec   sandbox.Spec
		want   string
		direct bool
	}{
		// Boxed, they start through the role (the init of their PID namespace), and go
		// on as the program in the role's process.
		{"own", boxed, ownSpec, "unlimited unlimited\n", false},
		{"other", boxed, sandbox.Spec{Path: "/bin/sh", Args: []string{"-c", "awk '/^Max address space/ {print $4, $5}' /proc/self/limits"}},
			"1073741824 1073741824\n", false},
		{"own, unboxed as the harness's user", unboxed, ownSpec, "1073741824 1073741824\n", true},
	} {
		before := sandbox.DirectStarts()
		res, err := sandbox.Run(tc.cfg, tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		if direct := sandbox.DirectStarts() == before+1; direct != tc.direct {
			t.Errorf("%s: started directly: %v, want %v", tc.name, direct, tc.direct)
		}
		if p := res.Procs[0]; string(p.Stdout) != tc.want || p.Exit != (sandbox.Exit{}) {
			t.Errorf("%s: exit %+v, stdout %q (stderr %q), want %q", tc.name, p.Exit, p.Stdout, p.Stderr, tc.want)
		}
	}
}
