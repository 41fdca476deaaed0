// Package cgroup gives a case of a grade totals of its own: the memory and the number of
// processes of everything the case starts, together, whatever user each runs as. Per-process
// limits (setrlimit) cannot do that: ten processes of 900 MiB each pass a 1 GiB address
// space limit.
//
// It writes the kernel's cgroup files directly (no daemon, no library): with cgroup v1 a
// group in the memory and pids hierarchies, below the cgroup the grader itself is in; with
// cgroup v2 one group with the memory and pids controllers. A process joins by writing its
// pid to Group.ProcFiles, and its children follow. The sandbox's exec role joins for itself
// before it execs, so that nothing of the subject runs outside; under v1 it writes 0 to the
// tasks file beside each (every thread moving itself), which spares the kernel's global
// lock (execrole's joinCgroup, docs/harness.md).
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

	"gauntlet/harness/mountinfo"
	"gauntlet/harness/rawfile"
)

// Group is one case's cgroup.
type Group struct {
	v2       bool
	mem, pid string // the group's folder in each hierarchy (the same one under v2)
}

// Limits are the totals of a group.
type Limits struct {
	Memory    int64 // bytes of memory (RSS, page cache and tmpfs pages together)
	Processes int   // processes and threads
}

var (
	rootsOnce        sync.Once
	memRoot, pidRoot string
	isV2             bool
	rootsErr         error
)

// findRoots finds where this process's memory and pids cgroups are, from /proc/self/cgroup
// and /proc/self/mountinfo.
func findRoots() {
	mounts, err := cgroupMounts()
	if err != nil {
		rootsErr = err
		return
	}
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		rootsErr = err
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var unified string
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			switch {
			case c == "memory" && mounts["memory"] != "":
				memRoot = filepath.Join(mounts["memory"], parts[2])
			case c == "pids" && mounts["pids"] != "":
				pidRoot = filepath.Join(mounts["pids"], parts[2])
			}
		}
		if parts[0] == "0" && parts[1] == "" && mounts[""] != "" {
			unified = filepath.Join(mounts[""], parts[2])
		}
	}
	if memRoot != "" && pidRoot != "" {
		return
	}
	if unified != "" {
		ctrl, _ := os.ReadFile(filepath.Join(unified, "cgroup.controllers"))
		have := strings.Fields(string(ctrl))
		if contains(have, "memory") && contains(have, "pids") {
			memRoot, pidRoot, isV2 = unified, unified, true
			return
		}
	}
	rootsErr = errors.New("no cgroup with the memory and pids controllers that this process may use")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
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

// Problem says why this machine cannot give a case a group, or nil. A grader that is not
// root gets groups where its own are delegated to it: under cgroup v1, its memory and pids
// groups are folders it may write in (the groups it makes there are its own). Under v2 a
// group that holds processes cannot give its children controllers, and the grader is never
// moved out of its own group (what systemd-run --user -p Delegate=yes would need), so a
// grader that is not root gets no groups there: the caller says so.
func Problem() error {
	rootsOnce.Do(findRoots)
	if rootsErr != nil {
		return rootsErr
	}
	if os.Geteuid() != 0 {
		return delegated()
	}
	return nil
}

// delegated says why a grader that is not root may not make groups below its own, or nil.
func delegated() error {
	if isV2 {
		return errors.New("not root, under cgroup v2, where a grader's group of its own cannot give groups below it the memory and pids controllers")
	}
	for _, d := range slices.Compact([]string{memRoot, pidRoot}) {
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
// without removing it (RemoveStale, which New runs once per process).
func New(name string, lim Limits) (*Group, error) {
	if err := Problem(); err != nil {
		return nil, err
	}
	staleOnce.Do(func() { RemoveStale() })
	name = OwnedName(name)
	g := &Group{v2: isV2, mem: filepath.Join(memRoot, name), pid: filepath.Join(pidRoot, name)}
	for _, d := range g.dirs() {
		if err := os.Mkdir(d, 0o755); err != nil {
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

var staleOnce sync.Once

// ownedPrefix starts the name of every group New makes, followed by the maker's pid and
// "-".
const ownedPrefix = "gauntlet-P"

// OwnedName is the name New gives a group asked for as name: "gauntlet-P", this process's
// pid, "-", and name without a leading "gauntlet-".
func OwnedName(name string) string {
	return ownedPrefix + strconv.Itoa(os.Getpid()) + "-" + strings.TrimPrefix(name, "gauntlet-")
}

// RemoveStale removes the groups New made for processes that no longer exist (a grader
// killed, or one that ended before it removed its groups): each is emptied and removed.
// Until 2026-11-28 every grade left its case groups behind (1,707 empty ones were found on
// one machine). It returns how many it removed.
func RemoveStale() int {
	if Problem() != nil {
		return 0
	}
	n := 0
	for _, root := range slices.Compact([]string{memRoot, pidRoot}) {
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
			d := filepath.Join(root, e.Name())
			kill(d)
			if os.Remove(d) == nil {
				n++
			}
		}
	}
	return n
}

// SetLimits sets the group's totals. Lowering the memory total below what the group holds
// fails when the kernel cannot reclaim enough.
func (g *Group) SetLimits(lim Limits) error {
	var err error
	if g.v2 {
		err = errors.Join(write(g.mem, "memory.max", lim.Memory), write(g.mem, "memory.swap.max", 0),
			write(g.pid, "pids.max", int64(lim.Processes)))
		if err != nil && errors.Is(err, os.ErrNotExist) {
			err = nil // no swap accounting: memory.max alone
		}
	} else {
		// With swap accounting, swap counts too (else swap would lift the limit). The
		// memory and swap total may never be below the memory one: the order that keeps
		// it so depends on whether the totals go up or down, so the memory one is tried
		// again after.
		memsw := write(g.mem, "memory.memsw.limit_in_bytes", lim.Memory)
		err = errors.Join(write(g.mem, "memory.limit_in_bytes", lim.Memory),
			write(g.pid, "pids.max", int64(lim.Processes)))
		if memsw != nil {
			write(g.mem, "memory.memsw.limit_in_bytes", lim.Memory)
		}
	}
	if err != nil {
		return fmt.Errorf("cgroup: %w", err)
	}
	return nil
}

func write(dir, file string, n int64) error {
	return rawfile.Write(filepath.Join(dir, file), []byte(strconv.FormatInt(n, 10)))
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
	if g.v2 {
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
	rootsOnce.Do(findRoots)
	return rootsErr == nil && !isV2
}

// Chown gives the group to user uid and group gid: its folders and their files, so that the
// user may join it and make groups of its own below it (delegation, as systemd does for a
// user's session).
func (g *Group) Chown(uid, gid int) error {
	for _, d := range g.dirs() {
		if err := os.Chown(d, uid, gid); err != nil {
			return err
		}
		ents, err := os.ReadDir(d)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if !e.IsDir() {
				if err := os.Chown(filepath.Join(d, e.Name()), uid, gid); err != nil {
					return err
				}
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
		var below []string
		filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err == nil && e.IsDir() && p != d {
				below = append(below, p)
			}
			return nil
		})
		for i := len(below) - 1; i >= 0; i-- {
			kill(below[i])
			if err := os.Remove(below[i]); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(append(errs, g.Remove())...)
}

// Remove kills whatever is still in the group and removes it.
func (g *Group) Remove() error {
	var errs []error
	for _, d := range g.dirs() {
		if _, err := os.Stat(d); err != nil {
			continue
		}
		// A group can only be removed once empty; its processes are killed first.
		kill(d)
		if err := os.Remove(d); err != nil {
			errs = append(errs, err)
		}
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
