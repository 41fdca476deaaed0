package sandbox

import (
	"bufio"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"gauntlet/execrole"
	"gauntlet/harness/box/cbuild"
	"gauntlet/harness/runtime/child"
)

// A network shared by a case's runs, rootless. A grader that is not
// root boxes each run in a user namespace of its own (rootlessAttr), and a network
// namespace belongs to the user namespace that made it: joining it needs CAP_SYS_ADMIN
// there, which a run in a sibling user namespace has not. And a process enters a user
// namespace (setns) only while it has a single thread, which no Go program has, neither
// the harness nor the exec role. So a small C program (netjoin/netjoin.c, built once per
// process with the machine's C compiler: harness/box/cbuild, as the witnessed mock player's
// stand-in is) does what Go cannot:
//
//   - the holder ("netjoin hold"): started by NewNet, it makes a user namespace (the
//     grader's user and group mapped to themselves) and a network namespace in it, brings
//     its loopback up, and sleeps until the Net is closed (end of file on its lifeline, the
//     harness's pipe) or the harness dies (a parent-death signal; the same end of file).
//     The harness keeps descriptors of both namespaces (/proc/HOLDER/ns/user and net), so
//     they outlive nothing it does not hold, and the holder is its child, reaped by Close;
//   - the join helper ("netjoin join"): each run of a Box whose Net is such a one starts
//     it in place of its exec role, by a plain fork and exec (roleCommand: no clone flags,
//     which the join cannot have). It enters the holder's user namespace and then its
//     network namespace, makes a user namespace of the run's own inside (so that the
//     limits the role sets there, such as the user namespaces a subject may make, are the
//     run's alone, as with rootlessAttr), raises the role's capabilities as ambient ones,
//     makes the run's mount, IPC and UTS namespaces, and for PIDInit its PID namespace,
//     then execs the role (the harness's binary, with the argv, environment, folder and
//     descriptors the role would have had), which finds its network made (Box.SameNet).
//     For PIDInit it forks first, so that the role is pid 1 of the new namespace, and
//     stays as a thin parent.
//
// What the harness relies on from the process it starts for a boxed run stays true of the
// helper, or is adjusted here and in startOne:
//
//   - its pid leads the run's session and process group (Setsid, as the role): the sweeps
//     find the role, the program and all they start by that session; Process.Signal's
//     group signal reaches the program, which the thin parent and the init ignore;
//   - it dies with the harness (Pdeathsig, set again after each change of credentials,
//     then a check that its parent is still the harness), and the role dies with it
//     (PR_SET_PDEATHSIG) and, as ever, with the harness's lifeline (LifeFD), which the
//     helper passes on untouched;
//   - the init's StatusFD record, the error pipe and the program's streams reach the
//     role untouched; the thin parent holds none of them (it closes every descriptor),
//     so the harness reads their end as before; the record carries the program's wait
//     status and rusage, so CPU accounting is unchanged; the parent ends with the role's
//     exit status or signal, which the harness sees when there is no record;
//   - the init is one level further from the harness: startOne takes the helper's child
//     as the init (a root of the run, never left running nor the hang) and that one's
//     child as the program (Process.Pid);
//   - the role joins the case's cgroups itself, as before; the thin parent stays outside
//     them (it uses nothing), and ends once the role has ended, so killing the run (and
//     its group) ends it too;
//   - the process limit, counted on top of the tasks the role sees of its user, gets one
//     more for the thin parent, which the kernel counts in the run's user namespace
//     (joinedSettings).
//
// A Net's Do cannot enter such a namespace (ErrNetRootless): FreePort and Listens read the
// holder's /proc/PID/net tables instead. Where there is no C compiler, NewNet fails with
// why, and a case that needs the network is a harness error there.

//go:embed netjoin/netjoin.c
var netjoinSource []byte

// netjoinBinary is the helper, built once per process.
var netjoinBinary = cbuild.Once("the rootless network helper", netjoinSource)

// netjoinPath is the helper as this process runs it: an executable memory file it holds
// (nothing is left on disk), by its /proc link, which a child of the harness resolves to
// its own copy of the descriptor until it execs.
var netjoinPath = sync.OnceValues(func() (string, error) {
	prog, err := netjoinBinary()
	if err != nil {
		return "", err
	}
	fd, err := unix.MemfdCreate("gauntlet-netjoin", unix.MFD_CLOEXEC|unix.MFD_EXEC)
	if err == unix.EINVAL {
		fd, err = unix.MemfdCreate("gauntlet-netjoin", unix.MFD_CLOEXEC) // before Linux 6.3
	}
	if err != nil {
		return "", fmt.Errorf("the rootless network helper: memfd_create: %w", err)
	}
	// Far above the descriptors a start passes (ExtraFiles, which the child's fork puts at
	// 3, 4, ... over whatever was there, before it execs the helper by this link: up to a
	// witness's door at execrole.WitnessFD).
	for _, least := range []int{512, execrole.WitnessFD + 16} { // (a limit of open files below 513)
		if high, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, least); err == nil {
			unix.Close(fd)
			fd = high
			break
		}
	}
	f := os.NewFile(uintptr(fd), "gauntlet-netjoin")
	if _, err := f.Write(prog); err != nil {
		f.Close()
		return "", fmt.Errorf("the rootless network helper: %w", err)
	}
	// Held for the life of the process (f must never be collected and closed).
	netjoinFile = f
	return "/proc/self/fd/" + strconv.Itoa(fd), nil
})

var netjoinFile *os.File

// NetProblem says why this process cannot give its runs a Net, or nil when it can: as root
// none; not root, the helper must be built (a C compiler) and start (user namespaces).
// The answer comes from making one, once per process.
func NetProblem() error {
	netProbeOnce.Do(func() {
		if !Rootless() {
			return
		}
		n, err := NewNet()
		if err == nil {
			err = n.Close()
		}
		netProbeErr = err
	})
	return netProbeErr
}

var (
	netProbeOnce sync.Once
	netProbeErr  error
)

// heldNet is the part of a rootless Net that its holder keeps.
type heldNet struct {
	holder   *exec.Cmd
	life     *os.File // the write end of the holder's lifeline
	userFD   int      // the holder's user namespace, held open
	userPath string   // /proc/PID/fd/N of userFD
	tables   string   // /proc/HOLDER/net: the namespace's socket tables
}

// newHeldNet makes a rootless Net: starts its holder and opens its namespaces.
func newHeldNet() (*Net, error) {
	fail := func(err error) (*Net, error) {
		return nil, fmt.Errorf("a network for the case's runs (rootless): %w", err)
	}
	helper, err := netjoinPath()
	if err != nil {
		return fail(err)
	}
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		return fail(err)
	}
	readyR, readyW, err := os.Pipe()
	if err != nil {
		lifeR.Close()
		lifeW.Close()
		return fail(err)
	}
	defer readyR.Close()
	// (An empty environment: nothing of the harness's, nor any run's marks.)
	cmd := &exec.Cmd{Path: helper, Args: []string{"gauntlet-netjoin", "hold"}, Env: []string{}, Dir: "/",
		Stdin: lifeR, Stdout: readyW, Stderr: readyW,
		SysProcAttr: &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}}
	err = child.StartCmd(cmd)
	lifeR.Close()
	readyW.Close()
	if err != nil {
		lifeW.Close()
		return fail(fmt.Errorf("start the holder: %w", err))
	}
	h := &heldNet{holder: cmd, life: lifeW, userFD: -1}
	line, _ := bufio.NewReader(io.LimitReader(readyR, 4096)).ReadString('\n')
	if line != "ready\n" {
		h.close()
		return fail(fmt.Errorf("the holder: %s", strings.TrimSpace(line)))
	}
	ns := "/proc/" + strconv.Itoa(cmd.Process.Pid) + "/ns/"
	if h.userFD, err = unix.Open(ns+"user", unix.O_RDONLY|unix.O_CLOEXEC, 0); err != nil {
		h.close()
		return fail(err)
	}
	netFD, err := unix.Open(ns+"net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		h.close()
		return fail(err)
	}
	h.userPath = fdPath(h.userFD)
	h.tables = "/proc/" + strconv.Itoa(cmd.Process.Pid) + "/net"
	return &Net{fd: netFD, path: fdPath(netFD), rootless: h}, nil
}

// close ends the holder (its lifeline's end of file), reaps it, and lets the user
// namespace go.
func (h *heldNet) close() error {
	h.life.Close()
	err := h.holder.Wait()
	if h.userFD >= 0 {
		unix.Close(h.userFD)
		h.userFD = -1
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return nil // (how it ended no longer matters: the namespaces are let go)
	}
	return err
}

// tables is the folder of the namespace's socket tables (/proc/HOLDER/net), or an error
// once the Net is closed.
func (n *Net) tables() (string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.fd < 0 {
		return "", ErrNetClosed
	}
	return n.rootless.tables, nil
}

// joinCommand makes cmd, the command that would start a rootless run's exec role with
// settings s in a box of its own, start it through the join helper in this Net instead
// (see above). A Net that is closed, or a helper that cannot be built, is cmd.Err, which
// cmd's start returns.
func (n *Net) joinCommand(cmd *exec.Cmd, s execrole.Settings) {
	helper, err := netjoinPath()
	n.mu.Lock()
	closed := n.fd < 0
	userPath, netPath := n.rootless.userPath, n.path
	n.mu.Unlock()
	switch {
	case err != nil:
		cmd.Err = err
		return
	case closed:
		cmd.Err = ErrNetClosed
		return
	}
	pidns := "none"
	if s.PID == execrole.PIDInit {
		pidns = "init"
	}
	caps := make([]string, len(roleCaps))
	for i, c := range roleCaps {
		caps[i] = strconv.Itoa(int(c))
	}
	cmd.Args = append([]string{"gauntlet-netjoin", "join", userPath, netPath, "/proc/" + strconv.Itoa(os.Getpid()) + "/exe",
		strconv.Itoa(s.ErrFD), pidns, strings.Join(caps, ","), "--"}, cmd.Args...)
	cmd.Path = helper
	cmd.SysProcAttr.Cloneflags = 0
	cmd.SysProcAttr.UidMappings, cmd.SysProcAttr.GidMappings, cmd.SysProcAttr.AmbientCaps = nil, nil, nil
}

// joinsNet says whether a run under these settings and box starts through the join
// helper (joinCommand): its role is then the helper's child.
func joinsNet(s execrole.Settings, box *Box) bool {
	return box != nil && box.Net != nil && box.Net.rootless != nil && s.Rootless
}

// joinedSettings are the role's settings s for a start through the join helper: with
// PIDInit, a process limit counted on top of the user's tasks (rootless, always) has one
// more, for the helper's thin parent, which the kernel counts in the run's user namespace
// and the role, in the run's PID namespace, cannot see.
func joinedSettings(s execrole.Settings) execrole.Settings {
	if s.PID == execrole.PIDInit && s.NProcRel && s.NProc >= 0 {
		s.NProc++
	}
	return s
}

// tcpPorts reads the TCP socket tables tcp and tcp6 of the folder dir (a /proc/.../net):
// lines "sl local rem st ..." with local "HEXADDR:HEXPORT" and st 0A for LISTEN. used has
// the local port of every socket, listening those of the listening ones.
func tcpPorts(dir string) (used, listening map[int]bool, err error) {
	used, listening = map[int]bool{}, map[int]bool{}
	for _, table := range []string{dir + "/tcp", dir + "/tcp6"} {
		f, err := os.Open(table)
		if os.IsNotExist(err) && strings.HasSuffix(table, "6") {
			continue // no IPv6 here
		}
		if err != nil {
			return nil, nil, err
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 4 {
				continue
			}
			_, hexPort, ok := strings.Cut(fields[1], ":")
			port, err := strconv.ParseUint(hexPort, 16, 16)
			if !ok || err != nil {
				continue // the header
			}
			used[int(port)] = true
			if fields[3] == "0A" {
				listening[int(port)] = true
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return nil, nil, err
		}
	}
	return used, listening, nil
}

// The ports pickPort chooses from: below the range the kernel takes the ports of
// connecting sockets from (32768 to 60999 unless a grader changed it), above the usual
// fixed ports of services.
const (
	pickFrom = 20000
	pickTo   = 32768
)

// pickPort chooses, at random, a port in [pickFrom, pickTo) that used does not have.
func pickPort(used map[int]bool) (int, error) {
	for range 1000 {
		if p := pickFrom + rand.IntN(pickTo-pickFrom); !used[p] {
			return p, nil
		}
	}
	return 0, errors.New("sandbox: no free port found in the case's network")
}
