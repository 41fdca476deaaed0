package cgroup

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// fakeKernel is a cgroup v2 hierarchy of plain files and folders in a temporary folder,
// with the kernel's rules where they matter to this package: a group made below another
// has the files of the controllers its parent gives (cgroup.subtree_control), and only
// those; a group other than the root refuses to give controllers while it holds processes,
// and takes no process while it gives controllers (EBUSY); a controller the group does not
// have cannot be given (ENOENT); a pid written to cgroup.procs leaves the group it was in.
type fakeKernel struct {
	root   string
	noSwap bool     // no swap accounting: no memory.swap.max
	drop   string   // a controller whose files a new group does not get (a kernel's fault)
	writes []string // the cgroup.subtree_control writes, "GROUP: DATA" (GROUP from root)
	// onEnable, when set, runs before a group is given controllers (a process forking
	// into it meanwhile).
	onEnable func(dir string)
}

// newFakeKernel makes a hierarchy whose root has the controllers given.
func newFakeKernel(t *testing.T, controllers string) *fakeKernel {
	k := &fakeKernel{root: t.TempDir()}
	for name, data := range map[string]string{"cgroup.controllers": controllers, "cgroup.subtree_control": "", "cgroup.procs": ""} {
		if err := os.WriteFile(filepath.Join(k.root, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return k
}

func (k *fakeKernel) Mkdir(dir string) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	given := fields(filepath.Join(filepath.Dir(dir), "cgroup.subtree_control"))
	files := map[string]string{"cgroup.controllers": strings.Join(given, " "), "cgroup.subtree_control": "",
		"cgroup.procs": "", "cgroup.threads": "", "cgroup.type": "domain\n"}
	if slices.Contains(given, "memory") && k.drop != "memory" {
		files["memory.max"], files["memory.events"] = "max\n", "oom 0\noom_kill 0\n"
		if !k.noSwap {
			files["memory.swap.max"] = "max\n"
		}
	}
	if slices.Contains(given, "pids") && k.drop != "pids" {
		files["pids.max"], files["pids.events"] = "max\n", "max 0\n"
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func (k *fakeKernel) Write(file, data string) error {
	dir, name := filepath.Dir(file), filepath.Base(file)
	fail := func(errno syscall.Errno) error { return &os.PathError{Op: "write", Path: file, Err: errno} }
	_, typed := os.Stat(filepath.Join(dir, "cgroup.type"))
	switch name {
	case "cgroup.subtree_control":
		rel, _ := filepath.Rel(k.root, dir)
		k.writes = append(k.writes, rel+": "+data)
		if k.onEnable != nil {
			k.onEnable(dir)
		}
		have, sub := fields(filepath.Join(dir, "cgroup.controllers")), fields(file)
		for _, tok := range strings.Fields(data) {
			c := tok[1:]
			switch {
			case !slices.Contains(have, c):
				return fail(syscall.ENOENT)
			case typed == nil && len(members(dir)) > 0:
				return fail(syscall.EBUSY)
			case tok[0] == '+' && !slices.Contains(sub, c):
				sub = append(sub, c)
			case tok[0] == '-':
				sub = slices.DeleteFunc(sub, func(s string) bool { return s == c })
			}
		}
		slices.Sort(sub)
		return os.WriteFile(file, []byte(strings.Join(sub, " ")+"\n"), 0o644)
	case "cgroup.procs":
		if typed == nil && len(fields(filepath.Join(dir, "cgroup.subtree_control"))) > 0 {
			return fail(syscall.EBUSY)
		}
		pid, err := strconv.Atoi(data)
		if err != nil {
			return fail(syscall.EINVAL)
		}
		k.setProcs(pid, dir)
		return nil
	}
	if !exists(file) {
		return fail(syscall.ENOENT)
	}
	return os.WriteFile(file, []byte(data), 0o644)
}

// Remove removes a group that holds no process and no group, with its files.
func (k *fakeKernel) Remove(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.IsDir() {
			return &os.PathError{Op: "remove", Path: dir, Err: syscall.ENOTEMPTY}
		}
	}
	if len(members(dir)) > 0 {
		return &os.PathError{Op: "remove", Path: dir, Err: syscall.EBUSY}
	}
	return os.RemoveAll(dir)
}

// setProcs moves pid into the group at dir ("" takes it out of the tree).
func (k *fakeKernel) setProcs(pid int, dir string) {
	filepath.WalkDir(k.root, func(p string, e os.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return nil
		}
		pids := slices.DeleteFunc(members(p), func(n int) bool { return n == pid })
		if p == dir {
			pids = append(pids, pid)
		}
		var b strings.Builder
		for _, n := range pids {
			b.WriteString(strconv.Itoa(n) + "\n")
		}
		os.WriteFile(filepath.Join(p, "cgroup.procs"), []byte(b.String()), 0o644)
		return nil
	})
}

// group makes the groups of path rel below the root, each given the controllers listed
// its parent gives, and puts pids in the last.
func (k *fakeKernel) group(t *testing.T, rel string, pids ...int) string {
	t.Helper()
	dir := k.root
	for _, part := range strings.Split(rel, "/") {
		dir = filepath.Join(dir, part)
		if err := k.Mkdir(dir); err != nil && !errors.Is(err, os.ErrExist) {
			t.Fatal(err)
		}
	}
	for _, p := range pids {
		k.setProcs(p, dir)
	}
	k.writes = nil
	return dir
}

// enable gives the group at dir controllers, before any process is in it.
func (k *fakeKernel) enable(t *testing.T, dir, data string) {
	t.Helper()
	if err := k.Write(filepath.Join(dir, "cgroup.subtree_control"), data); err != nil {
		t.Fatal(err)
	}
	k.writes = nil
}

func read(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func exists(file string) bool {
	_, err := os.Stat(file)
	return err == nil
}

// Where a root grader's groups go: the nearest group from its own up whose controllers
// include memory and pids and that gives them already, or may (the root, or a group that
// holds no process); in a container whose root group holds its processes, a leaf as a
// delegated grader makes. And why nowhere, when nothing has the controllers.
func TestPlanRoot(t *testing.T) {
	mp := []string{"cpu", "memory", "pids"}
	for _, tc := range []struct {
		name   string
		levels []level
		want   v2plan
		err    string
	}{
		{"a session scope below a slice that gives the controllers", []level{
			{path: "/cg/user.slice/user-0.slice/session-1.scope", controllers: mp, procs: true, delegated: true},
			{path: "/cg/user.slice/user-0.slice", controllers: mp, subtree: mp},
			{path: "/cg/user.slice", controllers: mp, subtree: mp},
			{path: "/cg", controllers: mp, subtree: mp, procs: true, root: true},
		}, v2plan{base: "/cg/user.slice/user-0.slice"}, ""},
		{"a slice with no process that does not give them yet", []level{
			{path: "/cg/a.slice/b.scope", procs: true},
			{path: "/cg/a.slice", controllers: mp},
			{path: "/cg", controllers: mp, subtree: []string{"cpu"}, procs: true, root: true},
		}, v2plan{base: "/cg/a.slice", enable: true}, ""},
		{"parents that lack them up to the root, which may always give them", []level{
			{path: "/cg/a.scope", procs: true},
			{path: "/cg", controllers: mp, procs: true, root: true},
		}, v2plan{base: "/cg", enable: true}, ""},
		{"a container's root group, which holds its processes", []level{
			{path: "/cg", controllers: mp, procs: true, delegated: true},
		}, v2plan{base: "/cg", enable: true, leaf: "/cg/gauntlet-leaf"}, ""},
		{"the leaf of an earlier grader", []level{
			{path: "/cg/gauntlet-leaf", controllers: mp, procs: true, delegated: true},
			{path: "/cg", controllers: mp, subtree: mp, delegated: true},
		}, v2plan{base: "/cg"}, ""},
		{"no memory and pids controllers (bound to cgroup v1)", []level{
			{path: "/cg/x", procs: true},
			{path: "/cg", controllers: []string{"hugetlb"}, procs: true, root: true},
		}, v2plan{}, "cgroup v2 at /cg: no memory and pids controllers (there are: hugetlb)"},
		{"a read-only container group that holds processes", []level{
			{path: "/cg", controllers: mp, procs: true},
		}, v2plan{}, "cgroup v2: every group from this process's own (/cg) up to /cg that has the memory and pids controllers holds processes, and cannot give them to the groups below it"},
	} {
		got, err := plan(tc.levels, true)
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) {
			t.Errorf("%s: plan = %+v, %v; want %+v, %q", tc.name, got, err, tc.want, tc.err)
		}
	}
}

// Where the groups of a grader that is not root go: below its own group, where that is
// delegated to it and has the controllers, after its processes move into a leaf; else
// nowhere, and why.
func TestPlanRootless(t *testing.T) {
	mp := []string{"memory", "pids"}
	for _, tc := range []struct {
		name   string
		levels []level
		want   v2plan
		err    string
	}{
		{"a delegated scope", []level{
			{path: "/cg/u.service/run-1.scope", controllers: mp, procs: true, delegated: true},
			{path: "/cg/u.service", controllers: mp, subtree: mp, delegated: true},
		}, v2plan{base: "/cg/u.service/run-1.scope", enable: true, leaf: "/cg/u.service/run-1.scope/gauntlet-leaf"}, ""},
		{"a session scope not delegated (its parent gives the controllers)", []level{
			{path: "/cg/user-1000.slice/session-2.scope", controllers: mp, procs: true},
			{path: "/cg/user-1000.slice", controllers: mp, subtree: mp},
		}, v2plan{}, "not root, and this user's cgroup /cg/user-1000.slice/session-2.scope is not delegated to it"},
		{"a delegated group without the controllers", []level{
			{path: "/cg/job", controllers: []string{"cpu"}, procs: true, delegated: true},
			{path: "/cg", controllers: mp, subtree: []string{"cpu"}, root: true},
		}, v2plan{}, "not root, and this user's cgroup /cg/job, delegated to it, has no memory and pids controllers (it has: cpu)"},
		{"the leaf of an earlier grader in the delegated group", []level{
			{path: "/cg/job/gauntlet-leaf", controllers: mp, procs: true, delegated: true},
			{path: "/cg/job", controllers: mp, subtree: mp, delegated: true},
		}, v2plan{base: "/cg/job"}, ""},
		{"a group named as the leaf, whose parent is not the user's", []level{
			{path: "/cg/job/gauntlet-leaf", controllers: mp, procs: true, delegated: true},
			{path: "/cg/job", controllers: mp, subtree: mp},
		}, v2plan{base: "/cg/job/gauntlet-leaf", enable: true, leaf: "/cg/job/gauntlet-leaf/gauntlet-leaf"}, ""},
	} {
		got, err := plan(tc.levels, false)
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) {
			t.Errorf("%s: plan = %+v, %v; want %+v, %q", tc.name, got, err, tc.want, tc.err)
		}
	}
}

// A root grader in a session scope, below slices that do not give the controllers yet:
// the nearest slice with the controllers and no process is given +memory +pids, a parent
// group of the grader's own below it too, and the case group has memory.max,
// memory.swap.max and pids.max set. Removing the last group removes the parent group.
func TestV2RootGroups(t *testing.T) {
	k := newFakeKernel(t, "cpu memory pids")
	k.enable(t, k.root, "+memory +pids")
	k.group(t, "user.slice/user-0.slice")
	scope := k.group(t, "user.slice/user-0.slice/session-1.scope", 4242)
	s := newV2(k.root, "user.slice/user-0.slice/session-1.scope", true, k)
	if err := s.problem(); err != nil {
		t.Fatal(err)
	}
	// user-0.slice has no controllers (user.slice gives none): user.slice gets them.
	slice := filepath.Join(k.root, "user.slice")
	if s.base != slice || !slices.Equal(k.writes, []string{"user.slice: +memory +pids"}) {
		t.Fatalf("base %s, writes %q; want %s, [user.slice: +memory +pids]", s.base, k.writes, slice)
	}
	g, err := s.newGroup("case-1", Limits{Memory: 64 << 20, Processes: 7})
	if err != nil {
		t.Fatal(err)
	}
	parent := filepath.Join(slice, ownedPrefix+strconv.Itoa(os.Getpid())+"-groups")
	if want := filepath.Join(parent, OwnedName("case-1")); g.mem != want || g.pid != want {
		t.Errorf("group at %s and %s, want %s", g.mem, g.pid, want)
	}
	if want := []string{"user.slice/" + filepath.Base(parent) + ": +memory +pids"}; !slices.Equal(k.writes[1:], want) {
		t.Errorf("writes %q, want the parent group's %q after the slice's", k.writes, want)
	}
	for file, want := range map[string]string{"memory.max": "67108864", "memory.swap.max": "0", "pids.max": "7"} {
		if got := read(t, filepath.Join(g.mem, file)); got != want {
			t.Errorf("%s = %q, want %q", file, got, want)
		}
	}
	if got := read(t, filepath.Join(scope, "cgroup.procs")); got != "4242" {
		t.Errorf("the session scope holds %q, want its process (4242) where it was", got)
	}
	// A second group shares the parent; the parent goes with the last.
	g2, err := s.newGroup("case-2", Limits{Memory: 1 << 30, Processes: 100})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Remove(); err != nil || exists(g.mem) || !exists(parent) {
		t.Errorf("first Remove: %v; group there %v, parent there %v (want false, true)", err, exists(g.mem), exists(parent))
	}
	g.Remove() // twice: counted once
	if !exists(parent) {
		t.Error("a second Remove of the same group removed the parent of another")
	}
	if err := g2.Remove(); err != nil || exists(g2.mem) || exists(parent) {
		t.Errorf("last Remove: %v; group there %v, parent there %v (want both gone)", err, exists(g2.mem), exists(parent))
	}
}

// A grader that is not root, in a delegated group with another process (the shell that
// started it): both move into a leaf, the group gives the controllers, and the groups go
// below it. A process forked into the group while they move (EBUSY for the controllers)
// moves too.
func TestV2DelegatedGroups(t *testing.T) {
	k := newFakeKernel(t, "cpu memory pids")
	k.enable(t, k.root, "+memory +pids")
	k.enable(t, k.group(t, "user.slice"), "+memory +pids")
	k.enable(t, k.group(t, "user.slice/user@1000.service"), "+memory +pids")
	scope := k.group(t, "user.slice/user@1000.service/run-7.scope", 5001, 5002)
	forked := false
	k.onEnable = func(dir string) {
		if !forked {
			forked = true
			k.setProcs(5003, dir)
		}
	}
	s := newV2(k.root, "/user.slice/user@1000.service/run-7.scope", false, k)
	if err := s.problem(); err != nil {
		t.Fatal(err)
	}
	leaf := filepath.Join(scope, leafName)
	if got := read(t, filepath.Join(scope, "cgroup.procs")); got != "" {
		t.Errorf("the delegated group still holds %q", got)
	}
	if got := strings.Fields(read(t, filepath.Join(leaf, "cgroup.procs"))); !slices.Equal(got, []string{"5001", "5002", "5003"}) {
		t.Errorf("the leaf holds %q, want 5001 5002 5003", got)
	}
	// The first write found the forked process (EBUSY), the second none.
	want := []string{"user.slice/user@1000.service/run-7.scope: +memory +pids", "user.slice/user@1000.service/run-7.scope: +memory +pids"}
	if s.base != scope || !slices.Equal(k.writes, want) {
		t.Errorf("base %s, writes %q; want %s, %q", s.base, k.writes, scope, want)
	}
	g, err := s.newGroup("build-1", Limits{Memory: 32 << 20, Processes: 9})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(g.mem, scope+"/"+ownedPrefix) || read(t, filepath.Join(g.mem, "pids.max")) != "9" {
		t.Errorf("group at %s, pids.max there %q", g.mem, read(t, filepath.Join(g.mem, "pids.max")))
	}
	if err := g.Remove(); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(scope)
	for _, e := range ents {
		if e.IsDir() && e.Name() != leafName {
			t.Errorf("%s left in the delegated group", e.Name())
		}
	}
	// A grader started later in the leaf uses the delegated group as it is.
	k.writes = nil
	again := newV2(k.root, "/user.slice/user@1000.service/run-7.scope/"+leafName, false, k)
	if again.problem() != nil || again.base != scope || len(k.writes) != 0 || exists(filepath.Join(leaf, leafName)) {
		t.Errorf("a grader in the leaf: %v, base %s, writes %q", again.problem(), again.base, k.writes)
	}
}

// Without swap accounting (no memory.swap.max), memory.max alone holds and the group is
// made; without memory.max or pids.max the group is not made (until 2026-11-28 any missing
// file passed for missing swap accounting, and a case had no totals while the grade said it
// had), and the group is removed.
func TestV2LimitsFiles(t *testing.T) {
	for _, tc := range []struct {
		noSwap bool
		drop   string
		err    string
	}{
		{noSwap: true},
		{drop: "memory", err: "memory.max"},
		{drop: "pids", err: "pids.max"},
	} {
		k := newFakeKernel(t, "memory pids")
		k.noSwap, k.drop = tc.noSwap, tc.drop
		s := newV2(k.root, "/", true, k)
		if err := s.problem(); err != nil {
			t.Fatal(err)
		}
		g, err := s.newGroup("limits", Limits{Memory: 1 << 20, Processes: 3})
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("no swap accounting: %v", err)
		case tc.err == "" && (read(t, filepath.Join(g.mem, "memory.max")) != "1048576" || exists(filepath.Join(g.mem, "memory.swap.max"))):
			t.Errorf("no swap accounting: memory.max %q", read(t, filepath.Join(g.mem, "memory.max")))
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, os.ErrNotExist)):
			t.Errorf("no %s controller: err %v, want one about %s", tc.drop, err, tc.err)
		case tc.err != "" && exists(filepath.Join(s.parentDir(), OwnedName("limits"))):
			t.Errorf("no %s controller: the group was left", tc.drop)
		}
		if g != nil {
			g.Remove()
		}
		if exists(s.parentDir()) {
			t.Errorf("%+v: the parent group was left", tc)
		}
	}
}

// Where the hierarchy has no memory and pids controllers, the reason is found at once,
// the same each time it is asked, and nothing is made or moved.
func TestV2NoControllersSaidOnce(t *testing.T) {
	k := newFakeKernel(t, "cpu hugetlb")
	k.group(t, "job", 77)
	want := "cgroup v2 at " + k.root + ": no memory and pids controllers (there are: cpu hugetlb)"
	s := newV2(k.root, "/job", true, k)
	if err := s.problem(); err == nil || err.Error() != want {
		t.Fatalf("problem %v, want %q", err, want)
	}
	if _, err := s.newGroup("x", Limits{Memory: 1 << 20, Processes: 3}); err == nil || err.Error() != want {
		t.Errorf("New: %v, want %q", err, want)
	}
	if s.removeStale() != 0 || len(k.writes) != 0 || read(t, filepath.Join(k.root, "job", "cgroup.procs")) != "77" {
		t.Errorf("writes %q, job holds %q: want nothing written or moved", k.writes, read(t, filepath.Join(k.root, "job", "cgroup.procs")))
	}
	ents, _ := os.ReadDir(k.root)
	for _, e := range ents {
		if e.IsDir() && e.Name() != "job" {
			t.Errorf("%s made", e.Name())
		}
	}
	rootless := newV2(k.root, "/job", false, k)
	if err := rootless.problem(); err == nil || !strings.Contains(err.Error(), "has no memory and pids controllers (it has: none)") {
		t.Errorf("not root: %v", err)
	}
}
