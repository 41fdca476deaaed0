package hygiene

import "golang.org/x/sys/unix"

// The old system calls that amd64 still has and newer architectures dropped.
func init() {
	syscalls[unix.SYS_POLL] = sysInfo{"poll", sysPoll}
	syscalls[unix.SYS_SELECT] = sysInfo{"select", sysPoll}
	syscalls[unix.SYS_EPOLL_WAIT] = sysInfo{"epoll_wait", sysPoll}
	syscalls[unix.SYS_PAUSE] = sysInfo{"pause", sysSleep}
}
