package build

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"gauntlet/harness/execfile"
	"gauntlet/harness/sandbox"
)

// buildBoxed builds a copy of src as a sandbox user of its own, in a box, and publishes
// what it built. Res.Dir (searchable by others, owned by the grader) ends up holding:
//
//	src/  the copy make ran in; owned by the build's user during the build, then taken
//	      back by the grader and closed to everyone (0700), so that no later case, whose
//	      sandbox user may reuse the build's uid, can read or change it
//	bin/  the programs found, copied by the grader (never through a link leaving src/),
//	      owned by the grader, runnable by the cases' users
func buildBoxed(orig string, res *Result, names []string, opt Options) (*Result, error) {
	src := filepath.Join(res.Dir, "src")
	bin := filepath.Join(res.Dir, "bin")
	if err := os.Mkdir(src, 0o700); err != nil {
		return nil, err
	}
	if err := copyTree(orig, src); err != nil {
		return nil, fmt.Errorf("copying %s: %w", orig, err)
	}
	lease, err := sandbox.NewLease()
	if err != nil {
		return nil, err
	}
	defer lease.Release()
	start := time.Now()
	if !opt.NoBuild {
		if err := chownTree(src, lease.UID(), lease.GID()); err != nil {
			return nil, err
		}
		res.OK, res.Log, res.Problem, err = makeBoxed(src, lease, opt)
		if err != nil {
			return nil, err
		}
		res.Warnings = CountWarnings(res.Log)
		// Taken back before anything is read from it.
		if err := os.Lchown(src, 0, 0); err != nil {
			return nil, err
		}
		if err := os.Chmod(src, 0o700); err != nil {
			return nil, err
		}
	}
	res.Duration = time.Since(start)
	if err := os.Mkdir(bin, 0o755); err != nil {
		return nil, err
	}
	for _, n := range names {
		rel := n
		if p, ok := opt.Paths[n]; ok {
			rel = p
		}
		if publish(src, filepath.Join(bin, n), rel) {
			res.Programs[n] = filepath.Join(bin, n)
		} else {
			res.Missing = append(res.Missing, n)
		}
	}
	return res, nil
}

// makeBoxed runs make in dir as the leased user, in a box, with a clean environment.
func makeBoxed(dir string, lease *sandbox.Lease, opt Options) (ok bool, log, problem string, err error) {
	limits := opt.Limits
	if limits == (sandbox.Limits{}) {
		limits = BuildLimits()
	}
	cfg := sandbox.Config{
		Limits:      limits,
		Identity:    sandbox.Identity{Lease: lease},
		Deadline:    opt.Timeout,
		WorkDir:     dir,
		OutputLimit: MaxLog,
		Box:         &sandbox.Box{Keep: append([]string{dir}, opt.Keep...), Hide: opt.Hide},
		Env:         []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + dir, "TMPDIR=/tmp"},
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
	r, err := sandbox.Run(cfg, sandbox.Spec{Name: "make", Path: makePath, Stdout: sandbox.Capture, Stderr: sandbox.Capture})
	if err != nil {
		return false, "", "", fmt.Errorf("cannot start make: %w", err)
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
	case r.DeadlinePassed:
		return false, log, fmt.Sprintf("make did not finish within %v", opt.Timeout), nil
	case p.Limit != "":
		return false, log, fmt.Sprintf("make ran into the %s limit", p.Limit), nil
	case p.Exit.Signal != 0:
		return false, log, fmt.Sprintf("make was killed by signal %d", p.Exit.Signal), nil
	case p.Exit.Code != 0:
		return false, log, fmt.Sprintf("make exited with status %d", p.Exit.Code), nil
	}
	return true, log, "", nil
}

// chownTree gives every file and folder of dir to uid:gid, without following links.
func chownTree(dir string, uid, gid int) error {
	return filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, uid, gid)
	})
}

// publish copies the program name, as the build left it in src, to dst: a regular,
// executable file, or a link to one that stays inside src. Anything else (a link out of the
// copy, a device, a folder) is not a program of the submission.
func publish(src, dst, rel string) bool {
	if !filepath.IsLocal(rel) {
		return false
	}
	p := filepath.Join(src, rel)
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return false
	}
	if rel, err := filepath.Rel(src, real); err != nil || !filepath.IsLocal(rel) {
		return false
	}
	fd, err := unix.Open(real, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	f := os.NewFile(uintptr(fd), real)
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Mode()&0o111 == 0 || st.Size() > MaxTotalSize {
		return false
	}
	err = execfile.WriteFrom(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755, io.LimitReader(f, MaxTotalSize))
	return err == nil
}
