package child

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"gauntlet/harness/runtime/tcp"
)

// roleEnv makes this test binary a program of the tests: a TCP client ("client HOST
// PORT") or server ("server", which says its port) that greets, echoes one line and ends.
const roleEnv = "CHILD_TEST_ROLE"

func TestMain(m *testing.M) {
	switch os.Getenv(roleEnv) {
	case "client":
		port, _ := tcp.ParsePort(os.Args[2])
		c, err := tcp.Dial(os.Args[1], port, 5*time.Second)
		if err != nil {
			os.Exit(3)
		}
		os.Exit(echo(c, os.Args[3:]))
	case "server":
		ln, err := tcp.Listen("127.0.0.1", 0)
		if err != nil {
			os.Exit(3)
		}
		fmt.Printf("port %d\n", ln.Port)
		c, err := ln.Accept(time.Now().Add(5 * time.Second))
		if err != nil {
			os.Exit(4)
		}
		os.Exit(echo(c, os.Args[1:]))
	}
	os.Exit(m.Run())
}

func echo(c *os.File, args []string) int {
	fmt.Fprintf(c, "hello %s\n", strings.Join(args, " "))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return 5
	}
	fmt.Fprintf(c, "got %s", line)
	c.Close()
	return 0
}

// talk reads the greeting, sends one line, reads its echo, then the end of the stream.
func talk(t *testing.T, c *Child, wantGreeting string) {
	t.Helper()
	r := bufio.NewReader(c.Out)
	if g, err := r.ReadString('\n'); err != nil || g != wantGreeting {
		t.Fatalf("greeting %q, %v; want %q", g, err, wantGreeting)
	}
	io.WriteString(c.In, "ping\n")
	if e, err := r.ReadString('\n'); err != nil || e != "got ping\n" {
		t.Fatalf("echo %q, %v", e, err)
	}
	if rest, err := io.ReadAll(r); err != nil || len(rest) != 0 {
		t.Fatalf("after the echo: %q, %v; want the end of the stream", rest, err)
	}
	c.In.Close()
	if err := c.Cmd.Wait(); err != nil {
		t.Fatalf("wait: %v", err)
	}
}

func self(t *testing.T) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// The same conversation over each wire: pipes, the program as the harness's TCP client
// (given 127.0.0.1 and the port first), the program as a TCP server that says its port.
func TestWires(t *testing.T) {
	t.Setenv(roleEnv, "")
	c, err := Start(Spec{Path: "sh", Args: []string{"-c", `echo hello; read l; echo "got $l"`}})
	if err != nil {
		t.Fatal(err)
	}
	talk(t, c, "hello\n")

	t.Setenv(roleEnv, "client")
	c, err = Start(Spec{Path: self(t), Args: []string{"extra"}, Wire: Serve, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.In.(*os.File); ok {
		t.Error("over TCP, In is the connection that may come, not a file")
	}
	talk(t, c, "hello extra\n")
}

func TestConnect(t *testing.T) {
	t.Setenv(roleEnv, "server")
	c, err := Start(Spec{Path: self(t), Wire: Connect, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	talk(t, c, "hello \n")
}

// A server that never says its port, or a client that never connects, reads as a program
// that closed its side at once: no hang past the timeout.
func TestNoConnection(t *testing.T) {
	t.Parallel() // two connection timeouts
	for _, w := range []Wire{Serve, Connect} {
		c, err := Start(Spec{Path: "sleep", Args: []string{"10"}, Wire: w, Timeout: 200 * time.Millisecond, Group: true})
		if err != nil {
			t.Fatal(err)
		}
		if b, err := io.ReadAll(c.Out); err != nil || len(b) != 0 {
			t.Errorf("wire %d: read %q, %v; want the end at once", w, b, err)
		}
		if _, err := c.In.Write([]byte("x\n")); err == nil {
			t.Errorf("wire %d: a write to a connection that never came succeeded", w)
		}
		c.Signal(syscall.SIGKILL)
		c.Cmd.Wait()
	}
}

// A script without "#!" runs with /bin/sh when Shell is set (execvp's way), and fails to
// start without it; the program's stderr comes back with ErrPipe.
func TestShellAndErrPipe(t *testing.T) {
	script := filepath.Join(t.TempDir(), "noshebang")
	if err := os.WriteFile(script, []byte("echo out; echo err >&2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Start(Spec{Path: script}); err == nil {
		t.Error("a script without #! started without Shell")
	}
	c, err := Start(Spec{Path: script, Shell: true, ErrPipe: true})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(c.Out)
	errs, _ := io.ReadAll(c.Err)
	if err := c.Cmd.Wait(); err != nil || string(out) != "out\n" || string(errs) != "err\n" {
		t.Errorf("stdout %q, stderr %q, %v", out, errs, err)
	}
}

// Pause stops the program's whole group and Resume lets it go on.
func TestPauseResume(t *testing.T) {
	c, err := Start(Spec{Path: "sh", Args: []string{"-c", "sleep 10 & wait"}, Group: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { c.Signal(syscall.SIGKILL); c.Cmd.Wait() }()
	state := func() byte {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", c.Cmd.Process.Pid))
		if i := strings.LastIndexByte(string(b), ')'); i > 0 && i+2 < len(b) {
			return b[i+2]
		}
		return 0
	}
	if err := c.Pause(); err != nil {
		t.Fatal(err)
	}
	for i := 0; state() != 'T' && i < 100; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if s := state(); s != 'T' {
		t.Fatalf("paused: state %c, want T", s)
	}
	if err := c.Resume(); err != nil {
		t.Fatal(err)
	}
	for i := 0; state() == 'T' && i < 100; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if s := state(); s == 'T' {
		t.Fatalf("resumed: still stopped")
	}
}

// A subject gets only what a program of a game looks at, and a PATH of its own: the
// system's folders, after those its case names (SubjectPathVar), never its starter's PATH
// (the grader's scratch bin, /root/go/bin: issue 56).
func TestSubjectEnvKeepsOnlyWhatAProgramNeeds(t *testing.T) {
	env := []string{"PATH=/grader/bin:/root/go/bin:/usr/bin", "HOME=/none", "GAUNTLET_MOCKPLAYER=/x", "TMPDIR=/work/.tmp",
		"GAUNTLET_CASE=m", "SECRET=s", "EXTRA=e"}
	got := strings.Join(SubjectEnv(env, "/tmp", "EXTRA"), " ")
	if want := "PATH=/usr/local/bin:/usr/bin:/bin HOME=/none GAUNTLET_CASE=m EXTRA=e LANG=C TMPDIR=/tmp"; got != want {
		t.Errorf("SubjectEnv = %q, want %q", got, want)
	}
	env = append(env, SubjectPathVar+"=/case/bin")
	got = strings.Join(SubjectEnv(env, ""), " ")
	if want := "PATH=/case/bin:/usr/local/bin:/usr/bin:/bin HOME=/none TMPDIR=/work/.tmp GAUNTLET_CASE=m LANG=C"; got != want {
		t.Errorf("SubjectEnv with the case's folder = %q, want %q", got, want)
	}
	// Without a HOME or LANG of its starter's: a HOME that does not exist, the C locale.
	got = strings.Join(SubjectEnv([]string{"PATH=/usr/bin", "LANG=fr_FR.UTF-8", "GAUNTLET_TIMEOUT=1s"}, "/tmp"), " ")
	if want := "PATH=/usr/local/bin:/usr/bin:/bin LANG=fr_FR.UTF-8 HOME=/nonexistent TMPDIR=/tmp"; got != want {
		t.Errorf("SubjectEnv without a HOME = %q, want %q", got, want)
	}
}
