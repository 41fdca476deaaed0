package sandbox_test

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"gauntlet/harness/box/hygiene"
	"gauntlet/harness/box/sandbox"
	"gauntlet/internal/buildtest"
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

// A user still lent when the pool is closed (a grader's end, with a case's deferred Return
// still to come) comes back to it without a panic, and is lent again.
func TestUserPoolTakesBackAUserAfterClose(t *testing.T) {
	boxOrSkip(t)
	var pool sandbox.UserPool
	defer pool.Close()
	user, mark, err := pool.Borrow()
	if err != nil {
		t.Fatal(err)
	}
	pool.Close()
	pool.Return(user, mark)
	again, mark, err := pool.Borrow()
	if err != nil {
		t.Fatal(err)
	}
	pool.Return(again, mark)
}

// A process of the user that the harness adopted (it is a subreaper) and that died before
// the user came back, as a program's child killed with its group does, is reaped when the
// user is returned: a zombie holds its pid, and counts against its user's process limit,
// until its parent reaps it. A fuzzing campaign left one such zombie per run of a shell
// wrapper, for as long as it ran.
func TestUserPoolReapsTheZombiesItAdopted(t *testing.T) {
	boxOrSkip(t)
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	var pool sandbox.UserPool
	defer pool.Close()
	user, mark, err := pool.Borrow()
	if err != nil {
		t.Fatal(err)
	}
	// The shell leaves a child that ends a moment later, with no parent but this process.
	cmd := exec.Command("/bin/sh", "-c", "sleep 0.1 & echo $!")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true,
		Credential: &syscall.Credential{Uid: uint32(user.UID()), Gid: uint32(user.GID()), Groups: []uint32{}}}
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("no pid from the shell: %q", out)
	}
	defer syscall.Wait4(pid, nil, syscall.WNOHANG, nil)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if p, err := hygiene.ReadProc(pid); err == nil && p.Zombie() && p.PPid == os.Getpid() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the shell's child did not become this process's zombie")
		}
	}
	pool.Return(user, mark)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := hygiene.ReadProc(pid); err != nil {
			break // reaped
		}
		if time.Now().After(deadline) {
			t.Fatal("the user came back with its zombie unreaped")
		}
	}
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
	// The shell's line (the pid) and the program's ("hidden") come in either order: both
	// write to the pipe as soon as the program is started.
	br := bufio.NewReader(out)
	first, _ := br.ReadString('\n')
	second, err := br.ReadString('\n')
	cmd.Wait()
	pidLine, line := first, second
	if first == "hidden\n" {
		pidLine, line = second, first
	}
	pid, perr := strconv.Atoi(strings.TrimSpace(pidLine))
	if perr != nil {
		t.Fatalf("no pid from the shell: it and the program said %q and %q (%v)", first, second, err)
	}
	if line != "hidden\n" {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the shell said %q, the program %q (%v)", pidLine, line, err)
	}
	return pid
}

// Each user lent at a time has a network namespace of its own, which comes back with the
// user: two users lent at once never share one (a case cannot reach another case's
// programs), and a user lent again brings the same one (made once, not per case).
func TestUserPoolLendsANetWithEachUser(t *testing.T) {
	boxOrSkip(t)
	var pool sandbox.UserPool
	defer pool.Close()
	netOf := func(n *sandbox.Net) string {
		t.Helper()
		res, err := sandbox.Run(sandbox.Config{Box: &sandbox.Box{Net: n}}, sandbox.Spec{Path: "/bin/readlink", Args: []string{"/proc/self/ns/net"}})
		if err != nil || len(res.Procs) != 1 {
			t.Fatalf("%v %+v", err, res)
		}
		return strings.TrimSpace(string(res.Procs[0].Stdout))
	}
	borrow := func() (*sandbox.Lease, hygiene.PidMark, *sandbox.Net) {
		t.Helper()
		u, mark, err := pool.Borrow()
		if err != nil {
			t.Fatal(err)
		}
		n, err := pool.Net(u)
		if err != nil {
			t.Fatal(err)
		}
		if again, _ := pool.Net(u); again != n {
			t.Error("a user's net changed while it was lent")
		}
		return u, mark, n
	}
	var users []*sandbox.Lease
	var marks []hygiene.PidMark
	var names []string
	for range 2 {
		u, mark, n := borrow()
		users, marks, names = append(users, u), append(marks, mark), append(names, netOf(n))
	}
	if !strings.HasPrefix(names[0], "net:[") || names[0] == names[1] {
		t.Errorf("two users lent at once: networks %q and %q, want two", names[0], names[1])
	}
	pool.Return(users[0], marks[0])
	u, mark, n := borrow()
	if u != users[0] || netOf(n) != names[0] {
		t.Errorf("a user lent again: uid %d in %s, want uid %d in %s", u.UID(), netOf(n), users[0].UID(), names[0])
	}
	pool.Return(u, mark)
	pool.Return(users[1], marks[1])
}

// closeCounter counts its closings.
type closeCounter struct{ n int }

func (c *closeCounter) Close() error { c.n++; return nil }

// What is kept with a user comes back with it, and is closed once, when the pool releases
// the user; what is forgotten is not closed.
func TestUserPoolKeepsWithTheUser(t *testing.T) {
	boxOrSkip(t)
	var pool sandbox.UserPool
	type key struct{}
	type other struct{}
	u, mark, err := pool.Borrow()
	if err != nil {
		t.Fatal(err)
	}
	kept, forgotten := &closeCounter{}, &closeCounter{}
	pool.Keep(u, key{}, kept)
	pool.Keep(u, other{}, forgotten)
	pool.Keep(u, other{}, nil)
	pool.Return(u, mark)
	again, mark, err := pool.Borrow()
	if err != nil {
		t.Fatal(err)
	}
	if again != u || pool.Kept(again, key{}) != kept || pool.Kept(again, other{}) != nil {
		t.Errorf("lent again: uid %d with %v and %v, want uid %d with what was kept only", again.UID(), pool.Kept(again, key{}), pool.Kept(again, other{}), u.UID())
	}
	pool.Return(again, mark)
	pool.Close()
	if kept.n != 1 || forgotten.n != 0 {
		t.Errorf("after Close: closed %d and %d times, want 1 and 0", kept.n, forgotten.n)
	}
}

// Each owner (a submission of a cohort) has sandbox users of its own: a user one owner's
// case gave back is lent again to that owner's next case, never to another owner's, not
// even once its owner is done (Retire) and the user went back to the machine (issue 56:
// one sandbox user served every case of two students graded in one cohort).
func TestUserPoolKeepsEachOwnersUsers(t *testing.T) {
	boxOrSkip(t)
	var pool sandbox.UserPool
	defer pool.Close()
	borrow := func(owner string) (*sandbox.Lease, hygiene.PidMark) {
		t.Helper()
		u, mark, err := pool.BorrowFor(owner)
		if err != nil {
			t.Fatal(err)
		}
		return u, mark
	}
	a, mark := borrow("A")
	pool.Return(a, mark)
	b, bmark := borrow("B")
	if b.UID() == a.UID() {
		t.Errorf("owner B was lent uid %d, which owner A had", b.UID())
	}
	again, mark := borrow("A")
	if again != a {
		t.Errorf("owner A was lent uid %d again, want its own %d", again.UID(), a.UID())
	}
	pool.Return(again, mark)
	pool.Return(b, bmark)
	pool.Retire("A")
	for range 3 {
		c, mark := borrow("C")
		if c.UID() == a.UID() || c.UID() == b.UID() {
			t.Errorf("owner C was lent uid %d, another owner's", c.UID())
		}
		defer pool.Return(c, mark)
	}
}
