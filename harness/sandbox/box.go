package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Box isolates a run from the machine and from every other run, with the kernel's own
// mechanisms and no helper program: each process started with a Box gets
//
//   - a mount namespace in which /tmp, /var/tmp and /dev/shm are private, empty tmpfs
//     mounts of TmpSize bytes each (nothing it writes there outlives it or reaches another
//     run), /proc is a new instance with hidepid=invisible (a process sees only its own
//     user's processes: with a sandbox user per run, only its own run; never the grader's
//     command lines), and each folder of Hide is covered by an empty read-only one;
//   - an IPC namespace (its SysV objects and POSIX message queues die with it);
//   - a network namespace with only the loopback interface, up (no route off the machine,
//     and no way to reach the grader's abstract unix sockets);
//   - a UTS namespace.
//
// A PID namespace is not used: its first process would be an init, which the kernel
// shields from signals it does not handle, and the specs test how a hub meets SIGINT and
// SIGHUP. A sandbox user per run with hidepid gives the same view of /proc.
//
// Folders a run needs that lie under one of the replaced folders (the case's folder, the
// programs, when the grader's scratch space is in /tmp) are named in Keep: they are bound
// back at the same path inside the box. Boxes need root (see BoxProblem).
type Box struct {
	// Keep lists folders bound back, at the same path, when they lie under /tmp, /var/tmp
	// or /dev/shm; naming one of those itself leaves it shared.
	Keep []string
	// Hide lists folders covered by an empty read-only folder (a cohort hides every other
	// submission from a build).
	Hide []string
	// TmpSize is the size of each private tmpfs in bytes (default 64 MiB).
	TmpSize int64
}

// DefaultTmpSize is the default size of a box's private /tmp, /var/tmp and /dev/shm.
const DefaultTmpSize = 64 << 20

// replaced are the world-writable folders a box replaces with private ones.
var replaced = []string{"/tmp", "/var/tmp", "/dev/shm"}

const boxCloneFlags = syscall.CLONE_NEWNS | syscall.CLONE_NEWIPC | syscall.CLONE_NEWNET | syscall.CLONE_NEWUTS

var (
	boxProbeOnce sync.Once
	boxProbeErr  error
)

// BoxProblem says why this machine cannot give runs a Box, or nil when it can: the
// harness must be root (it makes namespaces and mounts, then drops to the sandbox user),
// and the kernel must allow mount, IPC, network and UTS namespaces. The answer comes from
// starting one real boxed program, once per process.
func BoxProblem() error {
	boxProbeOnce.Do(func() {
		if os.Geteuid() != 0 {
			boxProbeErr = errors.New("the grader is not root, so it cannot make namespaces and switch to sandbox users")
			return
		}
		truePath := "/bin/true"
		if _, err := os.Stat(truePath); err != nil {
			truePath = "/usr/bin/true"
		}
		res, err := Run(Config{Box: &Box{}, Deadline: DefaultDeadline}, Spec{Path: truePath})
		switch {
		case err != nil:
			boxProbeErr = fmt.Errorf("a boxed program cannot start here: %w", err)
		case len(res.Procs) != 1 || res.Procs[0].Exit != (Exit{}):
			boxProbeErr = fmt.Errorf("a boxed %s did not exit 0", truePath)
		}
	})
	return boxProbeErr
}

// encode adds the box's settings to the role's.
func (b *Box) encode(v map[string][]string) {
	if b == nil {
		return
	}
	v["box"] = []string{"1"}
	v["keep"] = b.Keep
	v["hide"] = b.Hide
	size := b.TmpSize
	if size <= 0 {
		size = DefaultTmpSize
	}
	v["tmpsize"] = []string{strconv.FormatInt(size, 10)}
}

func decodeBox(v map[string][]string) (*Box, error) {
	if len(v["box"]) == 0 {
		return nil, nil
	}
	b := &Box{Keep: v["keep"], Hide: v["hide"]}
	if s := v["tmpsize"]; len(s) > 0 {
		n, err := strconv.ParseInt(s[0], 10, 64)
		if err != nil {
			return nil, err
		}
		b.TmpSize = n
	}
	return b, nil
}

// enterBox makes the box's mounts and network. It runs in the role, as root, in the
// namespaces the harness cloned for it, before the switch to the sandbox user.
func enterBox(b *Box) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	// Hidden first: a hidden folder inside a kept one stays hidden when it is bound back.
	for _, dir := range b.Hide {
		if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=0555"); err != nil {
			return fmt.Errorf("hide %s: %w", dir, err)
		}
	}
	for _, dir := range replaced {
		if st, err := os.Lstat(dir); err != nil || !st.IsDir() || slices.Contains(b.Keep, dir) {
			// Keeping the folder itself keeps it shared.
			continue
		}
		if err := replaceDir(dir, b.Keep, b.TmpSize); err != nil {
			return err
		}
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "hidepid=invisible"); err != nil {
		// Kernels before 5.8 know only the number.
		if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "hidepid=2"); err != nil {
			return fmt.Errorf("mount /proc with hidepid: %w", err)
		}
	}
	if err := loopbackUp(); err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	return nil
}

// replaceDir mounts an empty private tmpfs on dir and binds back the folders of keep that
// lie under it, at the same path.
func replaceDir(dir string, keep []string, size int64) error {
	type held struct {
		rel string
		fd  int
	}
	var binds []held
	defer func() {
		for _, h := range binds {
			unix.Close(h.fd)
		}
	}()
	for _, k := range keep {
		rel, err := filepath.Rel(dir, k)
		if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
			continue
		}
		// Held open by a path-only descriptor: it stays reachable once dir is covered.
		fd, err := unix.Open(k, unix.O_PATH|unix.O_CLOEXEC|unix.O_DIRECTORY, 0)
		if err != nil {
			return fmt.Errorf("keep %s: %w", k, err)
		}
		binds = append(binds, held{rel, fd})
	}
	opts := "mode=1777,size=" + strconv.FormatInt(size, 10)
	if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
		return fmt.Errorf("private %s: %w", dir, err)
	}
	for _, h := range binds {
		target := filepath.Join(dir, h.rel)
		// The folders leading to it belong to root and only root may change them.
		if err := os.MkdirAll(target, 0o755); err != nil {
			return fmt.Errorf("keep %s: %w", target, err)
		}
		src := "/proc/self/fd/" + strconv.Itoa(h.fd)
		if err := unix.Mount(src, target, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("keep %s: %w", target, err)
		}
	}
	return nil
}

// loopbackUp brings up the network namespace's loopback interface, so that programs of a
// run can talk over 127.0.0.1 (and nothing else).
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	var req [unix.IFNAMSIZ + 24]byte
	copy(req[:], "lo")
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.SIOCGIFFLAGS, uintptr(unsafe.Pointer(&req[0]))); e != 0 {
		return e
	}
	flags := *(*uint16)(unsafe.Pointer(&req[unix.IFNAMSIZ]))
	*(*uint16)(unsafe.Pointer(&req[unix.IFNAMSIZ])) = flags | unix.IFF_UP
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.SIOCSIFFLAGS, uintptr(unsafe.Pointer(&req[0]))); e != 0 {
		return e
	}
	return nil
}
