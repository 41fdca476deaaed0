package mockplayer

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startStandIn writes the stand-in for the mock name, for a witness listening at
// dir/.witness, as dir/copies/FILE (a copy under another name and in another folder stands
// for its mock all the same), starts it with args, and returns the witness's connection,
// the hello and the running stand-in.
func startStandIn(t *testing.T, name, file string, args ...string) (*WitnessConn, WitnessHello, *exec.Cmd) {
	t.Helper()
	dir := t.TempDir()
	prog, err := StandInFor(filepath.Join(dir, ".witness"), name)
	if err != nil {
		t.Fatalf("the stand-in: %v", err)
	}
	path := filepath.Join(dir, "copies", file)
	if err := os.Mkdir(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, prog, 0o755); err != nil {
		t.Fatal(err)
	}
	ln, err := ListenWitness(filepath.Join(dir, ".witness"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	cmd := exec.Command(path, args...)
	cmd.Stdin = bytes.NewReader(nil)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	c, err := ln.Accept()
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
	if hello.Name != "odd player" || !slices.Equal(hello.Args, want) {
		t.Errorf("hello %q %q, want %q %q", hello.Name, hello.Args, "odd player", want)
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
	if err := os.WriteFile(path, prog, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(path).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !bytes.Contains(out, []byte("not set up by the harness")) {
		t.Errorf("the bare stand-in: %v, %q; want exit 2 saying it was not set up", err, out)
	}
	for _, bad := range [][2]string{{"relative/.witness", "p"}, {"/s", "a\x00b"}, {"/" + strings.Repeat("x", 5000), "p"}} {
		if _, err := StandInFor(bad[0], bad[1]); err == nil {
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
	if err := c.Verdict(4, 0); err != nil {
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
