package sandbox

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"

	"gauntlet/execrole"
	"gauntlet/harness/runtime/tcp"
)

// Net is a network namespace with only its loopback interface, up, that boxed runs join
// through Box.Net instead of each getting one of its own: a case's server started in the
// background and the clients it runs afterwards must meet on one 127.0.0.1. The harness
// holds it by a descriptor. As root, the roles of its runs join it by the /proc link to
// that descriptor. A grader that is not root has a Net too (rootless.go,
// netjoin.go): its namespace belongs to a user namespace that a small C holder made, and
// each run enters both through a C helper before its role starts.
type Net struct {
	mu   sync.Mutex
	fd   int    // the namespace, held open; -1 once closed
	path string // /proc/PID/fd/N, how a role (a rootless run's helper) opens it
	// rootless is the holder's part of a rootless Net (nil as root).
	rootless *heldNet
}

// NewNet makes a network namespace for runs to share. As root, no goroutine of the
// harness ever runs in it but those of Net.Do, on a thread of their own while they do
// (inThreadNet). Not root, a holder process makes it (newHeldNet).
func NewNet() (*Net, error) {
	if Rootless() {
		return newHeldNet()
	}
	fd := -1
	err := inThreadNet(func() error { return unix.Unshare(unix.CLONE_NEWNET) }, func() error {
		if err := execrole.LoopbackUp(); err != nil {
			return fmt.Errorf("loopback: %w", err)
		}
		var err error
		fd, err = unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("new network namespace: %w", err)
	}
	return &Net{fd: fd, path: fdPath(fd)}, nil
}

// fdPath is the /proc link to this process's descriptor fd.
func fdPath(fd int) string { return "/proc/" + strconv.Itoa(os.Getpid()) + "/fd/" + strconv.Itoa(fd) }

// ErrNetClosed is Do's error on a closed Net.
var ErrNetClosed = errors.New("sandbox: the shared network namespace is closed")

// ErrNetRootless is Do's error on a Net of a grader that is not root: no thread of the
// harness can enter it (FreePort and Listens can look at it).
var ErrNetRootless = errors.New("sandbox: the harness cannot enter a network namespace of a user namespace of its own (it is not root)")

// Do runs f on a thread of its own inside the namespace (a socket f opens belongs to it)
// and returns its error. Only root's: ErrNetRootless otherwise.
func (n *Net) Do(f func() error) error {
	if n.rootless != nil {
		return ErrNetRootless
	}
	n.mu.Lock()
	fd := -1
	if n.fd >= 0 {
		// A copy, so that Close may run meanwhile.
		var err error
		if fd, err = unix.FcntlInt(uintptr(n.fd), unix.F_DUPFD_CLOEXEC, 0); err != nil {
			n.mu.Unlock()
			return err
		}
	}
	n.mu.Unlock()
	if fd < 0 {
		return ErrNetClosed
	}
	return inThreadNet(func() error {
		err := unix.Setns(fd, unix.CLONE_NEWNET)
		unix.Close(fd)
		if err != nil {
			return fmt.Errorf("join the shared network namespace: %w", err)
		}
		return nil
	}, f)
}

// inThreadNet runs f on a thread of its own that enter moved into another network
// namespace, then takes the thread back to the harness's namespace and lets other
// goroutines have it again. A thread that cannot be taken back is never let go: it leaves
// the process with the goroutine (or, the process's first thread, stays wedged), so that
// nothing else of the harness ever runs in another namespace. Before, every thread was
// thrown away; the first thread then stayed in a case's namespace whenever the runtime
// ran the goroutine there, and /proc/self/ns/net (the first thread's) named that one.
func inThreadNet(enter, f func() error) error {
	ch := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		home, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			runtime.UnlockOSThread()
			ch <- err
			return
		}
		defer unix.Close(home)
		if err := enter(); err != nil {
			// The namespace may have changed all the same: the thread goes, locked.
			ch <- err
			return
		}
		err = f()
		if unix.Setns(home, unix.CLONE_NEWNET) == nil {
			runtime.UnlockOSThread()
		}
		ch <- err
	}()
	return <-ch
}

// Close lets the namespace go once the last process in it has ended (a rootless Net's
// holder ends, and is reaped). Runs started after Close cannot join it.
func (n *Net) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.fd < 0 {
		return nil
	}
	err := unix.Close(n.fd)
	n.fd = -1
	if n.rootless != nil {
		if herr := n.rootless.close(); err == nil {
			err = herr
		}
	}
	return err
}

// FreePort returns a TCP port of the namespace's 127.0.0.1 that nothing uses, for a server
// of a run that joins it: as root, the one the kernel gives a socket bound there (Do);
// rootless, one that no socket of the namespace has, as the holder's /proc tables show,
// at random below the range the kernel takes its own ports from (a client's connect never
// takes it first).
func (n *Net) FreePort() (int, error) {
	if n.rootless == nil {
		port := 0
		err := n.Do(func() (err error) {
			port, err = tcp.FreePort("127.0.0.1")
			return err
		})
		return port, err
	}
	dir, err := n.tables()
	if err != nil {
		return 0, err
	}
	used, _, err := tcpPorts(dir)
	if err != nil {
		return 0, err
	}
	return pickPort(used)
}

// Listens says whether a TCP socket of the namespace listens on port, on IPv4 or IPv6.
func (n *Net) Listens(port int) (bool, error) {
	var listening map[int]bool
	var err error
	if n.rootless == nil {
		err = n.Do(func() (err error) {
			_, listening, err = tcpPorts("/proc/thread-self/net")
			return err
		})
	} else {
		var dir string
		if dir, err = n.tables(); err == nil {
			_, listening, err = tcpPorts(dir)
		}
	}
	return listening[port], err
}
