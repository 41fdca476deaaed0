package sandbox

import (
	"errors"
	"os"
	"sync"
	"syscall"
)

// A rootless box. A grader that is not root cannot switch users or make
// namespaces of the machine's, but most kernels let any user make a user namespace, and,
// inside it, the mount, IPC, network, UTS and PID namespaces of a box, as bubblewrap and
// rootless podman do. So a box made by such a grader is the same allow-list root (execrole's
// root.go) made in a user namespace of its own, where the grader's user is mapped to
// itself and nothing else is mapped:
//
//   - the exec role gets the capabilities it needs there (mounts and pivot_root, the
//     loopback, reading a program its owner may only run, the namespace's limits) as
//     ambient ones, which survive its exec as a user other than root, and
//     clears them before it execs the program: the program has none, in any namespace;
//   - the program runs as the grader's user, so what protects the grader is what the box
//     holds: the run's working folder, read-write; every kept folder read-only (the
//     grader's own programs among them: as the same user, the program could otherwise
//     rewrite them for the next case), and the grader's programs, which carry every
//     suite, execute-only for their owner too (a program cannot read them, nor change
//     their mode in a read-only folder); the host's devices bound (a user namespace cannot
//     make device files);
//   - it may make no user namespace of its own (Box.Nested aside: a judge, which boxes its
//     subject): in one it would be root, with capabilities over the files of its user,
//     and could read the grader's programs it may only run;
//   - its PID namespace hides every process outside, the grader's among them: the program
//     cannot signal, trace or read them, although they have its user;
//   - the totals of a cgroup need a delegated one, which such a grader rarely has: the
//     limits of each process hold (docs/security.md);
//   - a tmpfs on the host needs root, so the files of a build or a case, which a root
//     grader bounds by making their folder a tmpfs on the host, are bounded by Box.WorkDisk
//     instead: the run's working folder is a tmpfs in its box, copied in before the
//     program and back out once it has ended (execrole's workdisk.go); its private /tmp,
//     /var/tmp and /dev/shm are tmpfs mounts of TmpSize, as in a root box;
//   - runs that share a network (Box.Net: a case's server and its clients) cannot each
//     have a user namespace cloned from the harness's: they start through a C helper that
//     enters the user namespace which owns the network first (netjoin.go).

// Rootless says whether this process makes its boxes rootless: it is not root.
func Rootless() bool { return os.Geteuid() != 0 }

// Capabilities the role holds in a rootless box's user namespace (linux/capability.h).
const (
	capDacReadSearch = 2
	capSetpcap       = 8
	capNetAdmin      = 12
	capSysAdmin      = 21
	capSysResource   = 24
)

// nestedBoxes is how many boxes at once a judge's rootless box lets it make (Box.Nested).
const nestedBoxes = 64

// rootlessAttr makes attr clone the role into a user namespace of its own, the grader's
// user and group mapped to themselves, with the capabilities the role needs as ambient ones.
func rootlessAttr(attr *syscall.SysProcAttr) {
	uid, gid := os.Getuid(), os.Getgid()
	attr.Cloneflags |= syscall.CLONE_NEWUSER
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	attr.GidMappingsEnableSetgroups = false
	attr.AmbientCaps = roleCaps
	attr.Credential = nil
}

// roleCaps are the capabilities the role holds, as ambient ones, in a rootless box's user
// namespace (rootlessAttr, and the join helper of a rootless Net: netjoin.go). Reading a
// program its owner may only run (the grader's programs, mode 0111) needs the first: the
// role opens each program before it makes the box. CAP_SETPCAP empties the bounding set
// the program inherits (execrole's dropBounding).
var roleCaps = []uintptr{capDacReadSearch, capSetpcap, capSysAdmin, capNetAdmin, capSysResource}

var (
	rootlessOnce sync.Once
	rootlessErr  error
)

// RootlessProblem says why this process, not root, cannot give runs a rootless Box, or nil
// when it can: the kernel must let its user make a user namespace and the box's
// namespaces in it (some distributions turn this off: kernel.unprivileged_userns_clone,
// user.max_user_namespaces, an AppArmor or SELinux rule). The answer comes from starting
// one real boxed program, once per process. For root it is an error: root boxes as root
// (BoxProblem).
func RootlessProblem() error {
	rootlessOnce.Do(func() {
		if !Rootless() {
			rootlessErr = errors.New("the grader is root: its boxes are made as root")
			return
		}
		_, rootlessErr = probe(Config{Box: &Box{}}, "a program in a rootless box (are user namespaces allowed?)")
	})
	return rootlessErr
}
