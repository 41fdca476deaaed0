package execrole

import (
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gauntlet/harness/box/cgroup"
	"gauntlet/internal/buildtest"
)

func TestEncodeDecode(t *testing.T) {
	for _, s := range []Settings{
		{Path: "/bin/true", ErrFD: -1, PPID: 1, UID: -1, GID: -1, CPU: Unlimited, AS: Unlimited, NProc: Unlimited, FSize: Unlimited, NoFile: Unlimited},
		{Path: "/a b/\"q\" 'x'\n\tz", ErrFD: 5, PPID: 42, UID: 61000, GID: 61000, CPU: 10, AS: 1 << 30, NProc: 64,
			NProcRel: true, FSize: 1 << 20, NoFile: 256, Nice: 5,
			Box:    &Box{Keep: []string{"/tmp/case 1", "/tmp/bin"}, Hide: []string{"/srv/other"}, TmpSize: 64 << 20, Net: "/proc/7/fd/9", Disk: 8 << 20},
			Cgroup: []string{"/sys/fs/cgroup/g/cgroup.procs", "/sys/fs/cgroup/pids/g/cgroup.procs"}, Self: "/run/g/bin/gauntlet"},
		{Path: "/p", Box: &Box{TmpSize: 1}},
	} {
		got, err := Decode(s.Encode())
		if err != nil {
			t.Fatalf("%q: %v", s.Encode(), err)
		}
		if !reflect.DeepEqual(got, s) {
			t.Errorf("round trip of %+v gave %+v", s, got)
		}
	}
	for _, bad := range []string{"path", `path "/x`, `path "/x" cpu "ten"`, `path /x`} {
		if _, err := Decode(bad); err == nil {
			t.Errorf("Decode(%q) accepted", bad)
		}
	}
}

// The role must run before the rest of the binary initialises: the reason this package
// stands apart (its doc). In the gauntlet binary its init comes before every package of the
// games, the grader and the suites; a dependency that delays it fails here.
func TestRunsBeforeTheBinarysPackages(t *testing.T) {
	exe := buildtest.Path(t, "gauntlet/cmd/gauntlet")
	cmd := exec.Command(exe, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var order []string
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "init" {
			order = append(order, f[1])
		}
	}
	at := -1
	for i, p := range order {
		if p == "gauntlet/execrole" {
			at = i
		}
	}
	if at < 0 {
		t.Fatalf("no init of gauntlet/execrole in:\n%s", out)
	}
	for _, p := range order[:at] {
		if strings.HasPrefix(p, "gauntlet/") || strings.Contains(p, "testscript") || strings.HasPrefix(p, "text/template") {
			t.Errorf("%s is initialised before gauntlet/execrole", p)
		}
	}
}

// BenchmarkRoleStart starts /bin/true through the role of the gauntlet binary, as the
// sandbox starts every program (no box, no user, no limits); BenchmarkBareStart starts it
// directly. The difference is the role's own cost.
func BenchmarkRoleStart(b *testing.B) {
	exe := buildtest.Path(b, "gauntlet/cmd/gauntlet")
	s := Settings{Path: trueProgram(b), ErrFD: -1, PPID: os.Getpid(), UID: -1, GID: -1,
		CPU: Unlimited, AS: Unlimited, NProc: Unlimited, FSize: Unlimited, NoFile: Unlimited}
	env := append(os.Environ(), Env+"="+s.Encode())
	benchStart(b, func() *exec.Cmd {
		cmd := exec.Command(exe)
		cmd.Env = env
		return cmd
	})
}

func BenchmarkBareStart(b *testing.B) {
	path := trueProgram(b)
	benchStart(b, func() *exec.Cmd { return exec.Command(path) })
}

func trueProgram(b *testing.B) string {
	for _, p := range []string{"/bin/true", "/usr/bin/true"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	b.Skip("no true program")
	return ""
}

// benchStart runs the command cmd makes again and again and reports the CPU of the
// children per run.
func benchStart(b *testing.B, cmd func() *exec.Cmd) {
	before := childCPU()
	for b.Loop() {
		if err := cmd().Run(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((childCPU()-before).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

func childCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// probeEnv makes this test binary, started through the role, print what the role left it:
// its process name, its threads' names and the role's variable.
const probeEnv = "EXECROLE_TEST_PROBE"

func TestMain(m *testing.M) {
	buildtest.DefaultSignals() // under nohup, say: the starts as from a terminal
	if os.Getenv(probeEnv) == "1" {
		comm, _ := os.ReadFile("/proc/self/comm")
		// Every thread's name, each once: the role names the threads that were started
		// before it ran, and those started since take their creator's.
		names := map[string]bool{}
		tasks, _ := os.ReadDir("/proc/self/task")
		for _, task := range tasks {
			c, _ := os.ReadFile("/proc/self/task/" + task.Name() + "/comm")
			names[strings.TrimSpace(string(c))] = true
		}
		fmt.Printf("comm=%s threads=%s env=%q\n", strings.TrimSpace(string(comm)),
			strings.Join(slices.Sorted(maps.Keys(names)), ","), os.Getenv(Env))
		if os.Getenv(probeCgroupEnv) == "1" {
			// The cgroups of every thread, each set once.
			groups := map[string]bool{}
			for _, task := range tasks {
				c, _ := os.ReadFile("/proc/self/task/" + task.Name() + "/cgroup")
				groups[string(c)] = true
			}
			for _, g := range slices.Sorted(maps.Keys(groups)) {
				fmt.Printf("cgroups:\n%s", g)
			}
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// probeCgroupEnv makes the probe also print the cgroups of each of its threads.
const probeCgroupEnv = "EXECROLE_TEST_PROBE_CGROUP"

// probe starts prog, a copy or link of this test binary, through the role and returns what
// it printed.
func probe(tb testing.TB, prog string) string {
	tb.Helper()
	return probeSelf(tb, prog, "")
}

// probeSelf is probe with Settings.Self naming a copy of the binary.
func probeSelf(tb testing.TB, prog, selfCopy string) string {
	tb.Helper()
	return probeIn(tb, prog, selfCopy, nil)
}

// probeIn is probeSelf with the role joining the cgroups of these cgroup.procs files; the
// probe then prints its threads' cgroups too.
func probeIn(tb testing.TB, prog, selfCopy string, cgroups []string) string {
	tb.Helper()
	self, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	// The harness's default address-space limit: a fresh Go runtime fits in it.
	s := Settings{Path: prog, ErrFD: -1, PPID: os.Getpid(), UID: -1, GID: -1,
		CPU: Unlimited, AS: 1 << 30, NProc: Unlimited, FSize: Unlimited, NoFile: Unlimited, Self: selfCopy,
		Cgroup: cgroups}
	cmd := exec.Command(self)
	cmd.Args = []string{prog}
	cmd.Env = append(os.Environ(), probeEnv+"=1", Env+"="+s.Encode())
	if cgroups != nil {
		cmd.Env = append(cmd.Env, probeCgroupEnv+"=1")
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("%s: %v\n%s", prog, err, out)
	}
	return string(out)
}

// The role execs every program, the harness's own binary too (a link to it, as the
// reference programs are, or the grader's copy of it): each is named after the program,
// every thread of it, and none gets the role's variable.
func TestExecsEveryProgramWithoutTheRolesVariable(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	link := filepath.Join(dir, "EAIT")
	if err := os.Symlink(self, link); err != nil {
		t.Fatal(err)
	}
	if got, want := probe(t, link), "comm=EAIT threads=EAIT env=\"\"\n"; got != want {
		t.Errorf("the binary itself: %q, want %q", got, want)
	}
	other := filepath.Join(dir, "a-copy-of-the-binary")
	copyFile(t, self, other)
	if got, want := probe(t, other), "comm=a-copy-of-the-b threads=a-copy-of-the-b env=\"\"\n"; got != want {
		t.Errorf("another file: %q, want %q", got, want)
	}
	copyLink := filepath.Join(dir, "HABS")
	if err := os.Symlink(other, copyLink); err != nil {
		t.Fatal(err)
	}
	if got, want := probeSelf(t, copyLink, other), "comm=HABS threads=HABS env=\"\"\n"; got != want {
		t.Errorf("a link to the copy named as the harness's: %q, want %q", got, want)
	}
}

// The role joins the case's cgroups before it execs the program, which starts in them with
// every thread (a thread outside would start its children outside): the harness's own
// binary and another file alike. Each thread lists the group in every hierarchy.
func TestJoinsTheCgroupsWithEveryThread(t *testing.T) {
	if err := cgroup.Problem(); err != nil {
		buildtest.NeedBox(t, fmt.Errorf("no cgroups here: %v", err))
	}
	g, err := cgroup.New("gauntlet-execrole-test-"+strconv.Itoa(os.Getpid()), cgroup.Limits{Memory: 1 << 30, Processes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Remove()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	link, other := filepath.Join(dir, "EAIT"), filepath.Join(dir, "a-copy")
	if err := os.Symlink(self, link); err != nil {
		t.Fatal(err)
	}
	copyFile(t, self, other)
	for _, prog := range []string{link, other} {
		out := probeIn(t, prog, "", g.ProcFiles())
		if !strings.HasPrefix(out, "comm=") {
			t.Fatalf("%s: %q, want the probe's report", prog, out)
		}
		if n := strings.Count(out, "cgroups:\n"); n != 1 {
			t.Errorf("%s: the threads are in %d different sets of cgroups, want 1:\n%s", prog, n, out)
		}
		for _, procs := range g.ProcFiles() {
			name := filepath.Base(filepath.Dir(procs))
			if !strings.Contains(out, "/"+name+"\n") {
				t.Errorf("%s: not in the group %s:\n%s", prog, name, out)
			}
		}
	}
}

func copyFile(tb testing.TB, src, dst string) {
	in, err := os.Open(src)
	if err != nil {
		tb.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		tb.Fatal(err)
	}
	if err := out.Close(); err != nil {
		tb.Fatal(err)
	}
}
