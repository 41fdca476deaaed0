package child

import (
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// AwaitExit returns once the process has ended, leaves it for Wait to reap (with its
// status), and waits without a thread of its own, parked in the runtime's poller: thirty-two waits add far fewer than
// thirty-two threads, where thirty-two blocked Waits would add one each. The runtime may
// run a thread per P for the goroutines that start the waits, so the test holds GOMAXPROCS
// at 2: on a machine of many CPUs (CI's) twenty waits once added ten threads without any
// of them blocking.
func TestAwaitExit(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	const n = 32
	cmds := make([]*exec.Cmd, n)
	stdins := make([]*os.File, n)
	for i := range cmds {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmds[i] = exec.Command("sh", "-c", "cat >/dev/null; exit 3")
		cmds[i].Stdin = r
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
		r.Close()
		stdins[i] = w
	}
	before := threads(t)
	done := make(chan int, n)
	for i, cmd := range cmds {
		go func() {
			AwaitExit(cmd.Process)
			done <- i
		}()
	}
	// Once every wait is parked in the poller (not after a sleep, which under load may
	// end before the goroutines have even started), none may have returned and none may
	// hold a thread.
	waitParked(t, n)
	select {
	case i := <-done:
		t.Fatalf("AwaitExit of program %d returned while it ran", i)
	default:
	}
	if now := threads(t); now >= before+n/3 {
		t.Errorf("%d threads while %d AwaitExit wait, %d before: a thread blocked per wait", now, n, before)
	}
	for _, w := range stdins {
		w.Close()
	}
	for range n {
		select {
		case i := <-done:
			if err := cmds[i].Wait(); cmds[i].ProcessState == nil || cmds[i].ProcessState.ExitCode() != 3 {
				t.Errorf("program %d: Wait after AwaitExit: %v, want exit status 3", i, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("AwaitExit did not return after the program ended")
		}
	}
}

// threads is the number of threads of this process.
func threads(t *testing.T) int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range bytes.Split(b, []byte("\n")) {
		if v, ok := strings.CutPrefix(string(l), "Threads:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no Threads line in /proc/self/status")
	return 0
}

// waitParked returns once n goroutines are in AwaitExit parked in the runtime's poller
// (state "IO wait"), as the goroutine dump shows them; it fails the test if they are not
// within a minute (a backstop: the goroutines need only to be scheduled once, and a wait
// that blocks a thread in a system call is never "IO wait").
func waitParked(t *testing.T, n int) {
	t.Helper()
	buf := make([]byte, 1<<20)
	backstop := time.Now().Add(time.Minute)
	for {
		parked, in := 0, 0
		dump := string(buf[:runtime.Stack(buf, true)])
		for _, g := range strings.Split(dump, "\n\n") {
			if strings.Contains(g, "gauntlet/harness/runtime/child.AwaitExit(") {
				in++
				if strings.Contains(g[:strings.IndexByte(g, '\n')+1], "[IO wait") {
					parked++
				}
			}
		}
		if parked >= n {
			return
		}
		if time.Now().After(backstop) {
			t.Fatalf("%d goroutines in AwaitExit, %d of them parked in the poller; want %d parked", in, parked, n)
		}
		time.Sleep(time.Millisecond) // a poll: the outcome is the condition's
	}
}

// KillAndAwait returns once the processes have ended: a zombie, not a running process,
// is what a scan right after it finds.
func TestKillAndAwait(t *testing.T) {
	var cmds []*exec.Cmd
	var pids []int
	for range 3 {
		cmd := exec.Command("sleep", "60")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
		pids = append(pids, cmd.Process.Pid)
	}
	defer func() {
		for _, c := range cmds {
			c.Process.Kill()
			c.Wait()
		}
	}()
	if !KillAndAwait(append(pids, 0x7ffffff0), time.Minute) {
		t.Fatal("KillAndAwait reports a process still running")
	}
	for _, pid := range pids {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			t.Fatal(err)
		}
		_, rest, _ := strings.Cut(string(b), ") ")
		if !strings.HasPrefix(rest, "Z") {
			t.Errorf("pid %d is in state %.1s after KillAndAwait, want Z (ended, not reaped)", pid, rest)
		}
	}
}

// A group whose last member is a zombie child of this process (an init reparented to the
// harness, a subreaper) is gone once GroupGone has reaped it: a zombie stays a member of
// its group until reaped, and a stopped tournament once waited out the whole timeout for
// each of its programs.
func TestGroupGoneReapsItsZombies(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "exit 0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	AwaitExit(cmd.Process) // a zombie now, not reaped
	if !GroupGone(pid, 10*time.Second) {
		cmd.Wait()
		t.Fatal("GroupGone: a group of one zombie child is not gone")
	}
	if err := syscall.Kill(pid, 0); err != syscall.ESRCH {
		t.Errorf("the zombie was not reaped: %v", err)
	}
}
