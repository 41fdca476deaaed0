package mockplayer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"gauntlet/harness/runtime/child"
)

// The launcher is the mock players' box: the harness's witness starts one per script, in
// a judge's box of its own, and asks it, over a socket of sequenced packets, to start each
// mock player there on the streams a stand-in handed over. A script's mock players thus
// share one box (one box's making per script, not per mock player) and its cgroup, and
// nothing they do reaches past it.
//
// A request is one message: a LaunchRequest in JSON, with the descriptors it names (FDs:
// the number each takes in the mock player) as rights, in the same order. The replies,
// one message each: "started ID" with the mock player's pidfd as a right, "failed ID WHY",
// and, once it has ended and been reaped, "ended ID CODE SIGNAL".

// LaunchRequest asks the launcher for a mock player: ID names it in the replies; Args are
// its arguments (the mock player's flags), Dir its folder, Env its environment (the
// launcher's own when nil); FDs are the numbers its descriptors take (0, 1, 2, then 3 and
// up), in the order of the rights sent with it.
type LaunchRequest struct {
	ID   int      `json:"id"`
	Args []string `json:"args"`
	Dir  string   `json:"dir"`
	Env  []string `json:"env,omitempty"`
	FDs  []int    `json:"fds"`
}

// MaxLaunchRequest bounds a request's JSON: a larger one is refused by the witness before
// it is sent, and the launcher takes none.
const MaxLaunchRequest = 256 << 10

// maxLaunchFDs bounds the descriptors of one request (a mock player's three streams, its
// tell, three relayed pipes and the door, with room).
const maxLaunchFDs = 16

// Launch serves the witness's requests on the socket at descriptor fd until the witness
// closes it, and returns 0; what it started goes with its box.
func Launch(fd int, stderr io.Writer) int {
	syscall.CloseOnExec(fd)
	var sendMu sync.Mutex
	reply := func(msg string, rights ...int) {
		sendMu.Lock()
		defer sendMu.Unlock()
		var oob []byte
		if len(rights) > 0 {
			oob = syscall.UnixRights(rights...)
		}
		syscall.Sendmsg(fd, []byte(msg), oob, nil, 0)
	}
	buf := make([]byte, MaxLaunchRequest+1)
	oob := make([]byte, syscall.CmsgSpace(maxLaunchFDs*4))
	for {
		n, oobn, _, _, err := syscall.Recvmsg(fd, buf, oob, syscall.MSG_CMSG_CLOEXEC)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n == 0 {
			return 0 // the witness is gone
		}
		fds := rightsIn(oob[:oobn])
		var req LaunchRequest
		if err := json.Unmarshal(buf[:n], &req); err != nil || n > MaxLaunchRequest || len(req.FDs) != len(fds) {
			for _, f := range fds {
				syscall.Close(f)
			}
			fmt.Fprintf(stderr, "mockplayer: launcher: a request it cannot read\n")
			continue
		}
		launchOne(req, fds, reply)
	}
}

// rightsIn returns the descriptors of a message's control data.
func rightsIn(oob []byte) []int {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for _, m := range msgs {
		if got, err := syscall.ParseUnixRights(&m); err == nil {
			fds = append(fds, got...)
		}
	}
	return fds
}

// launchOne starts the mock player req asks for on the descriptors fds, and replies.
func launchOne(req LaunchRequest, fds []int, reply func(string, ...int)) {
	files := make([]*os.File, len(fds))
	for i, fd := range fds {
		files[i] = os.NewFile(uintptr(fd), "descriptor "+strconv.Itoa(req.FDs[i]))
	}
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	cmd, err := launchCommand(req, files)
	if err == nil {
		err = child.StartCmd(cmd)
	}
	if err != nil {
		reply(fmt.Sprintf("failed %d %s", req.ID, strings.ReplaceAll(err.Error(), "\n", " ")))
		return
	}
	pidfd, err := unix.PidfdOpen(cmd.Process.Pid, 0)
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		reply(fmt.Sprintf("failed %d pidfd: %v", req.ID, err))
		return
	}
	reply(fmt.Sprintf("started %d", req.ID), pidfd)
	syscall.Close(pidfd)
	go func() {
		err := cmd.Wait()
		code, sig := 0, syscall.Signal(0)
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				sig = ws.Signal()
			} else {
				code = ee.ExitCode()
			}
		}
		reply(fmt.Sprintf("ended %d %d %d", req.ID, code, int(sig)))
	}()
}

// launchCommand is the command of the mock player req asks for: this program under the
// mock player's name, in a process group of its own, killed with the launcher.
func launchCommand(req LaunchRequest, files []*os.File) (*exec.Cmd, error) {
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: append([]string{"mockplayer"}, req.Args...), Dir: req.Dir,
		Env: req.Env, SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}}
	if len(req.FDs) < 3 || !slices.Equal(req.FDs[:3], []int{0, 1, 2}) {
		return nil, errors.New("a request without the three standard streams first")
	}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = files[0], files[1], files[2]
	for i, target := range req.FDs[3:] {
		if target < 3 || target > WitnessFD {
			return nil, fmt.Errorf("descriptor %d out of range", target)
		}
		for len(cmd.ExtraFiles) <= target-3 {
			cmd.ExtraFiles = append(cmd.ExtraFiles, nil)
		}
		cmd.ExtraFiles[target-3] = files[3+i]
	}
	return cmd, nil
}
