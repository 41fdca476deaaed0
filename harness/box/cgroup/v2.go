package cgroup

// Cgroup v2: where a grader's groups go.
//
// A v2 group has a controller's files (memory.max, pids.max) only when its parent's
// cgroup.subtree_control lists the controller, and the kernel refuses (EBUSY) to list one
// there while the parent holds processes itself, unless the parent is the hierarchy's root
// (the "no internal processes" rule). The grader always holds processes in its own group
// (itself), and so, for a root grader, does the group it runs in (a session scope with its
// shell, a container's group). So the groups never go below the grader's own group: they go
// in a parent group of gauntlet's own (gauntlet-P<pid>-groups), which holds no process and
// lists +memory +pids in its cgroup.subtree_control, made with the first group and removed
// with the last (Group.Remove), or by a later grader once this one is gone (RemoveStale).
// That parent goes below the group plan chooses (the base):
//
//   - a root grader: the nearest group from its own up to the root whose controllers
//     include memory and pids and that either lists them already in its subtree_control or
//     may list them (the root, or a group that holds no process), where +memory +pids is
//     then written. Only where no such group is seen (the grader's root is a container's
//     group, which holds its processes) does a root grader do as a delegated one does.
//   - a grader that is not root: its own group, where that group is delegated to it (its
//     folder, cgroup.procs and cgroup.subtree_control are writable by it, as systemd-run
//     --user -p Delegate=yes or a container runtime leaves them) and gives memory and
//     pids. The processes of that group first move into a leaf group below it
//     (gauntlet-leaf), as crun does with a container's delegated group, and then the group
//     lists +memory +pids. Every process of the group moves, the grader's and any other
//     (the shell that started it inside the delegated scope, a container's init): a group
//     that keeps one process can give no controller, so refusing would leave every such
//     grader without totals, and the move changes nothing for them but the group's path
//     (the delegated group's own totals still hold over the leaf). A grader that finds
//     itself in such a leaf already (started after another in the same group) uses the
//     leaf's parent, whose controllers are given, and moves nothing. The leaf stays: it
//     holds the grader, and whatever else moved, until they end.
//
// Writing a pid to cgroup.procs moves the whole process, every thread, under v2: moving
// the grader moves its Go runtime's threads at once, and the exec role's join (execrole's
// joinCgroup: no v1 tasks file here, so its pid goes to cgroup.procs) moves the role
// whole. Moving a process between two groups needs write access to the cgroup.procs of
// their common ancestor: for a delegated grader, its own group, which is its user's.
//
// Every reason is found when the package is first asked (Problem), before any case: the
// grade says it once, and makes no group.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"gauntlet/harness/box/rawfile"
)

// leafName is the group below a delegated group that the group's processes move into.
// It does not start with ownedPrefix: RemoveStale never kills what is in it.
const leafName = "gauntlet-leaf"

// enableBoth is what a group's cgroup.subtree_control is given, so that the groups below
// it have the memory and pids controllers.
const enableBoth = "+memory +pids"

// fsys makes groups and writes the files whose effect matters beyond the file: the
// kernel's (osFS), or a fake kernel in tests.
type fsys interface {
	Mkdir(dir string) error
	Write(file, data string) error
	Remove(dir string) error
}

type osFS struct{}

func (osFS) Mkdir(dir string) error        { return os.Mkdir(dir, 0o755) }
func (osFS) Write(file, data string) error { return rawfile.Write(file, []byte(data)) }
func (osFS) Remove(dir string) error       { return os.Remove(dir) }

// level is what a v2 group's files say, for plan.
type level struct {
	path        string   // the group's folder
	controllers []string // cgroup.controllers: what its parent gives it
	subtree     []string // cgroup.subtree_control: what it gives the groups below it
	procs       bool     // it holds processes itself
	root        bool     // the hierarchy's root (no cgroup.type), which may hold processes and give controllers
	delegated   bool     // this process may make groups in it, move processes there and give controllers
}

// v2plan is where plan puts a grader's groups.
type v2plan struct {
	base   string // gauntlet's parent group goes below base
	enable bool   // base's cgroup.subtree_control is given enableBoth first
	leaf   string // base's processes move into this group first ("" none)
}

// newV2 readies the groups of a grader whose group is own (as /proc/self/cgroup says it,
// from the root of the v2 hierarchy mounted at mount), root or not: it reads the groups
// from own up, plans, and does what the plan says (fs), or keeps the reason.
func newV2(mount, own string, asRoot bool, fs fsys) *system {
	s := &system{v2: true, fs: fs}
	dir := filepath.Join(mount, own)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		s.err = fmt.Errorf("cgroup v2: this process's group %s is not in the hierarchy mounted at %s", own, mount)
		return s
	}
	p, err := plan(readLevels(mount, dir), asRoot)
	if err == nil {
		err = s.apply(p)
	}
	if err != nil {
		s.err = err
		return s
	}
	s.base = p.base
	return s
}

// readLevels reads the groups from dir up to mount, dir first.
func readLevels(mount, dir string) []level {
	mount = filepath.Clean(mount)
	var levels []level
	for {
		levels = append(levels, readLevel(dir))
		if dir == mount || !strings.HasPrefix(dir, mount+"/") {
			return levels
		}
		dir = filepath.Dir(dir)
	}
}

func readLevel(dir string) level {
	l := level{
		path:        dir,
		controllers: fields(filepath.Join(dir, "cgroup.controllers")),
		subtree:     fields(filepath.Join(dir, "cgroup.subtree_control")),
		procs:       len(members(dir)) > 0,
	}
	_, err := os.Stat(filepath.Join(dir, "cgroup.type"))
	l.root = errors.Is(err, os.ErrNotExist)
	l.delegated = syscall.Access(dir, wOK|xOK) == nil &&
		syscall.Access(filepath.Join(dir, "cgroup.procs"), wOK) == nil &&
		syscall.Access(filepath.Join(dir, "cgroup.subtree_control"), wOK) == nil
	return l
}

// fields reads the names of a one-line list file (cgroup.controllers...).
func fields(file string) []string {
	b, _ := rawfile.Read(file, nil)
	return strings.Fields(string(b))
}

// gives says whether a list of controllers has memory and pids.
func gives(list []string) bool {
	return slices.Contains(list, "memory") && slices.Contains(list, "pids")
}

// plan decides where a grader's groups go (see the top of this file), from the groups from
// its own (levels[0]) up to the root, or says why they can go nowhere.
func plan(levels []level, asRoot bool) (v2plan, error) {
	own := levels[0]
	if filepath.Base(own.path) == leafName && len(levels) > 1 && gives(levels[1].subtree) && (asRoot || levels[1].delegated) {
		// A leaf an earlier grader made: its parent gives the controllers already.
		return v2plan{base: levels[1].path}, nil
	}
	if asRoot {
		for _, l := range levels {
			switch {
			case !gives(l.controllers):
				// Its parent gives it neither: higher up.
			case gives(l.subtree):
				return v2plan{base: l.path}, nil
			case l.root || !l.procs:
				return v2plan{base: l.path, enable: true}, nil
			}
		}
		if !slices.ContainsFunc(levels, func(l level) bool { return gives(l.controllers) }) {
			top := levels[len(levels)-1]
			return v2plan{}, fmt.Errorf("cgroup v2 at %s: no memory and pids controllers (there are: %s)", top.path, listed(top.controllers))
		}
		if !gives(own.controllers) || !own.delegated {
			return v2plan{}, fmt.Errorf("cgroup v2: every group from this process's own (%s) up to %s that has the memory and pids controllers holds processes, and cannot give them to the groups below it", own.path, levels[len(levels)-1].path)
		}
	} else {
		if !own.delegated {
			return v2plan{}, fmt.Errorf("not root, and this user's cgroup %s is not delegated to it", own.path)
		}
		if !gives(own.controllers) {
			return v2plan{}, fmt.Errorf("not root, and this user's cgroup %s, delegated to it, has no memory and pids controllers (it has: %s)", own.path, listed(own.controllers))
		}
	}
	return v2plan{base: own.path, enable: true, leaf: filepath.Join(own.path, leafName)}, nil
}

func listed(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, " ")
}

// apply does what plan p says: the processes of the base move into the leaf, then the base
// gives the controllers. A process started in the base meanwhile (a fork of one that was
// moving) makes the kernel refuse the controllers (EBUSY): it is moved too, and the
// controllers asked again, a few times.
func (s *system) apply(p v2plan) error {
	sub := filepath.Join(p.base, "cgroup.subtree_control")
	for try := 0; p.enable; try++ {
		if p.leaf != "" {
			if err := moveInto(s.fs, p.base, p.leaf); err != nil {
				return fmt.Errorf("cgroup v2: cannot move the processes of %s into a leaf group (%s) of its own: %w", p.base, p.leaf, err)
			}
		}
		err := s.fs.Write(sub, enableBoth)
		if err == nil {
			break
		}
		if errors.Is(err, syscall.EBUSY) {
			if p.leaf != "" && try < 10 {
				continue
			}
			return fmt.Errorf("cgroup v2: %s holds processes, so it cannot give the groups below it the memory and pids controllers", p.base)
		}
		return fmt.Errorf("cgroup v2: give the groups below %s the memory and pids controllers: %w", p.base, err)
	}
	if got := fields(sub); !gives(got) {
		return fmt.Errorf("cgroup v2: %s does not give the groups below it the memory and pids controllers (it gives: %s)", p.base, listed(got))
	}
	return nil
}

// moveInto moves every process of the group at dir into the group leaf (made if need be),
// until dir holds none.
func moveInto(fs fsys, dir, leaf string) error {
	if err := fs.Mkdir(leaf); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	for try := 0; try < 100; try++ {
		pids := members(dir)
		if len(pids) == 0 {
			return nil
		}
		for _, p := range pids {
			if p <= 0 {
				continue // a process this one cannot see (another PID namespace's)
			}
			err := fs.Write(filepath.Join(leaf, "cgroup.procs"), strconv.Itoa(p))
			if err != nil && !errors.Is(err, syscall.ESRCH) {
				return err
			}
		}
	}
	return fmt.Errorf("%s still holds processes", dir)
}

// parentDir is gauntlet's parent group of this process's groups.
func (s *system) parentDir() string {
	return filepath.Join(s.base, ownedPrefix+strconv.Itoa(os.Getpid())+"-groups")
}

// holdParent makes gauntlet's parent group if no group is below it, and counts g there.
func (s *system) holdParent(g *Group) (string, error) {
	parent := s.parentDir()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.live == 0 {
		if err := s.fs.Mkdir(parent); err != nil && !errors.Is(err, os.ErrExist) {
			return "", fmt.Errorf("cgroup: gauntlet's parent group: %w", err)
		}
		if err := s.fs.Write(filepath.Join(parent, "cgroup.subtree_control"), enableBoth); err != nil {
			s.fs.Remove(parent)
			return "", fmt.Errorf("cgroup: gauntlet's parent group %s: %w", parent, err)
		}
	}
	s.live++
	g.counted = true
	return parent, nil
}

// releaseParent uncounts the removed group g, and removes gauntlet's parent group once no
// group is below it.
func (s *system) releaseParent(g *Group) {
	if !s.v2 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !g.counted {
		return
	}
	g.counted = false
	s.live--
	if s.live == 0 {
		s.fs.Remove(s.parentDir())
	}
}
