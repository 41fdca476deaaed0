package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"

	"gauntlet/execrole"
)

// Box isolates a run from the machine and from every other run, with the kernel's own
// mechanisms and no helper program: each process started with a Box gets
//
//   - a mount namespace in which /tmp, /var/tmp and /dev/shm are private, empty tmpfs
//     mounts of TmpSize bytes each (nothing it writes there outlives it or reaches another
//     run), /proc is a new instance with hidepid=invisible (a process sees only its own
//     user's processes: with a sandbox user per run, only its own run; never the grader's
//     command lines), and each folder of Hide is covered by an empty read-only one;
//   - an IPC namespace (its SysV objects and POSIX message queues die with it);
//   - a network namespace with only the loopback interface, up (no route off the machine,
//     and no way to reach the grader's abstract unix sockets);
//   - a UTS namespace;
//   - a PID namespace, whose init is the exec role's, the program its
//     child: the program sees only what it starts, is never pid 1 (which the kernel shields
//     from the signals the specs send hubs), and what it leaves dies with the namespace
//     once the run has judged it (execrole's pidns.go).
//
// Folders a run needs that lie under one of the replaced folders (the case's folder, the
// programs, when the grader's scratch space is in /tmp) are named in Keep: they are bound
// back at the same path inside the box. Boxes need root (see BoxProblem), or user namespaces
// (a rootless box: rootless.go; with a shared Net, a C compiler too: netjoin.go).
type Box struct {
	// Keep lists folders bound back, at the same path, when they lie under /tmp, /var/tmp
	// or /dev/shm; naming one of those itself leaves it shared.
	Keep []string
	// Hide lists folders covered by an empty read-only folder (a cohort hides every other
	// submission from a build).
	Hide []string
	// ReadOnly lists more of the host the box holds read-only at the same path, beside
	// execrole.System (an interpreter a course's submissions use, say /opt/python);
	// BindVar adds to it for every box of the process.
	ReadOnly []string
	// TmpSize is the size of each private tmpfs in bytes (default 64 MiB).
	TmpSize int64
	// Net, when not nil, is the network namespace the run joins instead of a new one of
	// its own: runs of one case that talk to each other over the loopback (a server in
	// the background, its clients after it) share one (see NewNet; a rootless run joins it
	// through a C helper: netjoin.go).
	Net *Net
	// Writable lists folders (of Keep, or in one) that a rootless box (rootless.go)
	// binds writable: a judge's box holds the subject's folder, which the subject, started by
	// the judge in a box of its own, writes in. A root box binds every kept folder as it
	// is on the host (its modes protect what the sandbox users must not change).
	Writable []string
	// Nested lets the run's programs make boxes of their own: a judge that is not root,
	// which boxes its subject (rootless.go). Without it, a rootless box's programs may make
	// no user namespace. A root box leaves the machine's limit as it is.
	Nested bool
	// SameNet keeps the run in the network namespace of the process that starts it: a
	// judge's subject, which the judge (in a box of the case's own) talks to over the
	// loopback, started in a box of its own by a judge that is not root (rootless.go).
	SameNet bool
	// WorkDisk, in a rootless box, bounds all the files of the run's working folder
	// together: the folder is a tmpfs of WorkDisk bytes in the box, copied in before the
	// program starts and back out to the host once it has ended (execrole's workdisk.go),
	// as a root grader makes a build's copy and a case's box/ tmpfs mounts on the host,
	// which a grader that is not root cannot. A root box ignores it (its caller bounds the
	// folder). 0: the folder is the host's, bounded per file only.
	WorkDisk int64
}

// env is env with what a program started in this box must know of it: that its root masks
// the judge's files already, for a program that makes boxes of its own (MaskedVar).
func (b *Box) env(env []string) []string {
	if b == nil || !b.Nested {
		return env
	}
	return append(append([]string(nil), env...), MaskedVar+"=1")
}

// BindVar, in the harness's environment, lists (separated like PATH) more of the host every
// box holds read-only, beside execrole.System: what the staff's machine keeps outside the
// usual system folders that submissions need (docs/security.md).
const BindVar = "GAUNTLET_BOX_BIND"

// DefaultTmpSize is the default size of a box's private /tmp, /var/tmp and /dev/shm.
const DefaultTmpSize = 64 << 20

const boxCloneFlags = syscall.CLONE_NEWNS | syscall.CLONE_NEWIPC | syscall.CLONE_NEWNET | syscall.CLONE_NEWUTS

// cloneFlags are the namespaces a boxed run's role is cloned into: all of boxCloneFlags but
// the network when the run joins a shared one.
func (b *Box) cloneFlags() uintptr {
	if b.Net != nil || b.SameNet {
		return boxCloneFlags &^ syscall.CLONE_NEWNET
	}
	return boxCloneFlags
}

var (
	boxProbeOnce sync.Once
	boxProbeErr  error
)

// BoxProblem says why this machine cannot give runs a Box, or nil when it can: the
// harness must be root (it makes namespaces and mounts, then drops to the sandbox user),
// and the kernel must allow mount, IPC, network and UTS namespaces. The answer comes from
// starting one real boxed program, once per process.
func BoxProblem() error {
	boxProbeOnce.Do(func() {
		if os.Geteuid() != 0 {
			boxProbeErr = errors.New("the grader is not root, so it cannot make namespaces and switch to sandbox users")
			return
		}
		_, boxProbeErr = probe(Config{Box: &Box{}}, "a boxed program")
	})
	return boxProbeErr
}

// probe starts true under cfg (with the default deadline) and says why that failed, if it
// did; what names the start in the message ("a boxed program").
func probe(cfg Config, what string) (*Result, error) {
	truePath := "/bin/true"
	if _, err := os.Stat(truePath); err != nil {
		truePath = "/usr/bin/true"
	}
	cfg.Deadline = DefaultDeadline
	res, err := Run(cfg, Spec{Path: truePath})
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s cannot start here: %w", what, err)
	case len(res.Procs) != 1 || res.Procs[0].Exit != (Exit{}):
		return res, fmt.Errorf("%s (%s) did not exit 0: %s", what, truePath, res.Procs[0].Stderr)
	}
	return res, nil
}

var (
	usersProbeOnce sync.Once
	usersProbeErr  error
)

// UsersProblem says why this machine cannot run a program as a sandbox user, or nil when it
// can: the harness must be root with the capability to change users, which a container that
// refuses namespaces (no CAP_SYS_ADMIN) usually still grants. Such a machine grades at a
// level below the Box: each program a sandbox user of its own with its limits, the oracle
// kept by file modes, without the box's namespaces (docs/security.md). The answer comes from
// starting one real program so, once per process.
func UsersProblem() error {
	usersProbeOnce.Do(func() {
		if os.Geteuid() != 0 {
			usersProbeErr = errors.New("the grader is not root, so it cannot switch to sandbox users")
			return
		}
		res, err := probe(Config{}, "a program run as a sandbox user")
		if err == nil && res.UID == os.Geteuid() {
			err = errors.New("a program did not run as a sandbox user")
		}
		usersProbeErr = err
	})
	return usersProbeErr
}

// role is the box as the role makes it: Keep's folders absolute and clean, the tmpfs size
// given.
func (b *Box) role() *execrole.Box {
	if b == nil {
		return nil
	}
	r := &execrole.Box{Hide: b.Hide, TmpSize: b.TmpSize, ReadOnly: b.ReadOnly, Mask: JudgeFiles()}
	r.ReadOnly = append(r.ReadOnly, filepath.SplitList(os.Getenv(BindVar))...)
	if b.Net != nil {
		r.Net = b.Net.path
	}
	r.SameNet = b.SameNet
	if b.Net != nil && b.Net.rootless != nil {
		// Its join helper has put the role in the network already (netjoin.go).
		r.Net, r.SameNet = "", true
	}
	if Rootless() && b.WorkDisk > 0 {
		r.Disk = b.WorkDisk
	}
	if b.Nested {
		r.UserNS = nestedBoxes // (a rootless box's: a root box leaves the limit as it is)
	}
	if r.TmpSize <= 0 {
		r.TmpSize = DefaultTmpSize
	}
	rootless := Rootless()
	for _, k := range b.Keep {
		abs, err := filepath.Abs(k)
		switch {
		case err != nil:
		case rootless && !slices.Contains(b.Writable, k):
			// The program has the harness's user: what it keeps, it keeps read-only
			// (rootless.go). Its working folder is bound writable whatever holds it.
			r.ReadOnly = append(r.ReadOnly, abs)
		default:
			r.Keep = append(r.Keep, abs)
		}
	}
	if rootless {
		for _, w := range b.Writable {
			if abs, err := filepath.Abs(w); err == nil && !slices.Contains(r.Keep, abs) {
				r.Keep = append(r.Keep, abs)
			}
		}
	}
	return r
}
