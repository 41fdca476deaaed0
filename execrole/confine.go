package execrole

import (
	"syscall"
	"unsafe"
)

// Two walls every program the harness starts gets, whatever the box: no descriptor of the
// harness's but those it means to pass, and no kernel keyring.
//
// Descriptors: Go opens every file close-on-exec and a child gets only its three streams
// and the ones passed to it by name, but a descriptor the harness itself inherited open
// (from the shell or the service that started it: fd 7 on a root-only file, a make
// jobserver's pipe) is not close-on-exec, so it reached every program the harness started,
// make and the subject's included, until 2026-11-28. CloseInheritedOnExec, run from Init
// before anything else, marks every descriptor above 2 close-on-exec.
//
// Keyrings: a user's kernel keyrings outlive its processes, so a sandbox user lent to one
// student's case and then another's carried a message from the first to the second. Like
// Docker's default seccomp profile, DenyKeyrings refuses add_key, request_key and keyctl
// (EPERM) to the calling thread and everything it starts.

// closeRangeCloexec is CLOSE_RANGE_CLOEXEC: close_range(2) marks the descriptors instead of
// closing them.
const closeRangeCloexec = 1 << 2

// CloseInheritedOnExec marks every open descriptor above 2 close-on-exec, so that no
// program this process starts inherits one it did not pass by name.
func CloseInheritedOnExec() error {
	_, _, e := syscall.RawSyscall(sysCloseRange, 3, ^uintptr(0)>>1, closeRangeCloexec)
	if e == 0 {
		return nil
	}
	if e != syscall.ENOSYS && e != syscall.EINVAL {
		return e
	}
	// Kernels before 5.11: each descriptor the process may have.
	var lim syscall.Rlimit
	max := 1024
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil && lim.Cur < 1<<16 {
		max = int(lim.Cur)
	}
	for fd := 3; fd < max; fd++ {
		syscall.RawSyscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_SETFD, syscall.FD_CLOEXEC)
	}
	return nil
}

// sockFilter and sockFprog are the kernel's struct sock_filter and struct sock_fprog.
type sockFilter struct {
	code   uint16
	jt, jf uint8
	k      uint32
}

type sockFprog struct {
	len    uint16
	filter *sockFilter
}

// Classic BPF and seccomp constants.
const (
	bpfLdWAbs   = 0x00 | 0x00 | 0x20 // BPF_LD | BPF_W | BPF_ABS
	bpfJeqK     = 0x05 | 0x10 | 0x00 // BPF_JMP | BPF_JEQ | BPF_K
	bpfAndK     = 0x04 | 0x50 | 0x00 // BPF_ALU | BPF_AND | BPF_K
	bpfRetK     = 0x06 | 0x00        // BPF_RET | BPF_K
	retAllow    = 0x7fff0000         // SECCOMP_RET_ALLOW
	retErrno    = 0x00050000         // SECCOMP_RET_ERRNO
	prSetSeccmp = 22                 // PR_SET_SECCOMP
	modeFilter  = 2                  // SECCOMP_MODE_FILTER
	offNr       = 0                  // offsetof(struct seccomp_data, nr)
	offArch     = 4                  // offsetof(struct seccomp_data, arch)
)

// keyringCalls are the keyring system calls of one system call table: those of an
// architecture (arch, its AUDIT_ARCH_ value), with mask applied to the number first (the
// x32 table's bit, on amd64).
type keyringCalls struct {
	arch uint32
	mask uint32
	nrs  []uint32
}

// KeyringFilter is the seccomp program DenyKeyrings loads: EPERM for every keyring system
// call of the tables of keyringTables, allow for the rest.
func KeyringFilter() []sockFilter {
	tables := keyringTables
	prog := []sockFilter{{code: bpfLdWAbs, k: offArch}}
	var blocks [][]sockFilter
	for _, t := range tables {
		b := []sockFilter{{code: bpfLdWAbs, k: offNr}}
		if t.mask != 0 {
			b = append(b, sockFilter{code: bpfAndK, k: t.mask})
		}
		for i, nr := range t.nrs {
			// To the deny at the block's end: past the other jumps and the allow.
			b = append(b, sockFilter{code: bpfJeqK, jt: uint8(len(t.nrs) - i), k: nr})
		}
		b = append(b, sockFilter{code: bpfRetK, k: retAllow}, sockFilter{code: bpfRetK, k: retErrno | uint32(syscall.EPERM)})
		blocks = append(blocks, b)
	}
	// The architecture tests, then the allow for every other table, then the blocks.
	start := len(tables) + 1 // where the first block starts, counted after the tests
	for i, t := range tables {
		prog = append(prog, sockFilter{code: bpfJeqK, jt: uint8(start - i - 1 + offsetOf(blocks, i)), k: t.arch})
	}
	prog = append(prog, sockFilter{code: bpfRetK, k: retAllow})
	for _, b := range blocks {
		prog = append(prog, b...)
	}
	return prog
}

// offsetOf is where block i starts, counted from the first block.
func offsetOf(blocks [][]sockFilter, i int) int {
	n := 0
	for _, b := range blocks[:i] {
		n += len(b)
	}
	return n
}

// DenyKeyrings loads KeyringFilter into the calling thread, which must have no_new_privs
// (or CAP_SYS_ADMIN): the thread and every process it starts from then on get EPERM from
// the keyring system calls. Where the architecture's tables are unknown it does nothing.
func DenyKeyrings() error {
	if len(keyringTables) == 0 {
		return nil
	}
	prog := KeyringFilter()
	fprog := sockFprog{len: uint16(len(prog)), filter: &prog[0]}
	_, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetSeccmp, modeFilter, uintptr(unsafe.Pointer(&fprog)))
	if e != 0 {
		return e
	}
	return nil
}
