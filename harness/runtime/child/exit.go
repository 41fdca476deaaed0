package child

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// AwaitExit returns once process p, a child of this process not yet reaped, has ended; it
// does not reap it (cmd.Wait or p.Wait then returns at once). It waits in the Go runtime's
// poller on a pidfd of p, where Wait would keep an OS thread blocked in waitid for as long
// as p runs: a hub waiting on six players would start six threads for nothing, a large part
// of the start-up of a small Go program. Without pidfds (Linux < 5.10) it returns at once,
// and the caller's Wait blocks as before.
func AwaitExit(p *os.Process) {
	fd, err := unix.PidfdOpen(p.Pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		return
	}
	f := os.NewFile(uintptr(fd), "pidfd")
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	// A pidfd reads as ready once its process has ended. The callback runs again after
	// each readiness until it returns true; a failed waitid (none of this process's
	// children, for one) ends the wait as an exit would.
	rc.Read(func(fd uintptr) bool {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PIDFD, int(fd), &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
		return err != nil || info.Signo != 0
	})
}

// KillAndAwait kills the processes pids (SIGKILL, through pidfds) and waits until every one
// has ended, at most until timeout has passed; it reports whether they all ended. Their
// parent need not be this process: a pidfd reads as ready once its process has exited,
// reaped or not. A SIGKILL takes effect a moment after it is sent, so a caller that must
// see the processes gone (a scan that follows) waits here. Without pidfds (Linux < 5.10)
// it kills them and returns true at once.
func KillAndAwait(pids []int, timeout time.Duration) bool {
	var fds []unix.PollFd
	defer func() {
		for _, p := range fds {
			unix.Close(int(p.Fd))
		}
	}()
	for _, pid := range pids {
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			if errors.Is(err, unix.ENOSYS) {
				unix.Kill(pid, unix.SIGKILL)
			}
			continue // (ESRCH: gone already)
		}
		unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
		fds = append(fds, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
	}
	deadline := time.Now().Add(timeout)
	for len(fds) > 0 {
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		n, err := unix.Poll(fds, int(left/time.Millisecond)+1)
		if err != nil && err != unix.EINTR {
			return false
		}
		if n <= 0 {
			continue
		}
		alive := fds[:0]
		for _, p := range fds {
			if p.Revents != 0 {
				unix.Close(int(p.Fd))
				continue
			}
			p.Revents = 0
			alive = append(alive, p)
		}
		fds = alive
	}
	return true
}
