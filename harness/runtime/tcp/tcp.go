// Package tcp is TCP over IPv4 for the programs of games played over sockets (the Clue
// server and clients, the mock server): listen, accept and dial with deadlines, on the
// runtime's poller, as *os.File values that read, write and take deadlines like any file.
//
// It exists instead of the net package on purpose: net links cgo into the one gauntlet
// binary that is every program, and a cgo program's threads each reserve a glibc malloc
// arena (64 MiB of address space), so that under the sandbox's 1 GiB address-space limit
// the reference programs failed at random in pthread_create. Hosts are IPv4 addresses
// written as four numbers, or "localhost"; there is no name lookup (a case's box has no
// network beyond its loopback anyway).
package tcp

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ParseHost reads an IPv4 address ("127.0.0.1") or "localhost".
func ParseHost(host string) ([4]byte, error) {
	if host == "localhost" {
		return [4]byte{127, 0, 0, 1}, nil
	}
	var a [4]byte
	parts := strings.Split(host, ".")
	if len(parts) != 4 {
		return a, fmt.Errorf("%q is not an IPv4 address", host)
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 255 || strconv.Itoa(n) != p {
			return a, fmt.Errorf("%q is not an IPv4 address", host)
		}
		a[i] = byte(n)
	}
	return a, nil
}

// ParsePort reads a port number, 0 to 65535.
func ParsePort(port string) (int, error) {
	n, err := strconv.Atoi(port)
	if err != nil || n < 0 || n > 65535 || strconv.Itoa(n) != port {
		return 0, fmt.Errorf("%q is not a port number", port)
	}
	return n, nil
}

func socket() (int, error) {
	return syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
}

// FreePort returns a TCP port of host that no socket holds, for a server to be started
// with: the kernel's choice for a bind to port 0 without SO_REUSEADDR, which passes over
// every port that such a bind would be refused, those that a closed connection still holds
// (TIME_WAIT) included, so that a server that binds it without SO_REUSEADDR is not
// refused either. Another program may take it before the server does.
func FreePort(host string) (int, error) {
	addr, err := ParseHost(host)
	if err != nil {
		return 0, err
	}
	fd, err := socket()
	if err != nil {
		return 0, os.NewSyscallError("socket", err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: addr}); err != nil {
		return 0, os.NewSyscallError("bind", err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		return 0, os.NewSyscallError("getsockname", err)
	}
	return sa.(*syscall.SockaddrInet4).Port, nil
}

// Listener is a listening socket.
type Listener struct {
	f    *os.File
	Port int // the port it listens on (the one the kernel chose for port 0)
}

// Listen listens on host:port (port 0: any free port).
func Listen(host string, port int) (*Listener, error) {
	addr, err := ParseHost(host)
	if err != nil {
		return nil, err
	}
	fd, err := socket()
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1); err != nil {
		syscall.Close(fd)
		return nil, os.NewSyscallError("setsockopt", err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Port: port, Addr: addr}); err != nil {
		syscall.Close(fd)
		return nil, os.NewSyscallError("bind", err)
	}
	if err := syscall.Listen(fd, 64); err != nil {
		syscall.Close(fd)
		return nil, os.NewSyscallError("listen", err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		syscall.Close(fd)
		return nil, os.NewSyscallError("getsockname", err)
	}
	return &Listener{f: os.NewFile(uintptr(fd), "tcp-listener"), Port: sa.(*syscall.SockaddrInet4).Port}, nil
}

// Accept waits until deadline (zero: no deadline) for a connection. A deadline passed
// gives an error for which errors.Is(err, os.ErrDeadlineExceeded) holds.
func (l *Listener) Accept(deadline time.Time) (*os.File, error) {
	if err := l.f.SetReadDeadline(deadline); err != nil {
		return nil, err
	}
	nfd, err := AcceptFD(l.f)
	if err != nil {
		return nil, err
	}
	if err := noDelay(nfd); err != nil {
		syscall.Close(nfd)
		return nil, err
	}
	return os.NewFile(uintptr(nfd), "tcp"), nil
}

// Close stops listening.
func (l *Listener) Close() error { return l.f.Close() }

// ErrRefused is the error of a dial that nobody answered.
var ErrRefused = errors.New("connection refused")

// Dial connects to host:port within timeout.
func Dial(host string, port int, timeout time.Duration) (*os.File, error) {
	addr, err := ParseHost(host)
	if err != nil {
		return nil, err
	}
	fd, err := socket()
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	err = syscall.Connect(fd, &syscall.SockaddrInet4{Port: port, Addr: addr})
	if err != nil && err != syscall.EINPROGRESS {
		syscall.Close(fd)
		if err == syscall.ECONNREFUSED {
			return nil, ErrRefused
		}
		return nil, os.NewSyscallError("connect", err)
	}
	if err := noDelay(fd); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	f := os.NewFile(uintptr(fd), "tcp")
	if err == nil {
		return f, nil
	}
	// In progress: wait until the socket is writable, then read the outcome.
	f.SetWriteDeadline(time.Now().Add(timeout))
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	var soErr int
	werr := rc.Write(func(fd uintptr) bool {
		soErr, err = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_ERROR)
		return err != nil || soErr != 0 || connected(int(fd))
	})
	f.SetWriteDeadline(time.Time{})
	switch {
	case werr != nil:
		f.Close()
		return nil, werr
	case err != nil:
		f.Close()
		return nil, os.NewSyscallError("getsockopt", err)
	case soErr == int(syscall.ECONNREFUSED):
		f.Close()
		return nil, ErrRefused
	case soErr != 0:
		f.Close()
		return nil, os.NewSyscallError("connect", syscall.Errno(soErr))
	}
	return f, nil
}

// noDelay turns off Nagle's algorithm: the protocols are lines that want an answer, and
// a line held back for the previous one's acknowledgement (delayed by the peer) costs up
// to 40 ms per exchange.
func noDelay(fd int) error {
	return os.NewSyscallError("setsockopt", syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1))
}

// connected reports whether the socket has a peer.
func connected(fd int) bool {
	_, err := syscall.Getpeername(fd)
	return err == nil
}

// CloseWrite ends the sending side of a connection: the peer reads EOF, and can still
// write to it.
func CloseWrite(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = syscall.Shutdown(int(fd), syscall.SHUT_WR) }); err != nil {
		return err
	}
	return serr
}

// AcceptFD accepts a connection on the listening socket f (a file on the runtime's poller,
// of any family: a unix socket too), waiting in the poller, within f's read deadline, and
// returns the new socket's descriptor, non-blocking and close-on-exec.
func AcceptFD(f *os.File) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return -1, err
	}
	nfd := -1
	var aerr error
	err = rc.Read(func(fd uintptr) bool {
		nfd, _, aerr = syscall.Accept4(int(fd), syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC)
		return aerr != syscall.EAGAIN
	})
	if err != nil {
		return -1, err
	}
	if aerr != nil {
		return -1, os.NewSyscallError("accept", aerr)
	}
	return nfd, nil
}
