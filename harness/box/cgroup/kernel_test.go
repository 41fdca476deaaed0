package cgroup

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"gauntlet/internal/buildtest"
)

// Tests on the running kernel's cgroup v2 hierarchy. TestLeafMoveOnTheKernel and
// TestNoTotalsOnTheKernel need root and a cgroup2 mount (a hybrid machine's, whose memory
// and pids controllers are v1's, will do). The TestV2Kernel tests need a machine whose
// memory and pids controllers are v2's: they skip elsewhere, and fail instead where
// requireV2Var is 1 (a VM booted for them).

// requireV2Var, set to 1, makes the TestV2Kernel tests fail where they would skip.
const requireV2Var = "GAUNTLET_REQUIRE_V2"

// unified returns where the cgroup2 hierarchy is mounted and this process's group in it
// (from its root), or skips the test.
func unified(t *testing.T) (mount, own string) {
	t.Helper()
	mounts, err := cgroupMounts()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "0::"); ok {
			own = rest
		}
	}
	problem := error(nil)
	switch {
	case os.Geteuid() != 0:
		problem = errors.New("not root")
	case mounts[""] == "" || own == "":
		problem = errors.New("no cgroup2 hierarchy")
	}
	buildtest.NeedBox(t, problem)
	return mounts[""], own
}

// testGroup makes a group of the test's own at the root of the hierarchy, with a process
// of its own in it (sleep), and removes both at the end.
func testGroup(t *testing.T, mount string) (dir string, pid int) {
	t.Helper()
	dir = filepath.Join(mount, "gauntlet-test-"+strconv.Itoa(os.Getpid())+"-"+strings.ReplaceAll(t.Name(), "/", "-"))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	sleep := exec.Command("sleep", "60")
	if err := sleep.Start(); err != nil {
		os.Remove(dir)
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sleep.Process.Kill()
		sleep.Wait()
		if err := (&system{fs: osFS{}}).removeTree(dir); err != nil {
			t.Errorf("remove the test's group: %v", err)
		}
		if exists(dir) {
			t.Errorf("%s left", dir)
		}
	})
	if err := Join([]string{filepath.Join(dir, "cgroup.procs")}, sleep.Process.Pid); err != nil {
		t.Fatal(err)
	}
	return dir, sleep.Process.Pid
}

// groupOf is the v2 group of process pid, from the hierarchy's root.
func groupOf(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "0::"); ok {
			return rest
		}
	}
	t.Fatalf("process %d has no v2 group", pid)
	return ""
}

// The processes of a group really move into a leaf below it, leaving the group empty (as
// a delegated grader's own group must be before it gives controllers), and everything is
// removed at the end. Where the hierarchy has the memory and pids controllers, a grader
// that is not root, whose group that is, does it itself and then makes groups there;
// where it has not, the grader finds that first and moves nothing.
func TestLeafMoveOnTheKernel(t *testing.T) {
	mount, _ := unified(t)
	dir, pid := testGroup(t, mount)
	rel := strings.TrimPrefix(dir, filepath.Clean(mount))
	leaf := filepath.Join(dir, leafName)
	s := newV2(mount, rel, false, osFS{})
	if s.err != nil {
		// No controllers here (a hybrid machine): the reason, and nothing moved.
		if !strings.Contains(s.err.Error(), "has no memory and pids controllers") {
			t.Errorf("reason %q, want one about the memory and pids controllers", s.err)
		}
		if got := groupOf(t, pid); got != rel || exists(leaf) {
			t.Fatalf("the process is in %s (leaf made: %v), want it left in %s", got, exists(leaf), rel)
		}
		if err := moveInto(osFS{}, dir, leaf); err != nil {
			t.Fatal(err)
		}
	} else {
		g, err := s.newGroup("leaf-test", Limits{Memory: 64 << 20, Processes: 8})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(readFile(t, filepath.Join(g.mem, "pids.max"))); got != "8" {
			t.Errorf("pids.max %q, want 8", got)
		}
		if err := g.Remove(); err != nil || exists(s.parentDir()) {
			t.Errorf("Remove: %v; parent group left: %v", err, exists(s.parentDir()))
		}
	}
	if m := members(dir); len(m) != 0 {
		t.Errorf("the group still holds %v", m)
	}
	if m := members(leaf); !slices.Equal(m, []int{pid}) {
		t.Errorf("the leaf holds %v, want %d", m, pid)
	}
	if got, want := groupOf(t, pid), rel+"/"+leafName; got != want {
		t.Errorf("the process is in %s, want %s", got, want)
	}
}

// Where the v2 hierarchy has no memory and pids controllers (they are v1's), a root grader
// there gets the reason, the same each time, and makes nothing: the grade says it once in
// its notes ("no case totals (...)").
func TestNoTotalsOnTheKernel(t *testing.T) {
	mount, own := unified(t)
	if gives(fields(filepath.Join(mount, "cgroup.controllers"))) {
		t.Skip("this machine's cgroup v2 hierarchy has the memory and pids controllers")
	}
	before, _ := os.ReadDir(mount)
	s := newV2(mount, own, true, osFS{})
	want := "cgroup v2 at " + filepath.Clean(mount) + ": no memory and pids controllers (there are: "
	if err := s.problem(); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("problem %v, want %q...", err, want)
	}
	first := s.problem()
	if _, err := s.newGroup("no-totals", Limits{Memory: 1 << 20, Processes: 3}); err != first || s.problem() != first {
		t.Errorf("New: %v, then %v; want the same reason (%v)", err, s.problem(), first)
	}
	after, _ := os.ReadDir(mount)
	if len(after) != len(before) {
		t.Errorf("%d entries in %s before, %d after", len(before), mount, len(after))
	}
}

// needV2 returns the package's system on a machine whose memory and pids controllers are
// cgroup v2's, readied for this process (root or not), or skips the test (fails it where
// requireV2Var is 1).
func needV2(t *testing.T) *system {
	t.Helper()
	s := current()
	var problem error
	switch {
	case !s.v2 && s.err == nil:
		problem = errors.New("cgroup v1 holds the memory and pids controllers here")
	case s.err != nil:
		problem = s.err
	}
	if problem != nil {
		if os.Getenv(requireV2Var) == "1" {
			t.Fatalf("%s=1, but: %v", requireV2Var, problem)
		}
		t.Skipf("not cgroup v2 with memory and pids: %v", problem)
	}
	return s
}

func readFile(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A group New makes has memory.max, memory.swap.max (where swap is accounted) and pids.max
// set to its totals, and set again by SetLimits; it is below the grader's parent group,
// which goes with it.
func TestV2KernelGroupLimits(t *testing.T) {
	s := needV2(t)
	checkKernelLimits(t, s)
}

func checkKernelLimits(t *testing.T, s *system) {
	g, err := New("v2-limits", Limits{Memory: 48 << 20, Processes: 16})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Remove()
	if filepath.Dir(g.mem) != s.parentDir() {
		t.Errorf("group at %s, want it below %s", g.mem, s.parentDir())
	}
	check := func(mem, procs string) {
		t.Helper()
		for file, want := range map[string]string{"memory.max": mem, "pids.max": procs, "memory.swap.max": "0"} {
			b, err := os.ReadFile(filepath.Join(g.mem, file))
			if file == "memory.swap.max" && errors.Is(err, os.ErrNotExist) {
				continue // no swap accounting
			}
			if got := strings.TrimSpace(string(b)); err != nil || got != want {
				t.Errorf("%s: %q (%v), want %q", file, got, err, want)
			}
		}
	}
	check("50331648", "16")
	if err := g.SetLimits(Limits{Memory: 64 << 20, Processes: 20}); err != nil {
		t.Fatal(err)
	}
	check("67108864", "20")
	if err := g.Remove(); err != nil {
		t.Fatal(err)
	}
	if exists(g.mem) || exists(s.parentDir()) {
		t.Errorf("after Remove: group there %v, parent group there %v", exists(g.mem), exists(s.parentDir()))
	}
}

// A process in a group that fills more memory than the group's total is killed by the
// kernel, and Events counts it.
func TestV2KernelMemoryTotal(t *testing.T) {
	needV2(t)
	checkKernelMemoryTotal(t)
}

func checkKernelMemoryTotal(t *testing.T) {
	// The shell joins the group, then becomes dd, which fills a buffer of 128 MiB.
	g, err := runInNewGroup(t, "v2-memory", Limits{Memory: 32 << 20, Processes: 16}, "exec dd if=/dev/zero of=/dev/null bs=128M count=1 2>/dev/null\n")
	defer g.Remove()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Errorf("128 MiB under a total of 32 MiB: %v, want killed (SIGKILL)", err)
	}
	if e := g.Events(); e.OOMKills == 0 {
		t.Errorf("events %+v, want the kill counted", e)
	}
	if err := g.Remove(); err != nil || exists(g.mem) {
		t.Errorf("Remove: %v (group there: %v)", err, exists(g.mem))
	}
}

// Forks beyond a group's process total are refused, and Events counts them.
func TestV2KernelProcessTotal(t *testing.T) {
	needV2(t)
	checkProcessTotal(t, "v2-procs")
}

// A grader that is not root, started in a group delegated to it (a root run makes one,
// gives it to the unprivileged user as systemd does, and reruns this test as that user in
// it), moves itself into a leaf below the group, gives the group the controllers, and its
// groups have their totals, which the kernel holds to, as a root grader's; everything is
// removed afterwards.
func TestV2KernelDelegated(t *testing.T) {
	if os.Geteuid() == 0 {
		s := needV2(t)
		d, err := New("v2-delegated", Limits{Memory: 1 << 30, Processes: 4096})
		if err != nil {
			t.Fatal(err)
		}
		defer d.RemoveTree()
		if err := d.Chown(buildtest.Unprivileged, buildtest.Unprivileged); err != nil {
			t.Fatal(err)
		}
		buildtest.AsUnprivilegedIn(t, d.mem, []string{requireV2Var + "=" + os.Getenv(requireV2Var)}, "^TestV2KernelDelegated$")
		if err := d.RemoveTree(); err != nil {
			t.Error(err)
		}
		if exists(d.mem) || exists(s.parentDir()) {
			t.Errorf("after RemoveTree: delegated group there %v, parent group there %v", exists(d.mem), exists(s.parentDir()))
		}
		return
	}
	s := needV2(t)
	own := groupOf(t, os.Getpid())
	if filepath.Base(own) != leafName {
		t.Fatalf("this process is in %s, want a leaf (%s) below its delegated group", own, leafName)
	}
	delegated := s.base
	if !strings.HasSuffix(delegated, filepath.Dir(own)) {
		t.Errorf("groups below %s, want them below the delegated group %s", delegated, filepath.Dir(own))
	}
	if m := members(delegated); len(m) != 0 {
		t.Errorf("the delegated group still holds %v", m)
	}
	if sub := fields(filepath.Join(delegated, "cgroup.subtree_control")); !gives(sub) {
		t.Errorf("the delegated group gives %q, want memory and pids", sub)
	}
	checkKernelLimits(t, s)
	checkKernelMemoryTotal(t)
	checkProcessTotal(t, "v2-procs")
	ents, _ := os.ReadDir(delegated)
	for _, e := range ents {
		if e.IsDir() && e.Name() != leafName {
			t.Errorf("%s left in the delegated group", e.Name())
		}
	}
}
