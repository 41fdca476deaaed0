package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"gauntlet/harness/box/hygiene"
	"gauntlet/harness/box/mountinfo"
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
// case, a seventh of a boxed trivial case. Only root may mount it. The mount is the
// machine's (the grader has no mount namespace of its own), so a grader killed before its
// end leaves it mounted: the folder's name carries the pid and start time of the process
// that made it, and each new one first unmounts and removes those of processes gone.
func MemoryFolder(parent, prefix string) (dir string, release func(), err error) {
	return MemoryFolderOf(parent, prefix, 0)
}

// MemoryFolderOf is MemoryFolder with a tmpfs of size bytes at most (0: the kernel's
// default, half the memory): a build's copy, whose files all together are bounded so.
func MemoryFolderOf(parent, prefix string, size int64) (dir string, release func(), err error) {
	self, err := hygiene.ReadProc(os.Getpid())
	if err != nil {
		return "", nil, err
	}
	clearMemoryFolders(prefix)
	return makeMemoryFolder(parent, prefix, self.Pid, self.Start, size)
}

// makeMemoryFolder is MemoryFolderOf for the process pid that started at start.
func makeMemoryFolder(parent, prefix string, pid int, start uint64, size int64) (dir string, release func(), err error) {
	dir, err = os.MkdirTemp(parent, fmt.Sprintf("%s%d.%d-", prefix, pid, start))
	if err != nil {
		return "", nil, err
	}
	opts := "mode=0711"
	if size > 0 {
		opts += ",size=" + strconv.FormatInt(size, 10)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, opts); err != nil {
		os.Remove(dir)
		return "", nil, fmt.Errorf("a tmpfs on %s: %w", dir, err)
	}
	return dir, func() {
		syscall.Unmount(dir, syscall.MNT_DETACH)
		os.Remove(dir)
	}, nil
}

// RemoveTree removes dir and everything in it, first unmounting every mount at or under it
// (a memory folder, a case's folder): os.RemoveAll stops at a mount point. Whatever modes
// a subject left on its folders, they go (hygiene.RemoveAll), and what could not is the
// error. It removes nothing when dir is empty, relative or the root: os.RemoveAll("")
// removes nothing, and a caller's empty path must not become its working folder.
func RemoveTree(dir string) error {
	if dir == "" || !filepath.IsAbs(dir) {
		return hygiene.RemoveAll(dir)
	}
	abs := filepath.Clean(dir)
	if abs == "/" {
		return errors.New("sandbox: RemoveTree of /")
	}
	if mounts, err := mountinfo.Read(); err == nil {
		var points []string
		for _, m := range mounts {
			if m.Point == abs || strings.HasPrefix(m.Point, abs+"/") {
				points = append(points, m.Point)
			}
		}
		// Deepest first.
		sort.Sort(sort.Reverse(sort.StringSlice(points)))
		for _, p := range points {
			syscall.Unmount(p, syscall.MNT_DETACH)
		}
	}
	return hygiene.RemoveAll(abs)
}

// clearMemoryFolders unmounts and removes the memory folders named prefix* of processes
// that are gone (their pid no longer holds a process started at the time in the name).
func clearMemoryFolders(prefix string) {
	mounts, err := mountinfo.Read()
	if err != nil {
		return
	}
	for _, m := range mounts {
		rest, ok := strings.CutPrefix(filepath.Base(m.Point), prefix)
		if m.FSType != "tmpfs" || !ok || strings.Contains(m.Point, "\\") {
			continue // another mount, or a point with a character the kernel escapes
		}
		var pid int
		var start uint64
		if n, _ := fmt.Sscanf(rest, "%d.%d-", &pid, &start); n != 2 || hygiene.Alive(pid, start) {
			continue
		}
		syscall.Unmount(m.Point, syscall.MNT_DETACH)
		os.RemoveAll(m.Point)
	}
}
