package execrole

import (
	"errors"
	"io"
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// A rootless box's working folder. A root grader bounds all the files a
// build or a case writes by making their folder a tmpfs of its own on the host (a build's
// copy: sandbox.MemoryFolderOf; a case's box/: scriptcmds). A grader that is not root
// cannot mount on the host, and before this its build and case folders were plain folders
// on its disk, bounded by the file-size limit per file only: a make could fill the disk
// with many files. Now, where Box.Disk is set (a rootless box run by an init: PIDInit), the
// init covers the run's working folder, in the run's own mount namespace, with a tmpfs of
// Disk bytes:
//
//   - before the program starts, the init copies the folder's files in (modes and times
//     kept, links as links; a folder holding more than Disk cannot be copied, and the run
//     does not start);
//   - the program writes in that tmpfs as it would in a root grader's: past Disk its
//     writes fail with ENOSPC, as there;
//   - when the program has ended, and before the init reports its end, the init copies the
//     folder back out to the host's (mirrors it: what the program removed goes, what it
//     wrote comes; files whose size, mode and time did not change are left as they are),
//     never following a link, with regular files, folders and links only (devices, FIFOs
//     and sockets are left out), at most Disk bytes of files in all: the host's folder
//     then holds at most Disk bytes;
//   - the init reports, beside the program's end, whether the tmpfs was full when the
//     program ended (sandbox's ProcResult.FolderFull), and whether the copy back failed
//     (sandbox's LimitDisk: the subject's failure, said on the run's stderr); a copy back
//     past the bound (a sparse file: its size counts, not its blocks) leaves the host's
//     folder empty.
//
// What a run's processes write after the program's end (a daemon it left) may be copied or
// not; what they write is bounded all the same. A run the harness kills before its program
// ends (its deadline, a Stop) is not copied back: its folder stays as it was before it.
// The tmpfs also holds at most Disk/4096 files and folders (at least 1024), so that a
// flood of empty files does not reach the host's disk either.

// workDisk is a working folder covered by a tmpfs: host is the folder on the host (as the
// box binds it), tmp the tmpfs on it, both open.
type workDisk struct {
	size      int64
	host, tmp int
}

// errTooBig is a copy past the bound.
var errTooBig = errors.New("more than the bound")

// overBound is the failure of a start whose working folder holds more than its bound: what
// the program's earlier runs left there (with the inputs the harness added), the subject's
// doing. The harness is told so by its kind (KindFolderOverBound), not by the message.
type overBound struct{ size int64 }

func (e overBound) Error() string {
	return "the working folder holds more than its bound of " + strconv.FormatInt(e.size, 10) + " bytes"
}

// coverWorkDir covers the working folder cwd (the process's current one) with a tmpfs of
// size bytes, copies its files in, and makes the tmpfs the current folder.
func coverWorkDir(cwd string, size int64) (*workDisk, error) {
	host, err := syscall.Open(".", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, errors.New("the working folder: " + err.Error())
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(host, &st); err != nil {
		syscall.Close(host)
		return nil, errors.New("the working folder: " + err.Error())
	}
	inodes := max(size/4096, 1024)
	opts := "mode=" + strconv.FormatUint(uint64(st.Mode&0o777), 8) + ",size=" + strconv.FormatInt(size, 10) +
		",nr_inodes=" + strconv.FormatInt(inodes, 10)
	if err := syscall.Mount("tmpfs", cwd, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, opts); err != nil {
		syscall.Close(host)
		return nil, errors.New("the working folder's tmpfs: " + err.Error())
	}
	if err := syscall.Chdir(cwd); err != nil {
		syscall.Close(host)
		return nil, errors.New("the working folder's tmpfs: " + err.Error())
	}
	tmp, err := syscall.Open(".", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		syscall.Close(host)
		return nil, errors.New("the working folder's tmpfs: " + err.Error())
	}
	w := &workDisk{size: size, host: host, tmp: tmp}
	budget := size
	if err := mirror(host, tmp, &budget); err != nil {
		if errors.Is(err, errTooBig) || errors.Is(err, syscall.ENOSPC) {
			return nil, overBound{size}
		}
		return nil, errors.New("copy the working folder in: " + err.Error())
	}
	return w, nil
}

// Flags of the status record's last byte (StatusSize).
const (
	FolderFull = 1 << iota // the working folder's tmpfs was full when the program ended
	FolderLost             // its copy back to the host failed (the init said why on stderr)
)

// end is the init's work when the program has ended: it tells whether the tmpfs is full,
// copies the folder back out, and returns the flags of the status record.
func (w *workDisk) end() byte {
	if w == nil {
		return 0
	}
	var flags byte
	var fs syscall.Statfs_t
	if syscall.Fstatfs(w.tmp, &fs) == nil && fs.Bavail == 0 {
		flags |= FolderFull
	}
	budget := w.size
	if err := mirror(w.tmp, w.host, &budget); err != nil {
		flags |= FolderLost
		msg := err.Error()
		if errors.Is(err, errTooBig) {
			msg = "its files exceed " + strconv.FormatInt(w.size, 10) + " bytes"
			// What the host's folder held and the copy did not reach yet would stay
			// beside what it wrote: nothing of it is kept.
			if all, err := names(w.host); err == nil {
				for _, n := range all {
					removeAt(w.host, n)
				}
			}
		}
		writeAll(programStderr, []byte("gauntlet sandbox: the working folder was not copied back: "+msg+"\n"))
	}
	return flags
}

// mirror makes the folder dst (open) hold what the folder src holds: regular files,
// folders and symbolic links, modes (without set-user and set-group bits) and modification
// times kept, nothing else of dst left. It never follows a link of either. The files'
// sizes together come off *budget: past it, errTooBig.
func mirror(src, dst int, budget *int64) error {
	srcNames, err := names(src)
	if err != nil {
		return err
	}
	dstNames, err := names(dst)
	if err != nil {
		return err
	}
	in := map[string]bool{}
	for _, n := range srcNames {
		in[n] = true
	}
	for _, n := range dstNames {
		if !in[n] {
			if err := removeAt(dst, n); err != nil {
				return err
			}
		}
	}
	for _, n := range srcNames {
		if err := mirrorEntry(src, dst, n, budget); err != nil {
			return err
		}
	}
	return nil
}

// mirrorEntry makes dst's entry name what src's is (see mirror).
func mirrorEntry(src, dst int, name string, budget *int64) error {
	st, ok := lstatAt(src, name)
	if !ok {
		return removeAt(dst, name) // gone meanwhile
	}
	old, had := lstatAt(dst, name)
	kind := st.Mode & syscall.S_IFMT
	if had && old.Mode&syscall.S_IFMT != kind {
		if err := removeAt(dst, name); err != nil {
			return err
		}
		had = false
	}
	mode := st.Mode & 0o1777
	switch kind {
	case syscall.S_IFDIR:
		if !had {
			if err := syscall.Mkdirat(dst, name, 0o700); err != nil {
				return err
			}
		}
		s, err := syscall.Openat(src, name, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer syscall.Close(s)
		d, err := syscall.Openat(dst, name, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer syscall.Close(d)
		if err := syscall.Fchmod(d, 0o700); err != nil { // to write in it
			return err
		}
		if err := mirror(s, d, budget); err != nil {
			return err
		}
		if err := syscall.Fchmod(d, mode); err != nil {
			return err
		}
		return setTime(dst, name, st)
	case syscall.S_IFREG:
		if *budget -= st.Size; *budget < 0 {
			return errTooBig
		}
		if had && old.Size == st.Size && old.Mtim == st.Mtim {
			if old.Mode&0o1777 != mode {
				return syscall.Fchmodat(dst, name, mode, 0)
			}
			return nil
		}
		if had {
			if err := removeAt(dst, name); err != nil {
				return err
			}
		}
		s, err := syscall.Openat(src, name, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		sf := os.NewFile(uintptr(s), name)
		defer sf.Close()
		d, err := syscall.Openat(dst, name, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
		if err != nil {
			return err
		}
		df := os.NewFile(uintptr(d), name)
		// Its size as seen: a process left running that makes it grow adds nothing.
		_, err = io.Copy(df, io.LimitReader(sf, st.Size))
		if err == nil {
			err = syscall.Fchmod(d, mode)
		}
		if cerr := df.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		return setTime(dst, name, st)
	case syscall.S_IFLNK:
		to, err := readlinkAt(src, name)
		if err != nil {
			return err
		}
		if had {
			if cur, err := readlinkAt(dst, name); err == nil && cur == to {
				return nil
			}
			if err := removeAt(dst, name); err != nil {
				return err
			}
		}
		return symlinkAt(to, dst, name)
	}
	// A device, FIFO or socket: not copied.
	if had {
		return removeAt(dst, name)
	}
	return nil
}

// names lists the folder open at dir.
func names(dir int) ([]string, error) {
	d, err := syscall.Dup(dir)
	if err != nil {
		return nil, err
	}
	syscall.CloseOnExec(d)
	syscall.Seek(d, 0, io.SeekStart)
	f := os.NewFile(uintptr(d), "")
	defer f.Close()
	return f.Readdirnames(-1)
}

// lstatAt is the entry name of the folder dir, not followed if a link.
func lstatAt(dir int, name string) (syscall.Stat_t, bool) {
	var st syscall.Stat_t
	fd, err := syscall.Openat(dir, name, oPath|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return st, false
	}
	defer syscall.Close(fd)
	return st, syscall.Fstat(fd, &st) == nil
}

// removeAt removes the entry name of the folder dir, and all it holds.
func removeAt(dir int, name string) error {
	err := unlinkAt(dir, name, 0)
	if err == nil || err == syscall.ENOENT {
		return nil
	}
	if err != syscall.EISDIR {
		return err
	}
	d, err := syscall.Openat(dir, name, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	syscall.Fchmod(d, 0o700)
	inner, err := names(d)
	if err == nil {
		for _, n := range inner {
			if err = removeAt(d, n); err != nil {
				break
			}
		}
	}
	syscall.Close(d)
	if err != nil {
		return err
	}
	return unlinkAt(dir, name, atRemoveDir)
}

const (
	atRemoveDir       = 0x200 // AT_REMOVEDIR
	atSymlinkNoFollow = 0x100 // AT_SYMLINK_NOFOLLOW
)

func unlinkAt(dir int, name string, flags int) error {
	p, err := syscall.BytePtrFromString(name)
	if err != nil {
		return err
	}
	if _, _, e := syscall.Syscall(syscall.SYS_UNLINKAT, uintptr(dir), uintptr(unsafe.Pointer(p)), uintptr(flags)); e != 0 {
		return e
	}
	return nil
}

func readlinkAt(dir int, name string) (string, error) {
	p, err := syscall.BytePtrFromString(name)
	if err != nil {
		return "", err
	}
	buf := make([]byte, 4096)
	n, _, e := syscall.Syscall6(syscall.SYS_READLINKAT, uintptr(dir), uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0, 0)
	if e != 0 {
		return "", e
	}
	return string(buf[:n]), nil
}

func symlinkAt(to string, dir int, name string) error {
	t, err := syscall.BytePtrFromString(to)
	if err != nil {
		return err
	}
	p, err := syscall.BytePtrFromString(name)
	if err != nil {
		return err
	}
	if _, _, e := syscall.Syscall(syscall.SYS_SYMLINKAT, uintptr(unsafe.Pointer(t)), uintptr(dir), uintptr(unsafe.Pointer(p))); e != 0 {
		return e
	}
	return nil
}

// setTime gives the entry name of dir (not followed) the access and modification times of
// st: make compares them.
func setTime(dir int, name string, st syscall.Stat_t) error {
	p, err := syscall.BytePtrFromString(name)
	if err != nil {
		return err
	}
	ts := [2]syscall.Timespec{st.Atim, st.Mtim}
	if _, _, e := syscall.Syscall6(syscall.SYS_UTIMENSAT, uintptr(dir), uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(&ts[0])), atSymlinkNoFollow, 0, 0); e != 0 {
		return e
	}
	return nil
}
