package mockplayer

import (
	"bufio"
	"gauntlet/internal/buildtest"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"gauntlet/harness/box/execfile"
	"gauntlet/harness/judges/faults"
)

// toy is a tiny player: handshake '^', answers "PING x" with "PONG x", exits 0 on "BYE",
// exits 6 on EOF and 5 on anything else.
func toy(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	io.WriteString(stdout, "^")
	sc := bufio.NewScanner(stdin)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "BYE":
			return 0
		case strings.HasPrefix(line, "PING "):
			io.WriteString(stdout, "PONG "+strings.TrimPrefix(line, "PING ")+"\n")
		default:
			return 5
		}
	}
	return 6
}

type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) FromHub(d []byte) { r.add("hub> " + string(d)) }
func (r *recorder) ToHub(d []byte)   { r.add("<player " + string(d)) }
func (r *recorder) Note(e string)    { r.add("note " + e) }
func (r *recorder) add(s string) {
	r.mu.Lock()
	r.events = append(r.events, s)
	r.mu.Unlock()
}

type outcome struct {
	code   int
	output string // everything the mock wrote to the hub
	died   syscall.Signal
	hung   bool
}

// run drives the mock with the given script like a hub does: it waits for the handshake,
// then sends the hub lines one at a time, waiting after each PING for the reply (or for a
// short while, when the script suppresses it), then closes the pipe.
func run(t *testing.T, script string, hubLines string) (outcome, *recorder) {
	t.Helper()
	s, err := faults.Parse(script)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	var o outcome
	rec := &recorder{}
	cfg := Config{Script: s, Inner: InProcess(toy), Recorder: rec,
		Die:  func(sig syscall.Signal) { o.died = sig },
		Hang: func() { o.hung = true }}
	done := make(chan int, 1)
	go func() {
		done <- Run(cfg, []string{"1", "0"}, inR, outW, io.Discard)
		outW.Close()
	}()
	var mu sync.Mutex
	var out []byte
	progress := make(chan struct{}, 100)
	readDone := make(chan struct{})
	go func() {
		buf := make([]byte, 1)
		for {
			if _, err := outR.Read(buf); err != nil {
				close(readDone)
				return
			}
			mu.Lock()
			out = append(out, buf[0])
			mu.Unlock()
			if len(out) == 1 || buf[0] == '\n' {
				progress <- struct{}{}
			}
		}
	}()
	waitReply := func() {
		select {
		case <-progress:
		case <-readDone:
		case <-time.After(300 * time.Millisecond):
		}
	}
	waitReply() // the handshake
	for _, line := range strings.SplitAfter(hubLines, "\n") {
		if line == "" {
			continue
		}
		inW.Write([]byte(line))
		if strings.HasPrefix(line, "PING") {
			waitReply()
		}
	}
	inW.Close()
	select {
	case o.code = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("mock player did not finish")
	}
	<-readDone
	inR.Close()
	o.output = string(out)
	return o, rec
}

func TestMockPlayerFaults(t *testing.T) {
	const game = "PING 1\nPING 2\nPING 3\nBYE\n"
	tests := []struct {
		name   string
		script string
		hub    string
		want   outcome
	}{
		{"honest play", "", game, outcome{code: 0, output: "^PONG 1\nPONG 2\nPONG 3\n"}},
		{"EOF from hub", "", "PING 1\n", outcome{code: 6, output: "^PONG 1\n"}},
		{"no handshake", "hello drop", game, outcome{code: 0, output: "PONG 1\nPONG 2\nPONG 3\n"}},
		{"wrong handshake byte", `hello send "x"`, game, outcome{code: 0, output: "xPONG 1\nPONG 2\nPONG 3\n"}},
		{"exit right after handshake", "after 1 exit 0", game, outcome{code: 0, output: "^"}},
		{"exit after message 2", "after 2 exit 3", game, outcome{code: 3, output: "^PONG 1\n"}},
		{"garbage reply", `reply 2 line "GARBAGE"`, game, outcome{code: 0, output: "^PONG 1\nGARBAGE\nPONG 3\n"}},
		{"empty line", `reply 1 line ""`, game, outcome{code: 0, output: "^\nPONG 2\nPONG 3\n"}},
		{"CRLF", `reply 1 send "PONG 1\r\n"`, game, outcome{code: 0, output: "^PONG 1\r\nPONG 2\nPONG 3\n"}},
		{"binary bytes", `reply 1 send "\x00\xff\n"`, game, outcome{code: 0, output: "^\x00\xff\nPONG 2\nPONG 3\n"}},
		{"long line", "reply 3 long 10", game, outcome{code: 0, output: "^PONG 1\nPONG 2\nxxxxxxxxxx\n"}},
		{"no newline then EOF", "reply 1 send \"PONG 1\"\nreply 1 exit 0", game, outcome{code: 0, output: "^PONG 1"}},
		{"extra unsolicited line", `after 1 line "DO9"`, game, outcome{code: 0, output: "^DO9\nPONG 1\nPONG 2\nPONG 3\n"}},
		{"slow reply still sent", "reply 1 sleep 50ms", game, outcome{code: 0, output: "^PONG 1\nPONG 2\nPONG 3\n"}},
		{"death by signal", "after 2 signal SEGV", game, outcome{code: 128 + 11, output: "^PONG 1\n", died: syscall.SIGSEGV}},
		{"never exits after the end", "end hang", game, outcome{code: 0, output: "^PONG 1\nPONG 2\nPONG 3\n", hung: true}},
		{"exit status at the end", "end exit 4", game, outcome{code: 4, output: "^PONG 1\nPONG 2\nPONG 3\n"}},
		{"close stdout but keep going", "after 2 close", game, outcome{code: 0, output: "^PONG 1\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := run(t, tc.script, tc.hub)
			if got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestMockPlayerRecordsBothWays(t *testing.T) {
	_, rec := run(t, `reply 1 line "BAD"`, "PING 1\nBYE\n")
	want := []string{
		"<player ^",
		"hub> PING 1\n",
		"note fault (script line 1): reply 1 line \"BAD\"",
		"<player BAD\n",
		"hub> BYE\n",
		"note player ended with status 0",
	}
	if strings.Join(rec.events, "|") != strings.Join(want, "|") {
		t.Errorf("events:\n%q\nwant\n%q", rec.events, want)
	}
}

func TestRelayExternalProgram(t *testing.T) {
	dir := t.TempDir()
	prog := dir + "/echoer"
	execfile.Write(prog, []byte("#!/bin/sh\nprintf '!'\nread x\necho \"got $x $#\"\nexit 7\n"), 0o755)
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- Run(Config{Inner: External{Path: prog}}, []string{"2", "A"}, inR, outW, io.Discard)
		outW.Close()
	}()
	io.WriteString(inW, "turn 123456\n")
	inW.Close()
	out, _ := io.ReadAll(outR)
	if code := <-done; code != 7 || string(out) != "!got turn 123456 2\n" {
		t.Fatalf("relay: status %d, output %q", code, out)
	}
}

// A player that ends while the mock is busy with a fault (here a slow reply) is reaped at
// once: a zombie held by the mock would be blamed on the hub under test.
func TestPlayerReapedDuringFault(t *testing.T) {
	buildtest.Long(t)
	dir := t.TempDir()
	prog := dir + "/quick"
	pidFile := dir + "/pid"
	execfile.Write(prog, []byte("#!/bin/sh\necho $$ > "+pidFile+".tmp && mv "+pidFile+".tmp "+pidFile+"\nprintf '!'\nread x\necho reply\nexit 0\n"), 0o755)
	// The mock sleeps an hour before its reply: the player, which answers and exits
	// meanwhile, must be reaped while the mock sleeps, not held as a zombie until it wakes.
	// Watched until it is gone; the test then leaves the mock asleep (it holds no process).
	s, _ := faults.Parse("reply 1 sleep 1h")
	inR, inW, _ := os.Pipe()
	_, outW, _ := os.Pipe()
	go Run(Config{Script: s, Inner: External{Path: prog}}, []string{"2", "A"}, inR, outW, io.Discard)
	io.WriteString(inW, "turn 123456\n")
	backstop := buildtest.Backstop(t)
	for {
		select {
		case <-backstop:
			t.Fatal("the player's zombie was held while the mock slept (or the player never exited)")
		default:
		}
		data, err := os.ReadFile(pidFile)
		if err != nil {
			time.Sleep(5 * time.Millisecond)
			continue
		}
		if _, err := os.Stat("/proc/" + strings.TrimSpace(string(data))); err != nil {
			return // reaped
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A line longer than maxChunk passes through in pieces, counted once, and the mock never
// holds more than about maxChunk of it.
func TestLongLinesAreBounded(t *testing.T) {
	long := strings.Repeat("x", 3*maxChunk+5) + "\n"
	ch := make(chan chunk, 100)
	go readChunks(strings.NewReader(long+"next\n"), false, ch)
	var got strings.Builder
	lines := 0
	for c := range ch {
		if c.err != nil {
			break
		}
		if len(c.data) > maxChunk+4096 {
			t.Fatalf("a chunk of %d bytes, over the bound", len(c.data))
		}
		if !c.cont {
			lines++
		}
		got.Write(c.data)
	}
	if got.String() != long+"next\n" || lines != 2 {
		t.Errorf("%d lines counted (want 2), %d bytes passed (want %d)", lines, got.Len(), len(long)+5)
	}
}

// A hub that dup2s a pipe onto a player's stdout and keeps the original descriptor leaves a
// second write end in the player: "close" lets go of it too, so the hub sees the end of the
// player's output while the player keeps running.
func TestCloseLetsGoOfEveryCopyOfStdout(t *testing.T) {
	s, err := faults.Parse("after 1 close")
	if err != nil {
		t.Fatal(err)
	}
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	defer inR.Close()
	defer outR.Close()
	if _, err := syscall.Dup(int(outW.Fd())); err != nil { // the copy a careless hub leaves
		t.Fatal(err)
	}
	cfg := Config{Script: s, Inner: InProcess(toy), Recorder: &recorder{}}
	done := make(chan int, 1)
	go func() { done <- Run(cfg, []string{"1", "0"}, inR, outW, io.Discard) }()
	inW.Write([]byte("PING 1\n"))
	// A bound only so that a failure does not hang the test: the end of file comes at once.
	outR.SetReadDeadline(time.Now().Add(20 * time.Second))
	got, err := io.ReadAll(outR)
	if err != nil {
		t.Fatalf("no end of file on the mock's output while it runs (%v); read %q", err, got)
	}
	// The in-process player's handshake and the mock's reading of PING race: the close
	// may come before the handshake is passed on. What counts is the end of file while
	// the mock still runs.
	if string(got) != "^" && string(got) != "" {
		t.Errorf("output %q, want the handshake alone, or nothing", got)
	}
	select {
	case code := <-done:
		t.Fatalf("the mock ended (%d) before it was told to: the end of file was not the close", code)
	default:
	}
	inW.Write([]byte("BYE\n"))
	inW.Close()
	if code := <-done; code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
}

// The stand-in lets go of the copies of the player's ends of the hub's pipes (the read end
// of its stdin's, the write end of its stdout's) and keeps every other descriptor: the
// hub's own ends leaked to it stay, as they stayed in the mock player until it ended.
func TestStandInClosesThePlayersCopiesOnly(t *testing.T) {
	var in, out [2]int
	if err := syscall.Pipe2(in[:], syscall.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Pipe2(out[:], syscall.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	dup := func(fd int) int {
		n, err := fcntl3(fd, syscall.F_DUPFD_CLOEXEC, 3)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	inRead, inWrite, outWrite, outRead := dup(in[0]), dup(in[1]), dup(out[1]), dup(out[0])
	// The ones it must keep are closed here afterwards (not the others: their numbers may
	// have been taken again since).
	defer func() {
		for _, fd := range []int{in[0], in[1], out[0], out[1], inWrite, outRead} {
			syscall.Close(fd)
		}
	}()
	closeCopies(in[0], out[1], -1)
	open := func(fd int) bool { _, err := fcntl(fd, syscall.F_GETFD); return err == nil }
	for fd, want := range map[int]bool{in[0]: true, out[1]: true, inRead: false, outWrite: false, inWrite: true, outRead: true, in[1]: true, out[0]: true} {
		if open(fd) != want {
			t.Errorf("fd %d open: %v, want %v", fd, open(fd), want)
		}
	}
}

func fcntl3(fd, cmd, arg int) (int, error) {
	r, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), uintptr(cmd), uintptr(arg))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

// With -reference the mock stands for the reference player itself, which ignores SIGPIPE:
// writing to a hub that stopped reading fails, and the player ends by the read that
// follows (here end of file before the path, status 4). Without it the mock dies of SIGPIPE.
func TestReferenceMockIgnoresSIGPIPE(t *testing.T) {
	t.Parallel()
	gauntlet := buildtest.Path(t, "gauntlet/cmd/gauntlet")
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{[]string{"-as", "2310A", "-reference"}, "exit status 4"},
		{[]string{"-as", "2310A"}, "signal: broken pipe"},
	} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.Close() // nobody reads what the player writes
		cmd := exec.Command(gauntlet, append(append([]string{"exec", "mockplayer"}, c.flags...), "--", "2", "0")...)
		cmd.Stdout = w
		err = cmd.Run()
		w.Close()
		if err == nil || err.Error() != c.want {
			t.Errorf("mockplayer %v on a closed stdout: %v, want %s", c.flags, err, c.want)
		}
	}
}

// startPiped starts cmd with a pipe to its stdin and one from its stdout, and returns
// their ends.
func startPiped(t *testing.T, cmd *exec.Cmd) (stdin io.WriteCloser, stdout io.ReadCloser) {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err = cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return stdin, stdout
}

// -relayed-fds relays a program another process started (the witness's stand-in, here the
// test): the mock writes the hub's lines to IN, reads the program's from OUT, plays its
// faults and records as any relay, and ends with the status told on STATUS (a death by
// signal N as 128+N, as External's). It takes three open descriptors, and no -as or -relay.
func TestRelayedFds(t *testing.T) {
	t.Parallel()
	gauntlet := buildtest.Path(t, "gauntlet/cmd/gauntlet")
	prog := exec.Command("sh", "-c", `printf '!'; read -r l; echo "echo $l"; read -r l`)
	progIn, progOut := startPiped(t, prog)
	statusR, statusW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		prog.Wait()
		statusW.Write([]byte("signal 15\n")) // as if it had been killed
		statusW.Close()
	}()
	rec := t.TempDir() + "/rec.json"
	mock := exec.Command(gauntlet, "exec", "mockplayer", "-relayed-fds", "3,4,5", "-fault", `reply 1 line "GARBAGE"`, "-record", rec, "--", "A")
	mock.ExtraFiles = []*os.File{progIn.(*os.File), progOut.(*os.File), statusR}
	hubIn, hubOut := startPiped(t, mock)
	progIn.Close()
	progOut.Close()
	statusR.Close()
	r := bufio.NewReader(hubOut)
	if b, err := r.ReadByte(); b != '!' {
		t.Fatalf("handshake %q, %v", b, err)
	}
	io.WriteString(hubIn, "ping\n")
	if line, err := r.ReadString('\n'); line != "GARBAGE\n" {
		t.Errorf("reply 1: %q, %v; want the fault's", line, err)
	}
	hubIn.Close()
	io.Copy(io.Discard, r)
	err = mock.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 128+15 {
		t.Errorf("the relay ended with %v, want exit status %d", err, 128+15)
	}
	b, _ := os.ReadFile(rec)
	for _, want := range []string{`"text":"ping"`, `reply 1 line \"GARBAGE\"`, "player ended with status 143"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the record lacks %s:\n%s", want, b)
		}
	}
	for _, flags := range [][]string{{"-relayed-fds", "3,4"}, {"-relayed-fds", "100,101,102"}, {"-relayed-fds", "0,1,2"}, {"-relay", "x", "-relayed-fds", "3,4,5"}} {
		cmd := exec.Command(gauntlet, append([]string{"exec", "mockplayer"}, flags...)...)
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
			t.Errorf("mockplayer %q: %v, want exit status 2", flags, err)
		}
	}
}
