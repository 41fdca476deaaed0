package child

import (
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// AwaitExit returns once the process has ended, leaves it for Wait to reap (with its
// status), and waits without a thread of its own: thirty-two waits add far fewer than
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
	time.Sleep(200 * time.Millisecond)
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
