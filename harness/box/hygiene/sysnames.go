package hygiene

import "golang.org/x/sys/unix"

// sysClass groups the system calls a hung process can sit in by what they wait for.
type sysClass int

const (
	sysOther sysClass = iota // something else (futex, flock, accept...)
	sysRead                  // waits for bytes to read on a descriptor
	sysWrite                 // waits for room to write on a descriptor
	sysPoll                  // waits for some descriptor to become ready
	sysSleep                 // waits for time to pass or a signal
	sysWait                  // waits for a child process to change state
)

type sysInfo struct {
	name  string
	class sysClass
}

// syscalls names the system calls a diagnosis cares about. Numbers differ between
// architectures, so the table is built from x/sys's per-architecture constants; calls that
// exist only on some architectures are added by sysnames_*.go.
var syscalls = map[uintptr]sysInfo{
	unix.SYS_READ:            {"read", sysRead},
	unix.SYS_READV:           {"readv", sysRead},
	unix.SYS_PREAD64:         {"pread64", sysRead},
	unix.SYS_PREADV:          {"preadv", sysRead},
	unix.SYS_RECVFROM:        {"recvfrom", sysRead},
	unix.SYS_RECVMSG:         {"recvmsg", sysRead},
	unix.SYS_WRITE:           {"write", sysWrite},
	unix.SYS_WRITEV:          {"writev", sysWrite},
	unix.SYS_PWRITE64:        {"pwrite64", sysWrite},
	unix.SYS_PWRITEV:         {"pwritev", sysWrite},
	unix.SYS_SENDTO:          {"sendto", sysWrite},
	unix.SYS_SENDMSG:         {"sendmsg", sysWrite},
	unix.SYS_PPOLL:           {"ppoll", sysPoll},
	unix.SYS_PSELECT6:        {"pselect6", sysPoll},
	unix.SYS_EPOLL_PWAIT:     {"epoll_pwait", sysPoll},
	unix.SYS_EPOLL_PWAIT2:    {"epoll_pwait2", sysPoll},
	unix.SYS_NANOSLEEP:       {"nanosleep", sysSleep},
	unix.SYS_CLOCK_NANOSLEEP: {"clock_nanosleep", sysSleep},
	unix.SYS_RT_SIGSUSPEND:   {"rt_sigsuspend", sysSleep},
	unix.SYS_RT_SIGTIMEDWAIT: {"rt_sigtimedwait", sysSleep},
	unix.SYS_WAIT4:           {"wait4", sysWait},
	unix.SYS_WAITID:          {"waitid", sysWait},
	unix.SYS_FUTEX:           {"futex", sysOther},
	unix.SYS_FLOCK:           {"flock", sysOther},
	unix.SYS_ACCEPT:          {"accept", sysOther},
	unix.SYS_ACCEPT4:         {"accept4", sysOther},
	unix.SYS_CONNECT:         {"connect", sysOther},
}
