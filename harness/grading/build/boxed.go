package build

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"gauntlet/execrole"
	"gauntlet/harness/box/cgroup"
	"gauntlet/harness/box/sandbox"
	"gauntlet/harness/runtime/child"
)

// buildBoxed builds a copy of src as a sandbox user of its own, in a box, and publishes
// what it built. Res.Dir (searchable by others, owned by the grader) ends up holding:
//
//	src/  the copy make ran in; owned by the build's user during the build, then taken
//	      back by the grader (every file given to root, modes kept), so that no later case,
//	      whose sandbox user may reuse the build's uid, can change it; the programs run
//	      from here, beside the files they may need
func buildBoxed(orig string, res *Result, names []string, opt Options) (*Result, error) {
	src := filepath.Join(res.Dir, "src")
	if err := os.Mkdir(src, 0o700); err != nil {
		return nil, err
	}
	if err := copyTree(orig, src); err != nil {
		return nil, fmt.Errorf("copying %s: %w", orig, err)
	}
	if !opt.NoBuild {
		var err error
		if res.Removed, err = removePrebuilt(src, names, opt.Paths); err != nil {
			return nil, err
		}
	}
	// A grader that is not root builds as itself, in a rootless box (no lease): the
	// tree it builds stays its own, and the cases' boxes hold it read-only.
	var lease *sandbox.Lease
	if !sandbox.Rootless() {
		var err error
		if lease, err = sandbox.NewLease(); err != nil {
			return nil, err
		}
		defer lease.Release()
	}
	start := time.Now()
	failed := map[string]bool{} // programs whose own make failed
	if !opt.NoBuild {
		if lease != nil {
			if err := chownTree(src, lease.UID(), lease.GID()); err != nil {
				return nil, err
			}
		}
		var err error
		res.OK, res.Log, res.Problem, err = makeBoxed(src, lease, opt)
		if err != nil {
			return nil, err
		}
		failed = res.makeEach(names, opt, func(n string) (bool, string) {
			ok, log, _, merr := makeBoxed(src, lease, opt, n)
			if merr != nil {
				err = merr
			}
			return ok, log
		})
		if err != nil {
			return nil, err
		}
		res.Warnings = CountWarnings(res.Log)
		// Taken back before anything is read from it: a later case's user, which may get
		// the build's uid again, must not change it.
		// (Rootless, the tree stays the grader's, bound read-only in every case's box.)
		if lease != nil {
			if err := chownTree(src, 0, 0); err != nil {
				return nil, err
			}
		}
	}
	if err := os.Chmod(src, 0o711); err != nil {
		return nil, err
	}
	res.Duration = time.Since(start)
	for _, n := range names {
		// Where -prog says, else (nothing there) by its own name at the top.
		p, ok := "", false
		if rel, given := opt.Paths[n]; given {
			p, ok = program(src, rel, opt.Keep)
		}
		if !ok {
			p, ok = program(src, n, opt.Keep)
		}
		if ok && !failed[n] {
			res.Programs[n] = p
		} else {
			res.Missing = append(res.Missing, n)
		}
	}
	res.tellByProgram(names, opt)
	return res, nil
}

// makeBoxed runs make in dir as the leased user, in a box, with a clean environment.
func makeBoxed(dir string, lease *sandbox.Lease, opt Options, targets ...string) (ok bool, log, problem string, err error) {
	limits := opt.limits()
	identity := sandbox.Identity{Lease: lease}
	if lease == nil {
		identity = sandbox.Identity{Same: true}
	}
	cfg := sandbox.Config{
		Limits:      limits,
		Identity:    identity,
		Deadline:    opt.Timeout,
		WorkDir:     dir,
		OutputLimit: MaxLog,
		// (A grader that is not root makes the copy's folder a tmpfs of the build's disk
		// inside the box, WorkDisk: a root grader's copy is one on the host already, Build.)
		Box: &sandbox.Box{Keep: append([]string{dir}, opt.Keep...), Hide: opt.Hide, WorkDisk: opt.disk()},
		Env: []string{"PATH=" + child.SystemPath, "HOME=" + dir, "TMPDIR=/tmp"}, // a subject's PATH (child.SubjectEnv)
	}
	makePath := opt.Make
	if !strings.Contains(makePath, "/") {
		for _, d := range []string{"/usr/bin", "/bin", "/usr/local/bin"} {
			if st, err := os.Stat(filepath.Join(d, makePath)); err == nil && !st.IsDir() {
				makePath = filepath.Join(d, makePath)
				break
			}
		}
	}
	// Totals over the whole build, every process of it together (a make can hold 4.5 GB,
	// each of its processes within the per-process limit).
	var group *cgroup.Group
	memory := limits.CaseMemory
	if memory <= 0 {
		memory = BuildLimits().CaseMemory
	}
	// (A grader that is not root builds as itself, with totals where its cgroups are
	// delegated to it.)
	if cgroup.Problem() == nil && !opt.NoBox && (lease != nil || sandbox.Rootless()) {
		name := "build-self-" + strconv.FormatInt(selfBuilds.Add(1), 10)
		if lease != nil {
			name = "build-" + strconv.Itoa(lease.UID())
		}
		group, err = cgroup.New(name, cgroup.Limits{Memory: memory, Processes: limits.WithDefaults().Processes})
		if err != nil {
			return false, "", "", err
		}
		defer group.Remove()
		cfg.Cgroup = group.ProcFiles()
	}
	if opt.NoBox {
		cfg.Box = nil // the machine refuses the box: the user and the limits only
	}
	r, err := sandbox.Run(cfg, sandbox.Spec{Name: "make", Path: makePath, Args: targets, Stdout: sandbox.Capture, Stderr: sandbox.Capture})
	if err != nil {
		return false, "", "", fmt.Errorf("cannot start make: %w", err)
	}
	var totals cgroup.Events
	if group != nil {
		totals = group.Events()
	}
	if len(r.Errors) > 0 {
		return false, "", "", fmt.Errorf("make's box: %s", strings.Join(r.Errors, "; "))
	}
	p := r.Procs[0]
	// The two streams come separately: make's messages, then the compiler's.
	log = string(p.Stdout) + string(p.Stderr)
	if p.StdoutCut || p.StderrCut {
		log += fmt.Sprintf("\n[build log cut at %d KiB a stream]\n", MaxLog>>10)
	}
	switch {
	case totals.OOMKills > 0:
		return false, log, fmt.Sprintf("the build reached its memory total (%d MiB, all its processes together)", memory>>20), nil
	case totals.PidsMax > 0 && p.Exit != (sandbox.Exit{}):
		return false, log, fmt.Sprintf("the build reached its process total (%d processes at once)", cfg.Limits.WithDefaults().Processes), nil
	case r.DeadlinePassed:
		return false, log, fmt.Sprintf("make did not finish within %v", opt.Timeout), nil
	case p.Limit == sandbox.LimitDisk:
		return false, log, fmt.Sprintf("the build's files could not be kept within %d bytes (see the log)", opt.disk()), nil
	case p.Exit != (sandbox.Exit{}) && cfg.Box != nil && folderFull(dir, p):
		return false, log, fmt.Sprintf("the build's files exceed %d bytes, all of them together (%s)", opt.disk(), describeEnd(p)), nil
	case p.Limit != "":
		return false, log, fmt.Sprintf("make ran into the %s limit", p.Limit), nil
	case p.Exit.Signal != 0:
		return false, log, fmt.Sprintf("make was killed by signal %d", p.Exit.Signal), nil
	case p.Exit.Code != 0:
		return false, log, fmt.Sprintf("make exited with status %d", p.Exit.Code), nil
	}
	return true, log, "", nil
}

// folderFull says whether the build's copy was full when make ended: a root grader's copy
// is a tmpfs of its own on the host (Build), a rootless one's a tmpfs in make's box, which
// the box's init reports on.
func folderFull(dir string, p sandbox.ProcResult) bool {
	if sandbox.Rootless() {
		return p.FolderFull
	}
	var st unix.Statfs_t
	return unix.Statfs(dir, &st) == nil && st.Type == unix.TMPFS_MAGIC && st.Bavail == 0
}

// describeEnd says how make ended, as the build's problem does.
func describeEnd(p sandbox.ProcResult) string {
	if p.Exit.Signal != 0 {
		return fmt.Sprintf("make was killed by signal %d", p.Exit.Signal)
	}
	return fmt.Sprintf("make exited with status %d", p.Exit.Code)
}

// chownTree gives every file and folder of dir to uid:gid, without following links. Given
// to root (the build taken back), nothing of it stays writable by group or others either:
// a case's user must not change a program or a file the programs read between cases (a
// built file left world-writable would let a program rewrite itself).
func chownTree(dir string, uid, gid int) error {
	return filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := os.Lchown(path, uid, gid); err != nil {
			return err
		}
		if uid != 0 || d.Type()&os.ModeSymlink != 0 {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if m := info.Mode(); m.Perm()&0o022 != 0 {
			return os.Chmod(path, m&^0o022)
		}
		return nil
	})
}

// program finds the program rel as the build left it in src: a regular, executable file,
// or a link to one inside src, or to one outside that the cases' boxes hold too (the
// system's folders, execrole.System and sandbox.BindVar's, and keep, the folders the staff
// keep visible) and that everybody may read and run anyway. Anything else (a link to a
// private file, or to a file of the host the boxes do not hold, such as a course's
// reference solution; a device; a folder) is not a program of the submission: the grader,
// being root, must not lend it its own reach.
//
// A link is followed as a box would follow it, never as the grader's own process does:
// one whose way goes through /proc or /dev (/proc/self/exe, /dev/fd/N), which a box makes
// anew for the process that follows it, is no program, whatever it leads to in the
// grader (where `ln -s /proc/self/exe 2310dealer` is the grader's own binary: followed
// there, a three-line Makefile would earn every dealer mark); nor is a link to a file every box masks (the judge's binary or a reference
// program installed where the boxes look: sandbox.Masked).
func program(src, rel string, keep []string) (string, bool) {
	if !filepath.IsLocal(rel) {
		return "", false
	}
	real, err := resolveAsBox(filepath.Join(src, rel))
	if err != nil {
		return "", false
	}
	var st unix.Stat_t
	if err := unix.Stat(real, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Mode&0o111 == 0 {
		return "", false
	}
	// Run by the name the build gave it (a link's name may be what the program goes by);
	// src belongs to the grader now, so the link cannot change under it.
	p := filepath.Join(src, rel)
	if r, err := filepath.Rel(src, real); err == nil && filepath.IsLocal(r) {
		return p, true
	}
	return p, st.Mode&0o005 == 0o005 && inBoxes(real, keep) && !sandbox.Masked(real)
}

// boxOwn are the folders a box makes anew for each process (its /proc, its /dev with links
// into /proc/self): a link through them leads, in a box, somewhere else than in the grader.
var boxOwn = []string{"/proc", "/dev", "/sys"}

// resolveAsBox is path with every link on its way followed, one part at a time, as
// filepath.EvalSymlinks does, but an error as soon as the way passes through one of
// boxOwn, where the grader's process would find its own files instead of the box's.
func resolveAsBox(path string) (string, error) {
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("%s: not an absolute path", path)
	}
	done, todo := "/", strings.Split(strings.TrimPrefix(filepath.Clean(path), "/"), "/")
	for hops := 0; len(todo) > 0; {
		part := todo[0]
		todo = todo[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			done = filepath.Dir(done)
			continue
		}
		next := filepath.Join(done, part)
		for _, own := range boxOwn {
			if next == own || strings.HasPrefix(next, own+"/") {
				return "", fmt.Errorf("%s: its way goes through %s, which is a box's own", path, own)
			}
		}
		fi, err := os.Lstat(next)
		if err != nil {
			return "", err
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			done = next
			continue
		}
		if hops++; hops > 40 {
			return "", fmt.Errorf("%s: too many links", path)
		}
		to, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(to) {
			done = "/"
		}
		todo = append(strings.Split(to, "/"), todo...)
	}
	return done, nil
}

// inBoxes says whether path lies where every case's box shows the host: a system folder
// (execrole.System, sandbox.BindVar's) or one of keep.
func inBoxes(path string, keep []string) bool {
	dirs := append(append(append([]string(nil), execrole.System...), filepath.SplitList(os.Getenv(sandbox.BindVar))...), keep...)
	for _, d := range dirs {
		if d == "" {
			continue
		}
		// The system's folders may be links themselves (/bin to usr/bin).
		if r, err := filepath.EvalSymlinks(d); err == nil {
			d = r
		}
		if rel, err := filepath.Rel(d, path); err == nil && filepath.IsLocal(rel) {
			return true
		}
	}
	return false
}

// selfBuilds numbers the builds of a grader that is not root, whose groups cannot be named
// after a sandbox user.
var selfBuilds atomic.Int64
