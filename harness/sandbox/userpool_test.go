package sandbox_test

import (
	"bufio"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gauntlet/harness/buildtest"
	"gauntlet/harness/hygiene"
	"gauntlet/harness/sandbox"
)

// A user comes back to the pool only once nothing its run started is left: a process of
// the user that outlived the run (even one that made itself non-dumpable, so that the files
// of its /proc/PID are root's) is killed when the user is returned, and the same user is
// lent to the next run.
func TestUserPoolClearsAUserBeforeLendingItAgain(t *testing.T) {
	boxOrSkip(t)
	var pool sandbox.UserPool
	defer pool.Close()
	user, mark, err := pool.Borrow()
	if err != nil {
		t.Fatal(err)
	}
	// What a run leaves behind: a process of its own session, out of the run's reach.
	pid := startHidden(t, user.UID(), user.GID())
	defer syscall.Kill(pid, syscall.SIGKILL)
	pool.Return(user, mark)
	for deadline := time.Now().Add(5 * time.Second); alive(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the leftover process of a returned user was not killed")
		}
	}
	again, _, err := pool.Borrow()
	if err != nil {
		t.Fatal(err)
	}
	if again != user {
		t.Errorf("a cleared user was not lent again: got uid %d, want %d", again.UID(), user.UID())
	}
	pool.Return(again, mark)
}

// alive says whether process pid exists and is not a zombie.
func alive(pid int) bool {
	p, err := hygiene.ReadProc(pid)
	return err == nil && !p.Zombie()
}

// startHidden starts, as user uid, a program that makes itself non-dumpable (so that the
// files of its /proc/PID are root's) and waits for ever, through a shell that leaves at once: an
// orphan, as a run's leftover is. It returns its pid.
func startHidden(t *testing.T, uid, gid int) int {
	t.Helper()
	// The test programs' folder is the harness's alone: the user runs a copy.
	nodump := buildtest.PublicCopy(t, prog("nodump"))
	cmd := exec.Command("/bin/sh", "-c", `"$0" & echo $!`, nodump)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true,
		Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(out)
	pidLine, _ := br.ReadString('\n')
	line, err := br.ReadString('\n')
	cmd.Wait()
	pid, perr := strconv.Atoi(strings.TrimSpace(pidLine))
	if perr != nil || line != "hidden\n" {
		t.Fatalf("the shell said %q, the program %q (%v)", pidLine, line, err)
	}
	return pid
}
