package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// MakeScratch makes a scratch folder named prefix* under parent for a harness that runs
// untrusted programs (the grader, the fuzzer), after checking that nobody
// else can swap it or anything in it: each folder on the way must belong to root or the
// grader, and be writable by others only with the sticky bit (as /tmp should be), else
// another user could rename the scratch folder and put their own in its place, programs
// included. The folder is made private (0700), then opened to search only (0711), for the
// sandbox users that run the programs in it.
//
// With parent empty, the system's temporary folder is used when it is safe, and otherwise
// a private folder of the grader's (/run/gauntlet for root, the user's cache folder
// otherwise); note then says so.
func MakeScratch(parent, prefix string) (dir, note string, err error) {
	if parent != "" {
		dir, err := makeScratchIn(parent, prefix)
		return dir, "", err
	}
	dir, err = makeScratchIn(os.TempDir(), prefix)
	if err == nil {
		return dir, "", nil
	}
	private := "/run/gauntlet"
	if os.Geteuid() != 0 {
		cache, cerr := os.UserCacheDir()
		if cerr != nil {
			return "", "", err
		}
		private = filepath.Join(cache, "gauntlet")
	}
	if mkErr := os.MkdirAll(private, 0o711); mkErr != nil {
		return "", "", fmt.Errorf("%v; and %v", err, mkErr)
	}
	os.Chmod(private, 0o711)
	dir, err2 := makeScratchIn(private, prefix)
	if err2 != nil {
		return "", "", fmt.Errorf("%v; and %v", err, err2)
	}
	return dir, fmt.Sprintf("%v: the scratch space is in %s instead", err, private), nil
}

func makeScratchIn(parent, prefix string) (string, error) {
	abs, err := filepath.Abs(parent)
	if err != nil {
		return "", err
	}
	if err := checkAncestors(abs); err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(abs, prefix)
	if err != nil {
		return "", err
	}
	st, err := os.Lstat(dir)
	if err != nil || !st.IsDir() || st.Sys().(*syscall.Stat_t).Uid != uint32(os.Geteuid()) {
		os.Remove(dir)
		return "", fmt.Errorf("the scratch folder %s is not the harness's own", dir)
	}
	if err := os.Chmod(dir, 0o711); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// checkAncestors checks dir and every folder above it (see MakeScratch).
func checkAncestors(dir string) error {
	me := uint32(os.Geteuid())
	for d := dir; ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err != nil {
			return err
		}
		sys := st.Sys().(*syscall.Stat_t)
		switch {
		case sys.Uid != 0 && sys.Uid != me:
			return fmt.Errorf("unsafe scratch space: %s belongs to uid %d, who could replace the grader's folders in it", d, sys.Uid)
		case st.Mode().Perm()&0o022 != 0 && st.Mode()&os.ModeSticky == 0:
			return fmt.Errorf("unsafe scratch space: others may write in %s (mode %v, no sticky bit), so they could swap the grader's folders", d, st.Mode().Perm())
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

// MemoryFolder makes a folder named prefix* under parent (a scratch folder of MakeScratch)
// with a tmpfs of its own mounted on it, searchable by others (0711), and returns how to
// unmount and remove it. The grader keeps its cases' folders there: making and removing a
// case's few folders on a disk's file system (ext4) cost the kernel about 0.7 ms of CPU a
// case, a seventh of a boxed trivial case. Only root may mount it; the mount is the
// machine's (the grader has no mount namespace of its own), so a grader killed before its
// end leaves it mounted, holding the cases then under way, until the machine restarts or
// root unmounts it.
func MemoryFolder(parent, prefix string) (dir string, release func(), err error) {
	dir, err = os.MkdirTemp(parent, prefix)
	if err != nil {
		return "", nil, err
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "mode=0711"); err != nil {
		os.Remove(dir)
		return "", nil, fmt.Errorf("a tmpfs on %s: %w", dir, err)
	}
	return dir, func() {
		syscall.Unmount(dir, syscall.MNT_DETACH)
		os.Remove(dir)
	}, nil
}
