package execrole

import (
	"strconv"
	"syscall"
	"unsafe"
)

// Two walls every program the harness starts gets, whatever the box: no descriptor of the
// harness's but those it means to pass, and no kernel keyring.
//
// Descriptors: Go opens every file close-on-exec and a child gets only its three streams
// and the ones passed to it by name, but a descriptor the harness itself inherited open
// (from the shell or the service that started it: fd 7 on a root-only file, a make
// jobserver's pipe) is not close-on-exec, so it would reach every program the harness
// starts, make and the subject's included. CloseInheritedOnExec, run from Init
// before anything else, marks every descriptor above 2 close-on-exec.
//
// Keyrings: a user's kernel keyrings outlive its processes, so a sandbox user lent to one
// student's case and then another's carried a message from the first to the second. Like
// Docker's default seccomp profile, denyKeyrings refuses add_key, request_key and keyctl
// (EPERM) to the calling thread and everything it starts.

// closeRangeCloexec is CLOSE_RANGE_CLOEXEC: close_range(2) marks the descriptors instead of
// closing them.
const closeRangeCloexec = 1 << 2

// WitnessFD is the descriptor at which the programs of a case with witnessed mock players
// find the witness's door: one end of a socket pair of the harness's (a Unix socket of
// SOCK_SEQPACKET), which a stand-in the hub starts inherits as the hub's other
// descriptors (harness/judges/mockplayer's WitnessDoor). Far above the descriptors a hub opens
// itself (its pipes start at 3 as without it) and below a box's limit of open files (256).
const WitnessFD = 100

// CloseInheritedOnExec marks every open descriptor above 2 close-on-exec, so that no
// program this process starts inherits one it did not pass by name; all but a witness's
// door at WitnessFD, which a program of the harness's in a case (a reference hub, a mock
// hub, a relay) passes on to the programs it starts as a C hub passes it to its players.
func CloseInheritedOnExec() error {
	defer keepWitnessDoor()
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

// keepWitnessDoor clears close-on-exec on WitnessFD when it is a witness's door (nothing
// else the harness inherits at that number is passed on).
func keepWitnessDoor() {
	if IsWitnessDoor(WitnessFD) {
		syscall.RawSyscall(syscall.SYS_FCNTL, WitnessFD, syscall.F_SETFD, 0)
	}
}

// IsWitnessDoor reports whether fd is a witness's door: a Unix socket of SOCK_SEQPACKET.
func IsWitnessDoor(fd int) bool {
	dom, err1 := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_DOMAIN)
	typ, err2 := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_TYPE)
	return err1 == nil && err2 == nil && dom == syscall.AF_UNIX && typ == syscall.SOCK_SEQPACKET
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

// syscallTable is one system call table's numbers that the filter looks at: those of an
// architecture (arch, its AUDIT_ARCH_ value), with mask applied to the number first (the
// x32 table's bit, on amd64): its keyring calls (add_key, request_key, keyctl) and the
// calls that make namespaces (clone, unshare, clone3).
type syscallTable struct {
	arch, mask             uint32
	keyrings               []uint32
	clone, unshare, clone3 uint32
}

// cloneNewUser is CLONE_NEWUSER, the flag of clone and unshare that makes a user namespace.
const cloneNewUser = 0x10000000

// bpfJsetK is BPF_JMP | BPF_JSET | BPF_K: jump when the accumulator has a bit of k.
const bpfJsetK = 0x05 | 0x40 | 0x00

// offArg0 is offsetof(struct seccomp_data, args[0]): its low 32 bits on the little-endian
// machines the project runs on.
const offArg0 = 16

// Filter is the seccomp program of the calls every program the harness starts is refused,
// table by table (syscallTables): EPERM for the keyring calls and, with denyUserNS, EPERM
// for a clone or an unshare that asks for a user namespace and ENOSYS for clone3 (whose
// flags lie in memory a filter cannot read: the C library then falls back to clone, as it
// does under Docker's default profile); allow for the rest.
func Filter(denyUserNS bool) []sockFilter {
	var a bpfAsm
	a.op(bpfLdWAbs, offArch)
	for i, t := range syscallTables {
		a.jump(bpfJeqK, t.arch, "table"+strconv.Itoa(i), "")
	}
	a.op(bpfRetK, retAllow)
	for i, t := range syscallTables {
		a.label("table" + strconv.Itoa(i))
		a.op(bpfLdWAbs, offNr)
		if t.mask != 0 {
			a.op(bpfAndK, t.mask)
		}
		for _, nr := range t.keyrings {
			a.jump(bpfJeqK, nr, "eperm", "")
		}
		flags := "flags" + strconv.Itoa(i)
		if denyUserNS {
			a.jump(bpfJeqK, t.clone3, "enosys", "")
			a.jump(bpfJeqK, t.clone, flags, "")
			a.jump(bpfJeqK, t.unshare, flags, "")
		}
		a.op(bpfRetK, retAllow)
		if denyUserNS {
			a.label(flags)
			a.op(bpfLdWAbs, offArg0)
			a.jump(bpfJsetK, cloneNewUser, "eperm", "")
			a.op(bpfRetK, retAllow)
		}
	}
	a.label("eperm")
	a.op(bpfRetK, retErrno|uint32(syscall.EPERM))
	a.label("enosys")
	a.op(bpfRetK, retErrno|uint32(syscall.ENOSYS))
	return a.program()
}

// bpfAsm assembles a classic BPF program whose jumps name labels (always forward, as BPF
// requires) rather than counting instructions.
type bpfAsm struct {
	prog   []sockFilter
	labels map[string]int
	jumps  []bpfJump
}

// bpfJump is a jump of instruction at to the labels jt and jf ("": the next instruction).
type bpfJump struct {
	at     int
	jt, jf string
}

func (a *bpfAsm) op(code uint16, k uint32) {
	a.prog = append(a.prog, sockFilter{code: code, k: k})
}

func (a *bpfAsm) jump(code uint16, k uint32, jt, jf string) {
	a.jumps = append(a.jumps, bpfJump{len(a.prog), jt, jf})
	a.op(code, k)
}

func (a *bpfAsm) label(name string) {
	if a.labels == nil {
		a.labels = map[string]int{}
	}
	a.labels[name] = len(a.prog)
}

// program resolves the jumps. A label behind its jump, or too far for BPF's 8-bit offsets,
// is the filter's own bug: it panics (TestFilter runs every filter the role can load).
func (a *bpfAsm) program() []sockFilter {
	off := func(at int, label string) uint8 {
		if label == "" {
			return 0
		}
		to, ok := a.labels[label]
		if !ok || to <= at || to-at-1 > 255 {
			panic("execrole: bad BPF jump to " + label)
		}
		return uint8(to - at - 1)
	}
	for _, j := range a.jumps {
		a.prog[j.at].jt = off(j.at, j.jt)
		a.prog[j.at].jf = off(j.at, j.jf)
	}
	return a.prog
}

// denyKeyrings loads Filter(false) into the calling thread, which must have no_new_privs
// (or CAP_SYS_ADMIN): the thread and every process it starts from then on get EPERM from
// the keyring system calls. Where the architecture's tables are unknown it does nothing.
func denyKeyrings() error { return loadFilter(false) }

// denyKeyringsAndUserNS is denyKeyrings, and the thread and what it starts may make no
// user namespace either (Filter): a box's programs, root or rootless (but a rootless
// judge's, which boxes its subject), have no kernel attack surface of that kind.
func denyKeyringsAndUserNS() error { return loadFilter(true) }

// loadFilter loads Filter(denyUserNS) into the calling thread.
func loadFilter(denyUserNS bool) error {
	if len(syscallTables) == 0 {
		return nil
	}
	prog := Filter(denyUserNS)
	fprog := sockFprog{len: uint16(len(prog)), filter: &prog[0]}
	_, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetSeccmp, modeFilter, uintptr(unsafe.Pointer(&fprog)))
	if e != 0 {
		return e
	}
	return nil
}
