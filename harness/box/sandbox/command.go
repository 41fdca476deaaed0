package sandbox

import (
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
	"time"

	"gauntlet/execrole"
)

var selfCopyPath atomic.Pointer[string]

// SetSelfCopy names a copy of this process's own binary, made by the harness, that runs
// start as programs (the grader's folder of reference and mock programs holds one that
// sandbox users can run, where the original may be out of their reach). The sandbox then
// treats a program that is this file as the harness's own, as it does a link to the
// original: it starts without the address-space limit (see execrole.IsHarnessBinary).
func SetSelfCopy(path string) { selfCopyPath.Store(&path) }

func selfCopy() string {
	if p := selfCopyPath.Load(); p != nil {
		return *p
	}
	return ""
}

// Command returns an exec.Cmd that runs the program at path with args through the exec
// role, so that cfg's limits, user (Identity.Lease or UID/GID; otherwise the caller's own)
// and box (Box, Cgroup) are in place before the program's first instruction. It is for a
// caller that drives one program itself, as the fuzzer's runner does, without a Group's
// audit and deadline: the caller sets Dir, Stdin, Stdout, Stderr, starts it (child.StartCmd,
// or child.Spec.Build) and waits for it. The program leads a session of its own, gets
// SIGKILL if the caller dies, and its environment is env plus the role's setting. A program
// that cannot be started exits 127 with the reason on its stderr. path must be absolute.
func Command(cfg Config, env []string, path string, args ...string) *exec.Cmd {
	return roleCommand(commandSettings(cfg, path), cfg.Box, cfg.Box.env(env), append([]string{path}, args...))
}

// ProgramPid is the process id of the program that cmd, a started command Command made
// with cfg, runs, for a signal meant for the program alone (a hub's kill(pid, sig)). With
// a Box, cmd's process is the program's supervisor, which ignores every signal it can (a
// signal its callers send its process group reaches the program there), and the program
// is the first child of the init of its PID namespace, the supervisor's child: 0 when it
// is not found there (not started yet, or ended). Without a Box, cmd's own pid.
func ProgramPid(cfg Config, cmd *exec.Cmd) int {
	if cmd.Process == nil {
		return 0
	}
	pid := cmd.Process.Pid
	if cfg.Box == nil {
		return pid
	}
	init := firstChild(pid)
	if init == pid {
		return 0
	}
	if prog := firstChild(init); prog != init {
		return prog
	}
	return 0
}

// commandSettings are the exec role's settings for a program Command starts.
func commandSettings(cfg Config, path string) execrole.Settings {
	s := roleSettings(cfg.Limits.withDefaults(), cfg.Box, cfg.Cgroup, path)
	if s.Box != nil {
		// The caller waits for the command itself: it ends as the program does.
		s.PID = execrole.PIDSupervise
	}
	switch id := cfg.Identity; {
	case id.Lease != nil:
		s.UID, s.GID = id.Lease.UID(), id.Lease.GID()
	case id.UID != 0:
		s.UID, s.GID = id.UID, id.GID
	default:
		s.NProcRel = true
	}
	return s
}

// roleSettings are the exec role's settings for the program at path under these limits,
// box and cgroup, with no user (UID and GID -1) and no error descriptor (ErrFD -1): the
// caller fills those in.
func roleSettings(lim Limits, box *Box, cgroup []string, path string) execrole.Settings {
	s := execrole.Settings{
		Path: path, ErrFD: -1, PPID: selfPid, UID: -1, GID: -1,
		CPU:      limitValue(int64(cpuLimit(lim.CPU) / time.Second)),
		AS:       limitValue(lim.AddressSpace),
		NProc:    limitValue(int64(lim.Processes)),
		FSize:    limitValue(lim.FileSize),
		NoFile:   limitValue(int64(lim.OpenFiles)),
		Nice:     lim.Nice,
		Box:      box.role(),
		Rootless: box != nil && Rootless(),
		Cgroup:   cgroup,
		Self:     selfCopy(),
	}
	if lim.CPU < 0 {
		s.CPU = Unlimited
	}
	return s
}

// roleCommand is the command that starts this binary as the exec role with settings s
// (argv is the program's, argv[0] included): the role leads a session of its own, in box's
// namespaces, and gets SIGKILL when the harness dies.
func roleCommand(s execrole.Settings, box *Box, env, argv []string) *exec.Cmd {
	if joinsNet(s, box) {
		s = joinedSettings(s) // (netjoin.go)
	}
	cmd := &exec.Cmd{
		Path:        "/proc/self/exe",
		Args:        argv,
		Env:         append(append([]string(nil), env...), execrole.Env+"="+s.Encode()),
		SysProcAttr: &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL},
	}
	switch {
	case joinsNet(s, box):
		// Rootless, in a case's network: the join helper makes the namespaces (netjoin.go).
		box.Net.joinCommand(cmd, s)
	case box != nil:
		cmd.SysProcAttr.Cloneflags = box.cloneFlags()
		if s.PID == execrole.PIDInit {
			cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWPID
		}
		if s.Rootless {
			rootlessAttr(cmd.SysProcAttr)
		}
	}
	if s.UID >= 0 && os.Getuid() == 0 && os.Geteuid() == 0 && os.Getgid() == os.Getegid() {
		// Root's supplementary groups are dropped in the forked child, before the role
		// runs (and in one thread): the role, which still needs root for the box and the
		// cgroups, then has none to drop when it becomes the sandbox user.
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: 0, Gid: uint32(os.Getgid()), Groups: []uint32{}}
	}
	return cmd
}
