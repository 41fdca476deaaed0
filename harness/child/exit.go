package child

import (
	"os"

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
