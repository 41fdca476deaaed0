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

// ownUserConfig is testConfig for a run as the harness's own user, outside a box.
func ownUserConfig() sandbox.Config {
	cfg := testConfig()
	cfg.Identity = sandbox.Identity{Same: true}
	return cfg
}

// ignoreHUP makes this process ignore SIGHUP until the returned function runs: a program
// must still meet SIGHUP with its default action (the role gives every signal back its
// default).
func ignoreHUP() (restore func()) {
	signal.Ignore(syscall.SIGHUP)
	// signal.Reset (or Stop) would leave SIGHUP ignored: the runtime gives back the action
	// it found when it began handling the signal, here SIG_IGN. A channel that stays
	// registered keeps the runtime's handler in place instead.
	return func() { signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP) }
}

// Every program starts through the exec role, whether it runs as the harness's own user
// outside a box, as a sandbox user in a cgroup, or in a box too (where the box's init traces
// its start, or starts it through the role again): it sees its limits, niceness,
// no_new_privs, an empty signal mask and no signal ignored (though the harness ignores
// SIGHUP), its session, its user, its mounts, its private /tmp, its network and its
// cgroups, and it is not traced. The two starts of a boxed program give it the same.
func TestProgramGetsWhatTheRoleGives(t *testing.T) {
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
	groups := 0
	boxed := func() sandbox.Config {
		cfg := testConfig()
		if cgroup.Problem() == nil {
			groups++
			g, err := cgroup.New(fmt.Sprintf("gauntlet-sandbox-start-%d-%d", os.Getpid(), groups), cgroup.Limits{Memory: 1 << 30, Processes: 100})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { g.Remove() })
			cfg.Cgroup = g.ProcFiles()
		}
		return cfg
	}
	inABox := func() sandbox.Config {
		cfg := boxed()
		cfg.Box = &sandbox.Box{}
		return cfg
	}
	for _, tc := range []struct {
		name        string
		config      func() sandbox.Config
		user, boxed bool
	}{{"own user", ownUserConfig, false, false}, {"sandbox user in a cgroup", boxed, true, false},
		{"sandbox user in a box and a cgroup", inABox, true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.user {
				boxOrSkip(t)
			}
			cfg := tc.config()
			run := func(t *testing.T) string {
				t.Helper()
				defer ignoreHUP()()
				res, err := sandbox.Run(cfg, sandbox.Spec{Path: "/bin/sh", Args: []string{"-c", script}})
				if err != nil {
					t.Fatal(err)
				}
				if p := res.Procs[0]; p.Exit != (sandbox.Exit{}) || len(p.Stderr) > 0 {
					t.Fatalf("%s", res)
				}
				return string(res.Procs[0].Stdout)
			}
			got := run(t)
			if tc.boxed {
				restore := sandbox.InitsUseRole()
				again := run(t)
				restore()
				if again != got {
					t.Errorf("traced by its init, the program sees\n%s\nstarted through the role again\n%s", got, again)
				}
			}
			want := []string{"NoNewPrivs:\t1\n", "SigBlk:\t0000000000000000\n", "SigIgn:\t0000000000000000\n",
				"TracerPid:\t0\n", "session leader: yes\n", "nice: 10\n"}
			if tc.boxed {
				want = append(want, "net: lo \n", "empty but for the working folder")
			}
			if tc.user {
				want = append(want, "uid: not root\n", "groups: 1\n")
				for _, procs := range cfg.Cgroup {
					want = append(want, "/"+filepath.Base(filepath.Dir(procs))+"\n")
				}
			}
			for _, w := range want {
				if !strings.Contains(got, w) {
					t.Errorf("the program does not see %q:\n%s", w, got)
				}
			}
		})
	}
}

// A command of Command (as the fuzzer's recorder and the tournaments start their programs)
// runs as the sandbox user in its folder; one that cannot start exits 127 with the reason
// on stderr.
func TestCommandRunsAsTheUserInItsFolder(t *testing.T) {
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
		status     int
		stdout     string
		stderr     string
	}{
		{"a shell", "/bin/sh", []string{"-c", "id -u; pwd"}, 0, strconv.Itoa(lease.UID()) + "\n" + dir + "\n", ""},
		{"a file that is not executable", notExec, nil, 127, "", "exec " + notExec + ": permission denied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			c, err := child.Start(child.Spec{Path: tc.path, Args: tc.args, Dir: dir, Stderr: &stderr,
				Build: func(path string, args []string) *exec.Cmd {
					return sandbox.Command(cfg, os.Environ(), path, args...)
				}})
			if err != nil {
				t.Fatal(err)
			}
			c.In.Close()
			io.Copy(&stdout, c.Out)
			c.Cmd.Wait()
			if got := c.Cmd.ProcessState.ExitCode(); got != tc.status || stdout.String() != tc.stdout || !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, stdout %q, stderr with %q",
					got, stdout.String(), stderr.String(), tc.status, tc.stdout, tc.stderr)
			}
		})
	}
}

// A program of a sandbox user may send any signal to a thread whose real user is that
// user, and one SIGKILL to one thread ends the whole process. Were a thread of the harness
// to become the program's user for a moment (to set its limits without CAP_SYS_RESOURCE,
// as a start without the role once did) while another program of that user runs, that
// program could kill the harness. Here a hostile program of the user sends SIGKILL to
// every thread of the harness without pause while forty more programs of its user start in
// a second run: any such moment kills the test.
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
	ok(sandbox.Run(cfg, sandbox.Spec{Path: "/bin/true"}))
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
// own, as a grade does with its folder of reference and mock programs) start without the
// address-space limit other programs get, as a sandbox user in a box or outside one (a
// grade without the box, grade.Options.NoBox), and when the box's init starts them through
// the role again. As the harness's own user outside a box they keep it.
func TestOwnProgramsStartWithoutTheAddressSpaceLimit(t *testing.T) {
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
	boxed := sandbox.Config{Identity: sandbox.Identity{Lease: lease}, Box: &sandbox.Box{Keep: []string{filepath.Dir(own)}},
		Limits: sandbox.Limits{AddressSpace: 1 << 30}}
	userUnboxed := sandbox.Config{Identity: sandbox.Identity{Lease: lease}, Limits: sandbox.Limits{AddressSpace: 1 << 30}}
	unboxed := sandbox.Config{Identity: sandbox.Identity{Same: true}, Limits: sandbox.Limits{AddressSpace: 1 << 30}}
	ownSpec := sandbox.Spec{Path: own, Env: []string{probeLimitsEnv + "=1"}}
	for _, tc := range []struct {
		name string
		cfg  sandbox.Config
		spec sandbox.Spec
		want string
		role bool // the box's init starts it through the role again
	}{
		{"own", boxed, ownSpec, "unlimited unlimited\n", false},
		{"own, through the role again", boxed, ownSpec, "unlimited unlimited\n", true},
		{"other", boxed, sandbox.Spec{Path: "/bin/sh", Args: []string{"-c", "awk '/^Max address space/ {print $4, $5}' /proc/self/limits"}},
			"1073741824 1073741824\n", false},
		{"own, unboxed as a sandbox user", userUnboxed, ownSpec, "unlimited unlimited\n", false},
		{"own, unboxed as the harness's user", unboxed, ownSpec, "1073741824 1073741824\n", false},
	} {
		restore := func() {}
		if tc.role {
			restore = sandbox.InitsUseRole()
		}
		res, err := sandbox.Run(tc.cfg, tc.spec)
		restore()
		if err != nil {
			t.Fatal(err)
		}
		if p := res.Procs[0]; string(p.Stdout) != tc.want || p.Exit != (sandbox.Exit{}) {
			t.Errorf("%s: exit %+v, stdout %q (stderr %q), want %q", tc.name, p.Exit, p.Stdout, p.Stderr, tc.want)
		}
	}
}
