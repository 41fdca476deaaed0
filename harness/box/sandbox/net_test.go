package sandbox_test

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"gauntlet/harness/box/sandbox"
	"gauntlet/harness/runtime/tcp"
	"gauntlet/internal/buildtest"
)

// newNet returns a new Net, closed when the test ends (a test may close it before).
func newNet(t *testing.T) *sandbox.Net {
	t.Helper()
	n, err := sandbox.NewNet()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

// startGroup starts spec in cfg, failing t if it cannot; the group is stopped when the
// test ends (nothing then if the test has waited for it).
func startGroup(t *testing.T, cfg sandbox.Config, spec sandbox.Spec) *sandbox.Group {
	t.Helper()
	g, err := sandbox.Start(cfg, spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Stop() })
	return g
}

// loopbackMissesServer fails t if a client on the machine's loopback reaches a boxed
// server (tcpserve, whose answers start "hello") on port of a shared network namespace.
func loopbackMissesServer(t *testing.T, port int) {
	t.Helper()
	if c, err := tcp.Dial("127.0.0.1", port, time.Second); err == nil {
		b, _ := io.ReadAll(io.LimitReader(c, 64))
		c.Close()
		if strings.HasPrefix(string(b), "hello") {
			t.Errorf("the machine's loopback reached the boxed server: %q", b)
		}
	}
}

// TestNetIsSharedByTheRunsThatJoinIt starts a server in a box that joins a shared network
// namespace and checks who reaches it: the harness through Net.Do and another boxed run
// that joins the namespace do; a box with a network of its own and the machine's loopback
// do not.
func TestNetIsSharedByTheRunsThatJoinIt(t *testing.T) {
	boxOrSkip(t)
	n := newNet(t)
	var port int
	if err := n.Do(func() error {
		l, err := tcp.Listen("127.0.0.1", 0)
		if err != nil {
			return err
		}
		port = l.Port
		return l.Close()
	}); err != nil {
		t.Fatal(err)
	}
	shared := sandbox.Config{Box: &sandbox.Box{Net: n}, Deadline: 10 * time.Second}
	srv := startGroup(t, shared, sandbox.Spec{Path: prog("tcpserve"), Args: []string{strconv.Itoa(port), "2"}})
	// The harness, in the namespace: the server's first answer, once it listens.
	var first string
	for backstop := buildtest.Backstop(t); first == ""; {
		select {
		case <-backstop:
			t.Fatal("the server never answered")
		default:
		}
		n.Do(func() error {
			c, err := tcp.Dial("127.0.0.1", port, time.Second)
			if err != nil {
				time.Sleep(10 * time.Millisecond)
				return err
			}
			defer c.Close()
			b, err := io.ReadAll(c)
			first = string(b)
			return err
		})
	}
	if first != "hello 2\n" {
		t.Fatalf("the harness in the shared namespace read %q from the server, want %q", first, "hello 2\n")
	}
	loopbackMissesServer(t, port)
	client := `(exec 3<>/dev/tcp/127.0.0.1/` + strconv.Itoa(port) + ` && cat <&3) 2>/dev/null || echo "cut off"`
	for _, tc := range []struct {
		name string
		cfg  sandbox.Config
		want string
	}{
		{"a box of its own", sandbox.Config{Box: &sandbox.Box{}}, "cut off\n"},
		{"a box that joins the namespace", shared, "hello 1\n"},
	} {
		res, err := sandbox.Run(tc.cfg, sandbox.Spec{Path: "/bin/bash", Args: []string{"-c", client}})
		if err != nil {
			t.Fatal(err)
		}
		if got := string(res.Procs[0].Stdout); got != tc.want {
			t.Errorf("%s: the client said %q, want %q (stderr %q)", tc.name, got, tc.want, res.Procs[0].Stderr)
		}
	}
	res := srv.Wait()
	if e := res.Procs[0].Exit; e != (sandbox.Exit{}) {
		t.Errorf("the server: %+v, want exit 0 after its two answers (stderr %q)", e, res.Procs[0].Stderr)
	}
	n.Close()
	if err := n.Do(func() error { return nil }); err != sandbox.ErrNetClosed {
		t.Errorf("Do after Close: %v, want ErrNetClosed", err)
	}
}

// probeNetEnv makes this test binary, started as a program, print how many threads it has
// and the network namespace of each of them, each once.
const probeNetEnv = "SANDBOX_TEST_PROBE_NET"

func probeNet() {
	nets := map[string]bool{}
	tasks, _ := os.ReadDir("/proc/self/task")
	for _, task := range tasks {
		ns, err := os.Readlink("/proc/self/task/" + task.Name() + "/ns/net")
		if err != nil {
			ns = err.Error()
		}
		nets[ns] = true
	}
	fmt.Printf("threads=%d nets=%s\n", len(tasks), strings.Join(slices.Sorted(maps.Keys(nets)), ","))
}

// A program that is the harness's own binary, boxed in a shared network namespace, has
// every thread of its runtime in the namespace: a socket it opens on any thread is on the
// shared loopback.
func TestHarnessProgramJoinsTheNetWithEveryThread(t *testing.T) {
	boxOrSkip(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "probe")
	if err := os.Symlink(self, link); err != nil {
		t.Fatal(err)
	}
	n := newNet(t)
	var want string
	if err := n.Do(func() (err error) {
		want, err = os.Readlink("/proc/thread-self/ns/net")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	res, err := sandbox.Run(sandbox.Config{Box: &sandbox.Box{Net: n}, Deadline: 10 * time.Second},
		sandbox.Spec{Path: link, Env: []string{probeNetEnv + "=1"}})
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.Procs[0].Stdout)
	var threads int
	var nets string
	if _, err := fmt.Sscanf(out, "threads=%d nets=%s\n", &threads, &nets); err != nil {
		t.Fatalf("the probe printed %q (%v; stderr %q)", out, err, res.Procs[0].Stderr)
	}
	if threads < 2 || nets != want {
		t.Errorf("the program's %d threads are in %s, want all in the shared %s", threads, nets, want)
	}
}

// No thread of the harness stays in a shared namespace once NewNet and Net.Do are done:
// each goes back to the harness's namespace, the process's first thread included (which
// /proc/self names).
func TestNetLeavesNoThreadInIt(t *testing.T) {
	boxOrSkip(t)
	home := func(path string) string {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		ns, err := os.Readlink(path)
		if err != nil {
			t.Error(err) // not Fatal: some calls are on goroutines of their own
		}
		return ns
	}
	want := home("/proc/thread-self/ns/net")
	for range 20 {
		n, err := sandbox.NewNet()
		if err != nil {
			t.Fatal(err)
		}
		if err := n.Do(func() error { return nil }); err != nil {
			t.Fatal(err)
		}
		n.Close()
	}
	if got := home("/proc/self/ns/net"); got != want {
		t.Errorf("the first thread is in %s, want %s", got, want)
	}
	var wg sync.WaitGroup
	got := make([]string, 32)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = home("/proc/thread-self/ns/net")
		}()
	}
	wg.Wait()
	for _, ns := range got {
		if ns != want {
			t.Errorf("a thread of the harness is in %s, want %s", ns, want)
		}
	}
}
