package mockplayer

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"gauntlet/harness/box/execfile"
	"gauntlet/internal/buildtest"
)

// startStandIn writes the stand-in for the mock name as dir/copies/FILE (a copy under another name and in another folder stands
// for its mock all the same), starts it with args, and returns the witness's connection,
// the hello and the running stand-in (started with a witness's door at WitnessFD).
func startStandIn(t *testing.T, name, file string, args ...string) (*WitnessConn, WitnessHello, *exec.Cmd) {
	t.Helper()
	return startStandInOf(t, "C", name, file, args...)
}

// testToken is the witness's token the tests' stand-ins carry.
const testToken = "0123456789abcdef0123456789abcdef"

// standInKinds are the stand-ins: the C program, and where no C compiler could build it,
// the harness's own program (Stub), run by a wrapper as the harness writes it.
var standInKinds = []string{"C", "Go"}

// forEachStandInKind runs test for each of standInKinds, as a subtest named after the
// kind; the subtests run in parallel, with each other and with the package's other
// parallel tests.
func forEachStandInKind(t *testing.T, test func(t *testing.T, kind string)) {
	t.Parallel()
	for _, kind := range standInKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			test(t, kind)
		})
	}
}

// startStandInOf is startStandIn for the stand-in of the kind given.
func startStandInOf(t *testing.T, kind, name, file string, args ...string) (*WitnessConn, WitnessHello, *exec.Cmd) {
	t.Helper()
	dir := t.TempDir()
	prog, err := StandInFor(name, testToken, "")
	if kind == "Go" {
		q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
		prog = []byte("#!/bin/sh\nexec " + q(buildtest.Path(t, "gauntlet/cmd/gauntlet")) + " exec mockplayer -witness -name " +
			q(name) + " -- \"$@\"\n")
	}
	if err != nil {
		t.Fatalf("the stand-in: %v", err)
	}
	path := filepath.Join(dir, "copies", file)
	if err := os.Mkdir(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := execfile.Write(path, prog, 0o755); err != nil {
		t.Fatal(err)
	}
	door, err := NewWitnessDoor()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { door.Close() })
	cmd := exec.Command(path, args...)
	// Started in a folder of its own, the hub's: a program it is asked to start runs there.
	cmd.Dir = filepath.Join(dir, "hub")
	if err := os.Mkdir(cmd.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd.Stdin = bytes.NewReader(nil)
	// A descriptor the hub leaked to its player (fd 3): the stand-in keeps it, a program
	// it starts does not get it.
	leak, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer leak.Close()
	cmd.ExtraFiles = AtWitnessFD([]*os.File{leak}, door.BoxEnd())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	c, err := door.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	hello, files, err := c.Hello(time.Now().Add(time.Minute))
	if err != nil {
		t.Fatalf("hello: %v (stand-in's stderr: %s)", err, stderr.String())
	}
	for _, f := range files {
		f.Close()
	}
	return c, hello, cmd
}

// The stand-in program says which mock it stands for (the name written into it, whatever
// its file is called) and the arguments the hub gave it, byte for byte as JSON can carry them (a byte that is not UTF-8 becomes
// U+FFFD, as Go's encoder writes it), and ends as the witness says the mock ended.
func TestStandInHelloAndExit(t *testing.T) {
	t.Parallel()
	args := []string{"2", "", `a"b\c`, "tab\tnew\nline\x01", "caf\xc3\xa9 \xff", "--"}
	c, hello, cmd := startStandIn(t, "odd player", "typeA", args...)
	want := slices.Clone(args)
	want[4] = "café \uFFFD"
	if hello.Name != "odd player" || !slices.Equal(hello.Args, want) || hello.Token != testToken {
		t.Errorf("hello %q %q %q, want %q %q %q", hello.Name, hello.Args, hello.Token, "odd player", want, testToken)
	}
	if err := c.Verdict(7, 0); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 7 {
		t.Errorf("the stand-in ended with %v, want exit status 7", err)
	}
}

// A mock that died by a signal: the stand-in dies by the same one.
func TestStandInDiesAsTheMock(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGSEGV, syscall.SIGTERM, syscall.SIGKILL} {
		c, _, cmd := startStandIn(t, "p", "p")
		if err := c.Verdict(0, sig); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
		if !ws.Signaled() || ws.Signal() != sig || ws.CoreDump() {
			t.Errorf("told %v, the stand-in ended with %v (%#x)", sig, err, uint32(ws))
		}
	}
}

// The stand-in carries nothing of the harness: it is small, and holds no word of the
// suites, the games or the mock player (a hub that reads or dumps it learns nothing).
func TestStandInCarriesNothingOfTheHarness(t *testing.T) {
	prog, err := StandIn()
	if err != nil {
		t.Fatal(err)
	}
	if len(prog) > 64<<10 {
		t.Errorf("the stand-in is %d bytes: more than a stand-in needs", len(prog))
	}
	for _, word := range []string{"txtar", "gauntlet/", "2310", "stlucia", "EAIT", "Player 0", "fault", "testscript"} {
		if bytes.Contains(prog, []byte(word)) {
			t.Errorf("the stand-in holds %q", word)
		}
	}
}

// The stand-in as built, before the harness wrote a mock into it, refuses to run (status
// 2); StandInFor refuses what it cannot hold.
func TestStandInNeedsItsConfiguration(t *testing.T) {
	prog, err := StandIn()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "bare")
	if err := execfile.Write(path, prog, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(path).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !bytes.Contains(out, []byte("not set up by the harness")) {
		t.Errorf("the bare stand-in: %v, %q; want exit 2 saying it was not set up", err, out)
	}
	for _, bad := range [][2]string{{"", testToken}, {"a\x00b", testToken}, {strings.Repeat("x", 5000), testToken}, {"p", ""}} {
		if _, err := StandInFor(bad[0], bad[1], ""); err == nil {
			t.Errorf("StandInFor(%.20q, %q) took it", bad[0], bad[1])
		}
	}
}

// Two verdicts in one read (the mock's own, then the harness's): the first counts.
func TestStandInTakesTheFirstVerdict(t *testing.T) {
	t.Parallel()
	c, _, cmd := startStandIn(t, "p", "p")
	if err := c.Verdict(3, 0); err != nil {
		t.Fatal(err)
	}
	// The second may find the stand-in gone already (it ends on the first): a write to a
	// connection it closed is no failure here (CI's busy machine saw one).
	if err := c.Verdict(4, 0); err != nil && !errors.Is(err, syscall.EPIPE) && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Errorf("the stand-in ended with %v, want exit status 3", err)
	}
}

// Without a C compiler the stand-in cannot be built, and the error says so (the harness
// then stands in with its own binary, and says so once).
func TestStandInWithoutACompiler(t *testing.T) {
	t.Setenv("CC", "/nonexistent/cc")
	if _, err := buildStandIn(); err == nil || !strings.Contains(err.Error(), "/nonexistent/cc") {
		t.Errorf("built with CC=/nonexistent/cc: %v", err)
	}
	t.Setenv("CC", "")
	t.Setenv("PATH", t.TempDir())
	if _, err := buildStandIn(); err == nil || !strings.Contains(err.Error(), "no C compiler") {
		t.Errorf("built with no compiler on the PATH: %v", err)
	}
}

// relayed asks the stand-in of c to start argv, and returns the program's pipes (as the
// mock player gets them, Passed) and the read end of its stderr.
func relayed(t *testing.T, c *WitnessConn, argv ...string) (Passed, *os.File) {
	t.Helper()
	errR, errW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { errR.Close() })
	err = c.Run(argv, errW, time.Now().Add(time.Minute))
	errW.Close()
	if err != nil {
		t.Fatalf("run request: %v", err)
	}
	files, err := c.Pipes(time.Now().Add(time.Minute))
	if err != nil {
		t.Fatalf("the pipes: %v", err)
	}
	for _, f := range files {
		t.Cleanup(func() { f.Close() })
	}
	return Passed{In: files[0], Out: files[1], Status: files[2]}, errR
}

// Asked to run a program (a relay of a program of the subject's, which must run where the
// hub runs), the stand-in starts it with the argv given, byte for byte, found on the PATH,
// in the folder the hub started the stand-in in, on pipes it hands the witness: what is
// written to its stdin reaches it, what it writes comes back, its stderr is the one sent
// with the request, and its exit status comes on the status pipe. The verdict then ends
// the stand-in as for any mock.
func TestStandInRunsTheRelayedProgram(t *testing.T) {
	forEachStandInKind(t, testStandInRunsTheRelayedProgram)
}

func testStandInRunsTheRelayedProgram(t *testing.T, kind string) {
	c, _, cmd := startStandInOf(t, kind, "relay", "a")
	script := `cat /proc/$$/cmdline; echo; pwd; [ -e /proc/$$/fd/3 ] && echo leaked; while read -r l; do echo "got $l"; done; echo oops >&2; exit 5`
	argv := []string{"sh", "-c", script, "zero", "a b", "", "tab\tnew\nline", "caf\xc3\xa9 \xff"}
	p, stderr := relayed(t, c, argv...)
	in, out, wait, err := p.Start(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.Write([]byte("ping\n")); err != nil {
		t.Fatal(err)
	}
	in.Close()
	got, err := io.ReadAll(out)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join(argv, "\x00") + "\x00\n" + cmd.Dir + "\ngot ping\n"
	if string(got) != want {
		t.Errorf("the program wrote %q, want %q", got, want)
	}
	if code := wait(); code != 5 {
		t.Errorf("the program's status %d, want 5", code)
	}
	if b, _ := io.ReadAll(stderr); string(b) != "oops\n" {
		t.Errorf("the program's stderr %q, want %q", b, "oops\n")
	}
	if err := c.Verdict(6, 0); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 6 {
		t.Errorf("the stand-in ended with %v, want exit status 6", err)
	}
}

// A relayed program killed by a signal is told as such (Passed's wait: 128+N, as
// External's); one that cannot be started is told as status 127, with why on its stderr,
// as the mock player told a program it could not start.
func TestStandInTellsHowTheRelayedProgramEnded(t *testing.T) {
	forEachStandInKind(t, testStandInTellsHowTheRelayedProgramEnded)
}

func testStandInTellsHowTheRelayedProgramEnded(t *testing.T, kind string) {
	for _, c := range []struct {
		argv   []string
		code   int
		stderr string // a regular expression
	}{
		{[]string{"./three.sh"}, 3, "^three\n$"}, // in the hub's folder
		{[]string{"sh", "-c", "kill -TERM $$"}, 128 + int(syscall.SIGTERM), "^$"},
		{[]string{"sh", "-c", "kill -KILL $$"}, 128 + int(syscall.SIGKILL), "^$"},
		{[]string{"./no-such-program"}, 127, `^mockplayer: cannot start the player: .*\./no-such-program.*(No such file or directory|no such file or directory)\n$`},
		{[]string{"no-such-program-on-the-path"}, 127, `^mockplayer: cannot start the player: .*no-such-program-on-the-path.*(No such file or directory|not found in \$PATH)\n$`},
	} {
		conn, _, cmd := startStandInOf(t, kind, "relay", "a")
		if err := execfile.Write(filepath.Join(cmd.Dir, "three.sh"), []byte("#!/bin/sh\necho three >&2\nexit 3\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		p, stderr := relayed(t, conn, c.argv...)
		_, out, wait, _ := p.Start(nil, nil)
		io.Copy(io.Discard, out)
		if code := wait(); code != c.code {
			t.Errorf("%q: status %d, want %d", c.argv, code, c.code)
		}
		if err := conn.Verdict(0, 0); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		if b, _ := io.ReadAll(stderr); !regexp.MustCompile(c.stderr).Match(b) {
			t.Errorf("%q: stderr %q, want %q", c.argv, b, c.stderr)
		}
	}
}

// The verdict ends the stand-in while the program it started still runs (a relay that
// quit on a fault): the program is left to whatever ends the hub's players (the box).
func TestStandInEndsOnTheVerdictWhileTheProgramRuns(t *testing.T) {
	forEachStandInKind(t, testStandInEndsOnTheVerdictWhileTheProgramRuns)
}

func testStandInEndsOnTheVerdictWhileTheProgramRuns(t *testing.T, kind string) {
	c, _, cmd := startStandInOf(t, kind, "relay", "a")
	p, _ := relayed(t, c, "sh", "-c", "echo up; exec cat")
	in, out, wait, _ := p.Start(nil, nil)
	r := bufio.NewReader(out)
	if line, err := r.ReadString('\n'); line != "up\n" {
		t.Fatalf("the program wrote %q, %v", line, err)
	}
	if err := c.Verdict(0, syscall.SIGSEGV); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGSEGV {
		t.Errorf("the stand-in ended with %v, want SIGSEGV", cmd.ProcessState)
	}
	// The program still reads and writes; its end is told by nobody now.
	in.Write([]byte("still\n"))
	if line, err := r.ReadString('\n'); line != "still\n" {
		t.Errorf("the program, after the stand-in ended: %q, %v", line, err)
	}
	in.Close()
	if code := wait(); code != 128+int(syscall.SIGKILL) {
		t.Errorf("the status of a program whose stand-in is gone: %d, want %d", code, 128+int(syscall.SIGKILL))
	}
}

// A stand-in that finds no door at WitnessFD (its hub closed every descriptor above 2
// before it started it) connects to the witness's socket, whose path its copy holds (the C
// program) or its wrapper gives it (-witness-socket), and sends its hello there: the
// witness gets the same hello, with the token the C copy carries, and the stand-in ends as
// told. The socket's path is longer than a socket's address may be (the stand-in connects
// from its folder). With neither a door nor a socket it exits 2, saying so.
func TestStandInConnectsToTheSocketWithoutADoor(t *testing.T) {
	forEachStandInKind(t, func(t *testing.T, kind string) {
		dir := filepath.Join(t.TempDir(), strings.Repeat("a-folder-with-a-long-name/", 5))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		ln, err := ListenWitness(filepath.Join(dir, ".witness"))
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		if len(ln.Path()) < len(syscall.RawSockaddrUnix{}.Path) {
			t.Fatalf("the socket's path %s is short enough for an address", ln.Path())
		}
		start := func(socket string, args ...string) (*exec.Cmd, *bytes.Buffer) {
			prog, err := StandInFor("p", testToken, socket)
			if kind == "Go" {
				q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
				prog = []byte("#!/bin/sh\nexec " + q(buildtest.Path(t, "gauntlet/cmd/gauntlet")) + " exec mockplayer -witness-socket " +
					q(socket) + " -witness -name p -- \"$@\"\n")
			}
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "p")
			if err := execfile.Write(path, prog, 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(path, args...)
			cmd.Stdin = bytes.NewReader(nil)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			return cmd, &stderr
		}
		cmd, stderr := start(ln.Path(), "2", "1")
		c, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		hello, files, err := c.Hello(time.Now().Add(time.Minute))
		if err != nil {
			t.Fatalf("hello: %v (stand-in's stderr: %s)", err, stderr)
		}
		for _, f := range files {
			f.Close()
		}
		wantToken := map[string]string{"C": testToken, "Go": ""}[kind]
		if hello.Name != "p" || !slices.Equal(hello.Args, []string{"2", "1"}) || hello.Token != wantToken {
			t.Errorf("hello %q %q %q, want %q %q %q", hello.Name, hello.Args, hello.Token, "p", []string{"2", "1"}, wantToken)
		}
		if err := c.Verdict(5, 0); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err == nil || cmd.ProcessState.ExitCode() != 5 {
			t.Errorf("the stand-in ended with %v, want exit status 5 (stderr: %s)", err, stderr)
		}
		// Neither a door nor a socket: status 2, saying why.
		cmd, stderr = start(filepath.Join(dir, "nothing-here"))
		err = cmd.Wait()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(stderr.String(), "no door to the witness") ||
			!strings.Contains(stderr.String(), "nothing-here") {
			t.Errorf("with no door and no socket: %v, %q; want exit 2 saying so", err, stderr)
		}
	})
}

// A wait at the witness's socket returns while a connection is queued there, even one
// whose arrival woke an earlier wait: a wait begins by forgetting what woke the poller, so
// one that only waited for the next wake-up slept through a connection that came just
// before it (the listener then took it only when another came).
func TestWitnessListenerWaitSeesWhatIsQueued(t *testing.T) {
	ln, err := ListenWitness(filepath.Join(t.TempDir(), "witness"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	waited := make(chan error, 1)
	go func() { waited <- ln.Wait() }()
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: ln.Path()}); err != nil {
		t.Fatal(err)
	}
	buildtest.Returns(t, "the first wait never saw the connection", func() {
		if err := <-waited; err != nil {
			t.Error(err)
		}
	})
	// Not taken yet: a second wait returns at once.
	buildtest.Returns(t, "a wait slept through a queued connection", func() {
		if err := ln.Wait(); err != nil {
			t.Error(err)
		}
	})
	if c, err := ln.AcceptQueued(); err != nil || c == nil {
		t.Errorf("AcceptQueued: %v, %v, want the connection", c, err)
	} else {
		c.Close()
	}
}
