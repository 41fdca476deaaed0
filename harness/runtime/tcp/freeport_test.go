package tcp_test

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"gauntlet/harness/box/sandbox"
	"gauntlet/harness/runtime/tcp"
	"gauntlet/internal/buildtest"
)

// FreePort never hands out a port that a closed connection still holds (TIME_WAIT), which
// a server that binds without SO_REUSEADDR would be refused: a network namespace lent to a
// case again may hold such ports from an earlier case. In a namespace of its own whose
// range of ports the kernel chooses from is two ports long, one of them held so, FreePort
// gives the other every time (a listener's choice, with SO_REUSEADDR, takes either).
func TestFreePortPassesOverClosedConnections(t *testing.T) {
	buildtest.NeedBox(t, sandbox.BoxProblem())
	n, err := sandbox.NewNet()
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	const held, other = 40000, 40001
	err = n.Do(func() error {
		// The thread is in the namespace: its settings and sockets are the namespace's.
		if err := os.WriteFile("/proc/sys/net/ipv4/ip_local_port_range", []byte("40000 40001"), 0); err != nil {
			return err
		}
		l, err := tcp.Listen("127.0.0.1", held)
		if err != nil {
			return err
		}
		c, err := tcp.Dial("127.0.0.1", held, time.Second)
		if err != nil {
			return err
		}
		s, err := l.Accept(time.Now().Add(time.Second))
		if err != nil {
			return err
		}
		// The server closes first, and its end of the connection waits out TIME_WAIT.
		s.Close()
		c.Read(make([]byte, 1))
		c.Close()
		l.Close()
		tcpTable, _ := os.ReadFile("/proc/thread-self/net/tcp")
		if !strings.Contains(string(tcpTable), ":9C40 ") || !strings.Contains(string(tcpTable), " 06 ") {
			return fmt.Errorf("no connection of port %d in TIME_WAIT:\n%s", held, tcpTable)
		}
		for range 40 {
			port, err := tcp.FreePort("127.0.0.1")
			if err != nil {
				return err
			}
			if port != other {
				return fmt.Errorf("FreePort gave port %d, want %d (%d is held by a closed connection)", port, other, held)
			}
		}
		// And a server binds it without SO_REUSEADDR.
		fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer syscall.Close(fd)
		return syscall.Bind(fd, &syscall.SockaddrInet4{Port: other, Addr: [4]byte{127, 0, 0, 1}})
	})
	if err != nil {
		t.Fatal(err)
	}
}
