// Package cgroup gives a case of a grade totals of its own: the memory and the number of
// processes of everything the case starts, together, whatever user each runs as. Per-process
// limits (setrlimit) cannot do that: ten processes of 900 MiB each pass a 1 GiB address
// space limit.
//
// It writes the kernel's cgroup files directly (no daemon, no library). With cgroup v1 a
// group goes in the memory and pids hierarchies, below the cgroup the grader itself is in.
// With cgroup v2 (one hierarchy) a group needs the memory and pids controllers from its
// parent, and a group that holds processes cannot give controllers to the groups below it
// (the kernel's "no internal processes" rule; only the root is exempt), so the grader's
// groups go in a parent group of gauntlet's own that holds no process, placed where
// controllers can be given (v2.go). A process joins a group by writing its pid to
// Group.ProcFiles, and its children follow. The sandbox's exec role joins for itself before
// it execs, so that nothing of the subject runs outside; under v1 it writes 0 to the tasks
// file beside each (every thread moving itself), which spares the kernel's global lock;
// under v2 there is no tasks file and it writes its pid to cgroup.procs, which moves the
// whole process, every thread (execrole's joinCgroup, docs/harness.md).
package cgroup

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"gauntlet/harness/box/mountinfo"
	"gauntlet/harness/box/rawfile"
)

// Group is one case's cgroup.
type Group struct {
	sys      *system
	mem, pid string // the group's folder in each hierarchy (the same one under v2)
	counted  bool   // v2: counted in sys.live until removed (guarded by sys.mu)
}

// Limits are the totals of a group.
type Limits struct {
	Memory    int64 // bytes of memory (RSS, page cache and tmpfs pages together)
	Processes int   // processes and threads
}

// system is where this process's groups go, or why it has none.
type system struct {
	err error // why this process may make no groups (v2, or v1 without the hierarchies)
	v2  bool

	// v1: the grader's own memory and pids groups, below which its groups go.
	mem, pid string

	// fs makes and removes groups and writes the files that move processes and give
	// controllers: the kernel's (osFS), a fake kernel in tests.
	fs fsys

	// v2: the group below which gauntlet's parent group goes (plan).
	base string
	mu   sync.Mutex
	live int // groups made below the parent group and not yet removed

	staleOnce sync.Once // RemoveStale, run by the first New
}

var (
	sysOnce sync.Once
	sys     *system
)

// current finds, the first time, where this process's groups go (and, under cgroup v2,
// readies the place: v2.go).
func current() *system {
	sysOnce.Do(func() { sys = detect() })
	return sys
}

// detect finds where this process's memory and pids cgroups are, from /proc/self/cgroup
// and /proc/self/mountinfo: cgroup v1's memory and pids hierarchies where both are
// mounted, else the v2 hierarchy.
func detect() *system {
	mounts, err := cgroupMounts()
	if err != nil {
		return &system{err: err}
	}
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return &system{err: err}
	}
	defer f.Close()
	s := &system{fs: osFS{}}
	sc := bufio.NewScanner(f)
	unified := ""
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			switch {
			case c == "memory" && mounts["memory"] != "":
				s.mem = filepath.Join(mounts["memory"], parts[2])
			case c == "pids" && mounts["pids"] != "":
				s.pid = filepath.Join(mounts["pids"], parts[2])
			}
		}
		if parts[0] == "0" && parts[1] == "" {
			unified = parts[2]
		}
	}
	if s.mem != "" && s.pid != "" {
		return s
	}
	if unified != "" && mounts[""] != "" {
		return newV2(mounts[""], unified, os.Geteuid() == 0, osFS{})
	}
	return &system{err: errors.New("no cgroup with the memory and pids controllers that this process may use")}
}

// cgroupMounts maps each v1 controller to its mount point, and "" to the v2 mount.
func cgroupMounts() (map[string]string, error) {
	mounts, err := mountinfo.Read()
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, mt := range mounts {
		switch mt.FSType {
		case "cgroup2":
			m[""] = mt.Point
		case "cgroup":
			for _, o := range strings.Split(mt.Super, ",") {
				if o == "memory" || o == "pids" {
					m[o] = mt.Point
				}
			}
		}
	}
	return m, nil
}

// Problem says why this machine cannot give a case a group, or nil. The first call readies
// the place of the groups under cgroup v2 (v2.go: for a grader that is not root, this moves
// its processes into a leaf group of its own), so that the reason, when there is one, is
// known before the first case: the caller says it once and makes no group.
//
// A grader that is not root gets groups where its own are delegated to it: under cgroup
// v1, its memory and pids groups are folders it may write in (the groups it makes there
// are its own); under v2, its own group is (its folder, cgroup.procs and
// cgroup.subtree_control are its user's, as systemd-run --user -p Delegate=yes or a
// container runtime makes them) and gives the memory and pids controllers.
func Problem() error {
	return current().problem()
}

func (s *system) problem() error {
	if s.err != nil {
		return s.err
	}
	if !s.v2 && os.Geteuid() != 0 {
		return s.delegatedV1()
	}
	return nil
}

// delegatedV1 says why a grader that is not root may not make groups below its own v1
// groups, or nil.
func (s *system) delegatedV1() error {
	for _, d := range slices.Compact([]string{s.mem, s.pid}) {
		if err := syscall.Access(d, wOK|xOK); err != nil {
			return fmt.Errorf("not root, and this user's cgroup %s is not delegated to it", d)
		}
	}
	return nil
}

// Modes of access(2).
const (
	wOK = 2
	xOK = 1
)

// New makes a group with the given totals, named after name (unique among this process's
// groups) and this process (OwnedName), so that a later grader removes it if this one ends
// without removing it (RemoveStale, which New runs once per process). Under cgroup v2 the
// group is below gauntlet's parent group (v2.go), made with the first group and removed
// with the last.
func New(name string, lim Limits) (*Group, error) {
	return current().newGroup(name, lim)
}

func (s *system) newGroup(name string, lim Limits) (*Group, error) {
	if err := s.problem(); err != nil {
		return nil, err
	}
	s.staleOnce.Do(func() { s.removeStale() })
	name = OwnedName(name)
	g := &Group{sys: s, mem: filepath.Join(s.mem, name), pid: filepath.Join(s.pid, name)}
	if s.v2 {
		parent, err := s.holdParent(g)
		if err != nil {
			return nil, err
		}
		g.mem = filepath.Join(parent, name)
		g.pid = g.mem
	}
	for _, d := range g.dirs() {
		if err := s.fs.Mkdir(d); err != nil {
			g.Remove()
			return nil, fmt.Errorf("cgroup: %w", err)
		}
	}
	if err := g.SetLimits(lim); err != nil {
		g.Remove()
		return nil, err
	}
	return g, nil
}

// roots are the groups below which this process's groups, and those of other graders
// that RemoveStale removes, are: v1's memory and pids groups, v2's base.
func (s *system) roots() []string {
	if s.v2 {
		return []string{s.base}
	}
	return slices.Compact([]string{s.mem, s.pid})
}

// ownedPrefix starts the name of every group New makes, followed by the maker's pid and
// "-".
const ownedPrefix = "gauntlet-P"

// OwnedName is the name New gives a group asked for as name: "gauntlet-P", this process's
// pid, "-", and name without a leading "gauntlet-".
func OwnedName(name string) string {
	return ownedPrefix + strconv.Itoa(os.Getpid()) + "-" + strings.TrimPrefix(name, "gauntlet-")
}

// RemoveStale removes the groups New made for processes that no longer exist (a grader
// killed, or one that ended before it removed its groups): each is emptied and removed,
// with the groups below it (under v2, a gone grader's parent group and its case groups;
// under v1, what a user the group was delegated to made there), so that no grade leaves
// its case groups behind whatever ended it. It returns how many it removed.
func RemoveStale() int {
	return current().removeStale()
}

func (s *system) removeStale() int {
	if s.problem() != nil {
		return 0
	}
	n := 0
	for _, root := range s.roots() {
		ents, err := os.ReadDir(root)
		if err != nil {
			continue
		}
		for _, e := range ents {
			rest, ok := strings.CutPrefix(e.Name(), ownedPrefix)
			if !ok || !e.IsDir() {
				continue
			}
			pidText, _, ok := strings.Cut(rest, "-")
			pid, err := strconv.Atoi(pidText)
			if !ok || err != nil || pid <= 0 || syscall.Kill(pid, 0) != syscall.ESRCH {
				continue
			}
			if s.removeTree(filepath.Join(root, e.Name())) == nil {
				n++
			}
		}
	}
	return n
}

// SetLimits sets the group's totals. Lowering the memory total below what the group holds
// fails under v1 when the kernel cannot reclaim enough (under v2 the kernel kills in the
// group instead; a kept group is empty when its totals change). Under v2 a missing memory.max or pids.max
// (a group without the controller) is an error; only memory.swap.max may be missing (a
// kernel without swap accounting, where memory.max alone holds).
func (g *Group) SetLimits(lim Limits) error {
	var err error
	if g.sys.v2 {
		err = errors.Join(g.write(g.mem, "memory.max", lim.Memory), g.write(g.pid, "pids.max", int64(lim.Processes)))
		if err == nil {
			// Swap counts apart under v2: none, else swap would lift the total.
			if swap := g.write(g.mem, "memory.swap.max", 0); swap != nil && !errors.Is(swap, os.ErrNotExist) {
				err = swap
			}
		}
	} else {
		// With swap accounting, swap counts too (else swap would lift the limit). The
		// memory and swap total may never be below the memory one: the order that keeps
		// it so depends on whether the totals go up or down, so the memory one is tried
		// again after.
		memsw := g.write(g.mem, "memory.memsw.limit_in_bytes", lim.Memory)
		err = errors.Join(g.write(g.mem, "memory.limit_in_bytes", lim.Memory),
			g.write(g.pid, "pids.max", int64(lim.Processes)))
		if memsw != nil {
			g.write(g.mem, "memory.memsw.limit_in_bytes", lim.Memory)
		}
	}
	if err != nil {
		return fmt.Errorf("cgroup: %w", err)
	}
	return nil
}

func (g *Group) write(dir, file string, n int64) error {
	return g.sys.fs.Write(filepath.Join(dir, file), strconv.FormatInt(n, 10))
}

func (g *Group) dirs() []string {
	if g.mem == g.pid {
		return []string{g.mem}
	}
	return []string{g.mem, g.pid}
}

// ProcFiles are the files a process writes its pid to, to join the group.
func (g *Group) ProcFiles() []string {
	var out []string
	for _, d := range g.dirs() {
		out = append(out, filepath.Join(d, "cgroup.procs"))
	}
	return out
}

// Join puts the process pid in the group.
func Join(procFiles []string, pid int) error {
	for _, f := range procFiles {
		if err := rawfile.Write(f, []byte(strconv.Itoa(pid))); err != nil {
			return fmt.Errorf("join %s: %w", f, err)
		}
	}
	return nil
}

// Events are what the kernel counted against the group's totals.
type Events struct {
	OOMKills int // processes killed because the memory total was reached
	PidsMax  int // forks refused because the process total was reached
}

// Events reads the group's counters.
func (g *Group) Events() Events {
	var e Events
	if g.sys.v2 {
		e.OOMKills = keyed(filepath.Join(g.mem, "memory.events"), "oom_kill")
		e.PidsMax = keyed(filepath.Join(g.pid, "pids.events"), "max")
	} else {
		e.OOMKills = keyed(filepath.Join(g.mem, "memory.oom_control"), "oom_kill")
		e.PidsMax = keyed(filepath.Join(g.pid, "pids.events"), "max")
	}
	return e
}

// keyed reads the number after key in a "key value" per line file.
func keyed(file, key string) int {
	b, err := rawfile.Read(file, nil)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key+" "); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

// Kill kills whatever is in the group, and says whether it emptied it. The group stays,
// for the next case of the same user (a group made again costs the kernel more than the
// case's own work in a trivial case).
func (g *Group) Kill() bool {
	empty := true
	for _, d := range g.dirs() {
		empty = kill(d) && empty
	}
	return empty
}

// kill kills the members of the group at dir until there are none, for at most 200 ms.
func kill(dir string) bool {
	for try := 0; try < 100; try++ {
		pids := members(dir)
		if len(pids) == 0 {
			return true
		}
		for _, p := range pids {
			syscall.Kill(p, syscall.SIGKILL)
		}
		time.Sleep(2 * time.Millisecond)
	}
	return len(members(dir)) == 0
}

// V1 says whether the groups are cgroup v1's (false also where there are none).
func V1() bool {
	s := current()
	return s.err == nil && !s.v2
}

// delegationFiles are the files of a group that its user must own for the group to be
// delegated to it (the kernel's cgroup-v2 documentation, "Delegation"; tasks is v1's):
// with its folder, the user may move processes into it and make groups below it, whose
// files are then the user's. The group's own totals (memory.max, pids.max...) stay
// root's, so the user cannot lift them.
var delegationFiles = []string{"cgroup.procs", "cgroup.threads", "cgroup.subtree_control", "tasks"}

// Chown gives the group to user uid and group gid, as systemd delegates a group: its
// folders and their delegationFiles, so that the user may join it and make groups of its
// own below it.
func (g *Group) Chown(uid, gid int) error {
	for _, d := range g.dirs() {
		if err := os.Chown(d, uid, gid); err != nil {
			return err
		}
		for _, f := range delegationFiles {
			if err := os.Chown(filepath.Join(d, f), uid, gid); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}

// RemoveTree removes the group and the groups below it (those a user it was delegated to
// made and left), deepest first, killing what is in them.
func (g *Group) RemoveTree() error {
	var errs []error
	for _, d := range g.dirs() {
		errs = append(errs, g.sys.removeBelow(d))
	}
	return errors.Join(append(errs, g.Remove())...)
}

// removeTree removes the group at d and the groups below it, deepest first, killing what
// is in them.
func (s *system) removeTree(d string) error {
	err := s.removeBelow(d)
	kill(d)
	return errors.Join(err, s.fs.Remove(d))
}

// removeBelow removes the groups below the one at d, deepest first, killing what is in
// them.
func (s *system) removeBelow(d string) error {
	var below []string
	filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
		if err == nil && e.IsDir() && p != d {
			below = append(below, p)
		}
		return nil
	})
	var errs []error
	for i := len(below) - 1; i >= 0; i-- {
		kill(below[i])
		if err := s.fs.Remove(below[i]); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Remove kills whatever is still in the group and removes it (under v2, with gauntlet's
// parent group once it holds no other).
func (g *Group) Remove() error {
	var errs []error
	for _, d := range g.dirs() {
		if _, err := os.Stat(d); err != nil {
			continue
		}
		// A group can only be removed once empty; its processes are killed first.
		kill(d)
		if err := g.sys.fs.Remove(d); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 {
		g.sys.releaseParent(g)
	}
	return errors.Join(errs...)
}

func members(dir string) []int {
	b, _ := rawfile.Read(filepath.Join(dir, "cgroup.procs"), nil)
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}
