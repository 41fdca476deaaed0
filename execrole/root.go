package execrole

import (
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// The box's root: an allow-list. A box that were the whole host with a few folders
// replaced or covered would show everything it did not know about: a world-readable
// checkout of the suites, a course's reference solution, the grader's scratch space with
// every other case, and, in /proc/self/mountinfo, the folder of every case box on the
// machine. So a box is a new
// root, made in the run's own mount namespace and entered with pivot_root, holding only:
//
//   - System, read-only: what C programs, make and the compilers need (and ReadOnly, the
//     run's own additions: sandbox's GAUNTLET_BOX_BIND);
//   - Keep, the run's folders, at the same paths, as they are on the host; and the run's
//     working folder, always;
//   - a private tmpfs at /tmp, /var/tmp and /dev/shm;
//   - a minimal /dev (null, zero, full, random, urandom, tty; fd, stdin, stdout, stderr);
//   - a new /proc with hidepid.
//
// The host's root is detached once the new one is entered: nothing of it stays reachable.

// System lists what every box holds of the host, read-only, at the same path. A path that
// does not exist is left out; one that is a symbolic link (/bin to usr/bin on a merged
// system) is made as the same link. Of /etc only what programs and compilers read is
// there: these folders, and the files of SystemFiles.
var System = []string{
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
	"/etc/alternatives", "/etc/ld.so.conf.d",
}

// SystemFiles are the files of the host every box holds a copy of, read-only, at the same
// path: the users and groups, name resolution (loopback only), the dynamic linker's cache,
// the time zone. They are copied into the box's root (a link is made as the same link):
// a bind of each took two operations under the kernel's one lock on every mount of the
// machine, in every box.
var SystemFiles = []string{
	"/etc/passwd", "/etc/group", "/etc/hosts", "/etc/nsswitch.conf", "/etc/host.conf",
	"/etc/gai.conf", "/etc/services", "/etc/protocols", "/etc/ld.so.cache", "/etc/ld.so.conf",
	"/etc/localtime", "/etc/os-release",
}

// devices are the device files a box's /dev holds, bound from the host's.
var devices = []string{"null", "zero", "full", "random", "urandom", "tty"}

// private are the folders of a box that are private tmpfs mounts, world-writable with the
// sticky bit, of Box.TmpSize bytes each.
var private = []string{"/tmp", "/var/tmp", "/dev/shm"}

// aBind is one folder or file of the host that the new root holds at target.
type aBind struct {
	target   string
	fd       int    // O_PATH descriptor of the source, opened before anything is covered
	dir      bool   // a folder (else a file)
	readOnly bool   // bound read-only
	link     string // for a symbolic link of System: what it points to (fd is -1)
	tmpfs    bool   // a private tmpfs, not a bind
}

// enterBox makes the box's root and enters it, and brings up the loopback. It runs as
// root, in the mount, IPC, network and UTS namespaces cloned for the program (or the
// spawner thread's own), before the switch to the sandbox user.
func enterBox(b *Box) (err error) {
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return errors.New("make mounts private: " + err.Error())
	}
	if b.ownUserNS {
		// The box's own user namespace: what its programs may make in it.
		if err := os.WriteFile("/proc/sys/user/max_user_namespaces", []byte(strconv.Itoa(b.UserNS)), 0); err != nil {
			return errors.New("limit the user namespaces: " + err.Error())
		}
	}
	cwd, err := syscall.Getwd()
	if err != nil {
		return errors.New("the working folder: " + err.Error())
	}
	var binds []aBind
	defer func() {
		for _, bd := range binds {
			if bd.fd >= 0 {
				syscall.Close(bd.fd)
			}
		}
	}()
	add := func(path string, readOnly, optional bool) error {
		if i := slices.IndexFunc(binds, func(bd aBind) bool { return bd.target == path }); i >= 0 {
			// Writable wins: the working folder, kept read-only in a rootless box.
			binds[i].readOnly = binds[i].readOnly && readOnly
			return nil
		}
		var st syscall.Stat_t
		if err := syscall.Lstat(path, &st); err != nil {
			if optional {
				return nil
			}
			return errors.New("keep " + path + ": " + err.Error())
		}
		if st.Mode&syscall.S_IFMT == syscall.S_IFLNK && optional {
			buf := make([]byte, 4096)
			n, err := syscall.Readlink(path, buf)
			if err != nil {
				return nil
			}
			binds = append(binds, aBind{target: path, fd: -1, link: string(buf[:n])})
			return nil
		}
		fd, err := syscall.Open(path, oPath|syscall.O_CLOEXEC, 0)
		if err != nil {
			if optional {
				return nil
			}
			return errors.New("keep " + path + ": " + err.Error())
		}
		if err := syscall.Fstat(fd, &st); err != nil {
			syscall.Close(fd)
			return errors.New("keep " + path + ": " + err.Error())
		}
		binds = append(binds, aBind{target: path, fd: fd, dir: st.Mode&syscall.S_IFMT == syscall.S_IFDIR, readOnly: readOnly})
		return nil
	}
	for _, p := range System {
		if err := add(p, true, true); err != nil {
			return err
		}
	}
	for _, p := range b.ReadOnly {
		if err := add(cleanAbs(p), true, true); err != nil {
			return err
		}
	}
	for _, p := range private {
		if !slices.Contains(b.Keep, p) { // keeping the folder itself keeps it shared
			binds = append(binds, aBind{target: p, fd: -1, dir: true, tmpfs: true})
		}
	}
	for _, k := range b.Keep {
		if err := add(cleanAbs(k), false, false); err != nil {
			return err
		}
	}
	if !within(cwd, b.Keep) || slices.ContainsFunc(binds, func(bd aBind) bool { return bd.target == cwd }) {
		// The run works in its folder: a working folder left outside the new root would
		// be a way out of it.
		if err := add(cwd, false, false); err != nil {
			return err
		}
	}
	// Parents before what lies in them: a path sorts before every path under it.
	slices.SortStableFunc(binds, func(x, y aBind) int { return strings.Compare(x.target, y.target) })

	// The new root is a small tmpfs on /sys of this namespace (nothing of the host's /sys
	// is in a box, and no run keeps a folder there), read-only once made. Not on a folder a
	// run may keep: a kept folder is bound with what is mounted on it, and would bring the
	// new root along instead of the host's folder.
	const root = "/sys"
	if err := syscall.Mount("tmpfs", root, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "mode=0755,size=1m"); err != nil {
		return errors.New("the box's root: " + err.Error())
	}
	if err := makeDev(root); err != nil {
		return err
	}
	for _, bd := range binds {
		if err := placeBind(root, bd, b.TmpSize); err != nil {
			return err
		}
	}
	if err := copyFiles(root, SystemFiles); err != nil {
		return err
	}
	if err := maskFiles(root, b.Mask); err != nil {
		return err
	}
	// Hidden: what a kept folder holds that this run must not see (a cohort's other
	// submissions, from a build).
	for _, h := range b.Hide {
		var st syscall.Stat_t
		if syscall.Stat(root+cleanAbs(h), &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
			continue
		}
		if err := syscall.Mount("tmpfs", root+cleanAbs(h), "tmpfs", syscall.MS_RDONLY|syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, "size=4k,mode=0555"); err != nil {
			return errors.New("hide " + h + ": " + err.Error())
		}
	}
	if err := os.MkdirAll(root+"/proc", 0o555); err != nil {
		return errors.New("/proc: " + err.Error())
	}
	// An empty /sys: where a box made inside this one (a rootless judge's subject's)
	// makes its own root.
	if err := os.MkdirAll(root+"/sys", 0o555); err != nil {
		return errors.New("/sys: " + err.Error())
	}
	if b.init {
		// Before the box's own /proc: on a kernel before 5.8 the two would share its options.
		if b.procs, err = initProcs(root + "/proc"); err != nil {
			return err
		}
	}
	if err := syscall.Mount("proc", root+"/proc", "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, "hidepid=invisible"); err != nil {
		// Kernels before 5.8 know only the number.
		if err := syscall.Mount("proc", root+"/proc", "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, "hidepid=2"); err != nil {
			return errors.New("mount /proc with hidepid: " + err.Error())
		}
	}
	if err := os.Mkdir(root+"/.host", 0o700); err != nil {
		return errors.New("the host's root: " + err.Error())
	}
	if err := syscall.PivotRoot(root, root+"/.host"); err != nil {
		return errors.New("pivot_root: " + err.Error())
	}
	if err := syscall.Chdir("/"); err != nil {
		return err
	}
	if err := syscall.Unmount("/.host", syscall.MNT_DETACH); err != nil {
		return errors.New("detach the host's root: " + err.Error())
	}
	syscall.Rmdir("/.host")
	if err := syscall.Mount("", "/", "", syscall.MS_REMOUNT|syscall.MS_RDONLY|syscall.MS_NOSUID|syscall.MS_NODEV, ""); err != nil {
		return errors.New("the box's root read-only: " + err.Error())
	}
	if err := syscall.Chdir(cwd); err != nil {
		return errors.New("the working folder " + cwd + ": " + err.Error())
	}
	if b.Disk > 0 {
		// A tmpfs of its own over the working folder (workdisk.go).
		if b.work, err = coverWorkDir(cwd, b.Disk); err != nil {
			return err
		}
	}
	if b.Net != "" || b.SameNet {
		return nil // the shared namespace's loopback is up already
	}
	if err := LoopbackUp(); err != nil {
		return errors.New("loopback: " + err.Error())
	}
	return nil
}

// initProcs mounts a /proc of the box's PID namespace without hidepid at dir, opens it
// for the init alone (close-on-exec) and detaches it again: the descriptor it returns is
// then the only way to it. The init counts there what its program left it (StatusOrphans):
// the box's own /proc hides from a rootless init every process it may not trace, and a
// rootless init may trace none that is not dumpable (one run from a file its user may only
// execute: the witness's stand-ins for a hub's players), which would go uncounted.
// A kernel before 5.8 has one set of options for every /proc of a PID namespace: the box's
// hidepid, mounted after, then holds for this one too, and such a rootless init still
// misses them (a root init, which may trace every process, never does).
func initProcs(dir string) (int, error) {
	if err := syscall.Mount("proc", dir, "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); err != nil {
		return -1, errors.New("the init's /proc: " + err.Error())
	}
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if uerr := syscall.Unmount(dir, syscall.MNT_DETACH); uerr != nil {
		if err == nil {
			syscall.Close(fd)
		}
		return -1, errors.New("detach the init's /proc: " + uerr.Error())
	}
	if err != nil {
		return -1, errors.New("the init's /proc: " + err.Error())
	}
	return fd, nil
}

// maskFiles covers each file of masks, in the new root being built at root, with an empty
// file of mode 0 (read-only, nosuid, nodev, noexec): the box's programs find a file there
// and can neither read it nor run it, and no capability they could have brings the
// original back (the box makes them no user namespace in which they could unmount it). The
// empty file is made in the box's /dev (its own tmpfs: a file unlinked on the root while
// bound would keep the root from being made read-only), bound over every mask, and
// unlinked: it is nowhere else in the box. A path the new root does not hold as a regular file is passed over.
func maskFiles(root string, masks []string) error {
	if len(masks) == 0 {
		return nil
	}
	empty := root + "/dev/.mask"
	fd, err := syscall.Open(empty, syscall.O_CREAT|syscall.O_EXCL|syscall.O_WRONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return errors.New("the judge's files: " + err.Error())
	}
	syscall.Close(fd)
	defer syscall.Unlink(empty)
	for _, m := range masks {
		target := root + cleanAbs(m)
		var st syscall.Stat_t
		if syscall.Lstat(target, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
			continue
		}
		if err := syscall.Mount(empty, target, "", syscall.MS_BIND, ""); err != nil {
			return errors.New("hide " + m + ": " + err.Error())
		}
		flags := uintptr(syscall.MS_BIND | syscall.MS_REMOUNT | syscall.MS_RDONLY | syscall.MS_NOSUID | syscall.MS_NODEV | syscall.MS_NOEXEC)
		if err := syscall.Mount("", target, "", flags, ""); err != nil {
			return errors.New("hide " + m + " read-only: " + err.Error())
		}
	}
	return nil
}

// placeBind makes bd in the new root being built at root.
func placeBind(root string, bd aBind, tmpSize int64) error {
	target := root + bd.target
	if bd.link != "" {
		if err := os.MkdirAll(parentOf(target), 0o755); err != nil {
			return errors.New(bd.target + ": " + err.Error())
		}
		if err := os.Symlink(bd.link, target); err != nil && !os.IsExist(err) {
			return errors.New(bd.target + ": " + err.Error())
		}
		return nil
	}
	if bd.dir {
		if err := os.MkdirAll(target, 0o755); err != nil {
			return errors.New(bd.target + ": " + err.Error())
		}
	} else {
		if err := os.MkdirAll(parentOf(target), 0o755); err != nil {
			return errors.New(bd.target + ": " + err.Error())
		}
		// A file of a folder bound already (read-only, in a rootless box) is there.
		var st syscall.Stat_t
		if syscall.Lstat(target, &st) != nil {
			fd, err := syscall.Open(target, syscall.O_CREAT|syscall.O_WRONLY|syscall.O_CLOEXEC, 0o644)
			if err != nil {
				return errors.New(bd.target + ": " + err.Error())
			}
			syscall.Close(fd)
		}
	}
	if bd.tmpfs {
		opts := "mode=1777,size=" + strconv.FormatInt(tmpSize, 10)
		if err := syscall.Mount("tmpfs", target, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, opts); err != nil {
			return errors.New("private " + bd.target + ": " + err.Error())
		}
		return nil
	}
	src := "/proc/self/fd/" + strconv.Itoa(bd.fd)
	if err := syscall.Mount(src, target, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
		return errors.New("bind " + bd.target + ": " + err.Error())
	}
	if bd.readOnly {
		flags := uintptr(syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY|syscall.MS_NOSUID|syscall.MS_NODEV) | keptFlags(target)
		if err := syscall.Mount("", target, "", flags, ""); err != nil {
			return errors.New("bind " + bd.target + " read-only: " + err.Error())
		}
	}
	return nil
}

// keptFlags are the flags of the mount at target that a remount must keep: in a user
// namespace the kernel refuses to clear one the mount had on the host (noexec, the access
// time rules), and a root box keeps them alike.
func keptFlags(target string) uintptr {
	var st syscall.Statfs_t
	if syscall.Statfs(target, &st) != nil {
		return 0
	}
	const (
		stNoexec     = 8
		stNoatime    = 1024
		stNodiratime = 2048
		stRelatime   = 4096
	)
	var flags uintptr
	for bit, ms := range map[int64]uintptr{stNoexec: syscall.MS_NOEXEC, stNoatime: syscall.MS_NOATIME,
		stNodiratime: syscall.MS_NODIRATIME, stRelatime: syscall.MS_RELATIME} {
		if st.Flags&bit != 0 {
			flags |= ms
		}
	}
	return flags
}

// makeDev makes the box's /dev in the new root being built at root: a small tmpfs with
// the devices bound from the host's and the links to /proc/self/fd. /dev/shm is placed in
// it after, with the other private folders.
func makeDev(root string) error {
	dev := root + "/dev"
	if err := os.MkdirAll(dev, 0o755); err != nil {
		return errors.New("/dev: " + err.Error())
	}
	// Not nodev: the devices made in it must work.
	if err := syscall.Mount("tmpfs", dev, "tmpfs", syscall.MS_NOSUID|syscall.MS_NOEXEC, "mode=0755,size=64k"); err != nil {
		return errors.New("/dev: " + err.Error())
	}
	for _, d := range devices {
		var st syscall.Stat_t
		if syscall.Stat("/dev/"+d, &st) != nil {
			continue
		}
		// The same device made anew (no mount), where this process may: as root.
		if syscall.Mknod(dev+"/"+d, st.Mode, int(st.Rdev)) == nil {
			syscall.Chmod(dev+"/"+d, st.Mode&0o7777)
			continue
		}
		fd, err := syscall.Open(dev+"/"+d, syscall.O_CREAT|syscall.O_WRONLY|syscall.O_CLOEXEC, 0o666)
		if err != nil {
			return errors.New("/dev/" + d + ": " + err.Error())
		}
		syscall.Close(fd)
		if err := syscall.Mount("/dev/"+d, dev+"/"+d, "", syscall.MS_BIND, ""); err != nil {
			return errors.New("/dev/" + d + ": " + err.Error())
		}
	}
	for name, to := range map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0",
		"stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"} {
		if err := os.Symlink(to, dev+"/"+name); err != nil {
			return errors.New("/dev/" + name + ": " + err.Error())
		}
	}
	return nil
}

// copyFiles copies each of files of the host that exists into the new root being built at
// root, at the same path, readable by all (a link is made as the same link). The kernel
// copies each file (sendfile), with no buffer of this process's: the role is a new process
// each time, and every page it touches first costs a fault.
func copyFiles(root string, files []string) error {
	var buf [4096]byte
	made := map[string]bool{}
	for _, f := range files {
		var st syscall.Stat_t
		if syscall.Lstat(f, &st) != nil {
			continue
		}
		target := root + f
		if dir := parentOf(target); !made[dir] {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return errors.New(f + ": " + err.Error())
			}
			made[dir] = true
		}
		if st.Mode&syscall.S_IFMT == syscall.S_IFLNK {
			if n, err := syscall.Readlink(f, buf[:]); err == nil {
				syscall.Symlink(string(buf[:n]), target)
			}
			continue
		}
		if st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Mode&0o004 == 0 {
			continue // only what every user may read anyway
		}
		if err := copyHostFile(f, target, st.Size); err != nil {
			return errors.New(f + ": " + err.Error())
		}
	}
	return nil
}

// copyHostFile copies the regular file from, of size bytes (as its stat said), to a new file
// to of mode 0644. A file that cannot be read is left out, as if it were not there.
func copyHostFile(from, to string, size int64) error {
	in, err := syscall.Open(from, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil
	}
	defer syscall.Close(in)
	out, err := syscall.Open(to, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC, 0o644)
	if err != nil {
		return err
	}
	defer syscall.Close(out)
	for left := size; left > 0; {
		n, err := syscall.Sendfile(out, in, nil, int(left))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			break // the file got shorter meanwhile
		}
		left -= int64(n)
	}
	return nil
}

// cleanAbs is path made absolute-looking and clean (the sandbox hands absolute paths).
func cleanAbs(p string) string {
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	// Clean without path/filepath, which this package does not import (see the doc).
	parts := strings.Split(p, "/")
	var out []string
	for _, s := range parts {
		switch s {
		case "", ".":
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, s)
		}
	}
	return "/" + strings.Join(out, "/")
}

// parentOf is the folder that holds path.
func parentOf(path string) string {
	if i := strings.LastIndexByte(path, '/'); i > 0 {
		return path[:i]
	}
	return "/"
}

// within says whether path is one of dirs or lies under one.
func within(path string, dirs []string) bool {
	for _, d := range dirs {
		d = cleanAbs(d)
		if path == d || strings.HasPrefix(path, d+"/") || d == "/" {
			return true
		}
	}
	return false
}
