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
)

// Net is a network namespace with only its loopback interface, up, that boxed runs join
// through Box.Net instead of each getting one of its own: a case's server started in the
// background and the clients it runs afterwards must meet on one 127.0.0.1. The harness
// holds it by a descriptor; the roles of its runs join it by the /proc link to that
// descriptor. It needs root, as boxes do.
type Net struct {
	mu   sync.Mutex
	fd   int    // the namespace, held open; -1 once closed
	path string // /proc/PID/fd/N, how a role opens it
}

// NewNet makes a network namespace for runs to share. No goroutine of the harness ever
// runs in it but those of Net.Do, on threads of their own.
func NewNet() (*Net, error) {
	type made struct {
		fd  int
		err error
	}
	ch := make(chan made, 1)
	go func() {
		// The thread is never unlocked: it leaves the process with this goroutine, and
		// nothing else of the harness ever runs in the namespace.
		runtime.LockOSThread()
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			ch <- made{-1, fmt.Errorf("new network namespace: %w", err)}
			return
		}
		if err := execrole.LoopbackUp(); err != nil {
			ch <- made{-1, fmt.Errorf("loopback: %w", err)}
			return
		}
		fd, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		ch <- made{fd, err}
	}()
	m := <-ch
	if m.err != nil {
		return nil, m.err
	}
	return &Net{fd: m.fd, path: "/proc/" + strconv.Itoa(os.Getpid()) + "/fd/" + strconv.Itoa(m.fd)}, nil
}

// ErrNetClosed is Do's error on a closed Net.
var ErrNetClosed = errors.New("sandbox: the shared network namespace is closed")

// Do runs f on a thread of its own inside the namespace (a socket f opens belongs to it)
// and returns its error. The thread is thrown away afterwards.
func (n *Net) Do(f func() error) error {
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
	ch := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: see NewNet
		err := unix.Setns(fd, unix.CLONE_NEWNET)
		unix.Close(fd)
		if err != nil {
			ch <- fmt.Errorf("join the shared network namespace: %w", err)
			return
		}
		ch <- f()
	}()
	return <-ch
}

// Close lets the namespace go once the last process in it has ended. Runs started after
// Close cannot join it.
func (n *Net) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.fd < 0 {
		return nil
	}
	err := unix.Close(n.fd)
	n.fd = -1
	return err
}
