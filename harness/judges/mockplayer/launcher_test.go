package mockplayer

import (
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// launcherUnderTest is a Launch serving requests in this process, on a socket pair.
type launcherUnderTest struct {
	t    *testing.T
	conn int // the witness's end
}

func newLauncher(t *testing.T) *launcherUnderTest {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	players := func(name string) (InProcess, bool) {
		switch name {
		case "toy":
			return toy, true
		case "panics":
			return func([]string, io.Reader, io.Writer, io.Writer) int { panic("a reference player's bug") }, true
		}
		return nil, false
	}
	done := make(chan struct{})
	go func() {
		Launch(fds[1], players, io.Discard)
		close(done)
	}()
	t.Cleanup(func() {
		syscall.Shutdown(fds[0], syscall.SHUT_RDWR)
		<-done
		syscall.Close(fds[0])
		syscall.Close(fds[1])
	})
	return &launcherUnderTest{t: t, conn: fds[0]}
}

// send sends a request with files as its descriptors.
func (l *launcherUnderTest) send(req LaunchRequest, files ...*os.File) {
	l.t.Helper()
	if err := SendLaunchRequest(l.conn, req, files); err != nil {
		l.t.Fatal(err)
	}
}

// reply reads the launcher's next reply.
func (l *launcherUnderTest) reply() string {
	l.t.Helper()
	buf := make([]byte, 4096)
	tv := syscall.NsecToTimeval(int64(10 * time.Second))
	syscall.SetsockoptTimeval(l.conn, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv)
	n, _, _, _, err := syscall.Recvmsg(l.conn, buf, nil, 0)
	if err != nil {
		l.t.Fatalf("no reply from the launcher: %v", err)
	}
	return string(buf[:n])
}

// hubPipes are a launched mock's streams, from the hub's side: it writes to in, reads out.
type hubPipes struct {
	in, out *os.File // the hub's ends
	theirs  []*os.File
}

// pipe is a new pipe's read and write ends.
func pipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	return r, w
}

func newHubPipes(t *testing.T) *hubPipes {
	t.Helper()
	inR, inW := pipe(t)
	outR, outW := pipe(t)
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	p := &hubPipes{in: inW, out: outR, theirs: []*os.File{inR, outW, null}}
	t.Cleanup(func() { inW.Close(); outR.Close() })
	return p
}

// launch asks for mock player id with args on p's streams (and extra, at 3 and up), and
// checks that it started.
func (l *launcherUnderTest) launch(id int, p *hubPipes, args []string, extra ...*os.File) {
	l.t.Helper()
	fds := []int{0, 1, 2}
	for i := range extra {
		fds = append(fds, 3+i)
	}
	l.send(LaunchRequest{ID: id, Args: args, Dir: l.t.TempDir(), FDs: fds}, append(p.theirs, extra...)...)
	for _, f := range append(p.theirs, extra...) {
		f.Close() // the launcher's now, as a process's after the exec
	}
	if got, want := l.reply(), "started "+strconv.Itoa(id); got != want {
		l.t.Fatalf("reply %q, want %q", got, want)
	}
}

// A mock player the launcher runs as a goroutine ends as its process would have ended,
// told to the witness as that end (and, with -tell, to its stand-in): by its fault
// script's signal; by SIGPIPE at a write to a hub that closed its pipe, but not with
// -reference (whose program ignores SIGPIPE); by SIGKILL when the witness stops it (a hang
// too); with status 2 when the reference player it wraps panics; and with the player's
// status otherwise. Its end closes its output: the hub reads the end of the file.
func TestLaunchedMockPlayersEndAsProcessesWould(t *testing.T) {
	l := newLauncher(t)
	handshake := func(p *hubPipes) {
		t.Helper()
		b := make([]byte, 1)
		if _, err := io.ReadFull(p.out, b); err != nil || b[0] != '^' {
			t.Fatalf("the handshake: %q, %v", b, err)
		}
	}
	drained := func(p *hubPipes) string {
		t.Helper()
		p.out.SetReadDeadline(time.Now().Add(10 * time.Second))
		b, err := io.ReadAll(p.out)
		if err != nil {
			t.Errorf("the hub's read of the mock's output: %v", err)
		}
		return string(b)
	}

	// Its fault's signal, told on its tell first.
	p := newHubPipes(t)
	tellR, tellW := pipe(t)
	defer tellR.Close()
	l.launch(1, p, []string{"-as", "toy", "-tell", "3", "-fault", "after 1 signal SEGV", "--", "a"}, tellW)
	handshake(p)
	p.in.WriteString("PING 1\n")
	if got, want := l.reply(), "ended 1 0 11"; got != want {
		t.Errorf("a death by SEGV: %q, want %q", got, want)
	}
	if out := drained(p); out != "" {
		t.Errorf("the output of the mock that died: %q, want nothing after the handshake", out)
	}
	if told, _ := io.ReadAll(tellR); string(told) != "signal 11\n" {
		t.Errorf("told its stand-in %q, want %q", told, "signal 11\n")
	}

	// A write to a hub that closed its end: SIGPIPE.
	p = newHubPipes(t)
	p.out.Close()
	l.launch(2, p, []string{"-as", "toy", "--", "a"})
	if got, want := l.reply(), "ended 2 0 13"; got != want {
		t.Errorf("a write to a closed pipe: %q, want %q", got, want)
	}
	// ... but for -reference, which goes on and ends with its player.
	p = newHubPipes(t)
	p.out.Close()
	l.launch(3, p, []string{"-as", "toy", "-reference", "--", "a"})
	p.in.WriteString("BYE\n")
	if got, want := l.reply(), "ended 3 0 0"; got != want {
		t.Errorf("-reference, a write to a closed pipe: %q, want %q", got, want)
	}

	// Stopped by the witness, hanging or waiting for the hub.
	p = newHubPipes(t)
	l.launch(4, p, []string{"-as", "toy", "-fault", "start hang", "--", "a"})
	q := newHubPipes(t)
	l.launch(5, q, []string{"-as", "toy", "--", "a"})
	handshake(q)
	l.send(LaunchRequest{ID: 4, Stop: true})
	if got, want := l.reply(), "ended 4 0 9"; got != want {
		t.Errorf("a hanging mock stopped: %q, want %q", got, want)
	}
	if out := drained(p); out != "" {
		t.Errorf("the hanging mock's output: %q, want none", out)
	}
	l.send(LaunchRequest{ID: 5, Stop: true})
	if got, want := l.reply(), "ended 5 0 9"; got != want {
		t.Errorf("a waiting mock stopped: %q, want %q", got, want)
	}
	if out := drained(q); out != "" {
		t.Errorf("the stopped mock's output: %q, want nothing after the handshake", out)
	}
	l.send(LaunchRequest{ID: 5, Stop: true}) // after its end: nothing

	// The player it wraps panics: status 2.
	p = newHubPipes(t)
	l.launch(6, p, []string{"-as", "panics", "--", "a"})
	if got, want := l.reply(), "ended 6 2 0"; got != want {
		t.Errorf("a panicking player: %q, want %q", got, want)
	}

	// Its player's own status.
	p = newHubPipes(t)
	l.launch(7, p, []string{"-as", "toy", "--", "a"})
	p.in.WriteString("PING 7\nBYE\n")
	if got, want := l.reply(), "ended 7 0 0"; got != want {
		t.Errorf("a game played out: %q, want %q", got, want)
	}
	if out := drained(p); out != "^PONG 7\n" {
		t.Errorf("the output of the game: %q, want %q", out, "^PONG 7\n")
	}

	// A request without the three streams first is refused, its descriptors closed.
	p = newHubPipes(t)
	l.send(LaunchRequest{ID: 8, Args: []string{"-as", "toy"}, FDs: []int{1, 0, 2}}, p.theirs...)
	if got := l.reply(); !strings.HasPrefix(got, "failed 8 ") {
		t.Errorf("a request with its streams out of order: %q, want failed", got)
	}
	// ... and one with a descriptor out of range, after the streams it took.
	p = newHubPipes(t)
	extra, _ := pipe(t)
	l.send(LaunchRequest{ID: 9, Args: []string{"-as", "toy"}, FDs: []int{0, 1, 2, WitnessFD + 1}}, append(p.theirs, extra)...)
	if got := l.reply(); !strings.HasPrefix(got, "failed 9 ") {
		t.Errorf("a request with a descriptor out of range: %q, want failed", got)
	}
	p.out.SetReadDeadline(time.Now().Add(10 * time.Second))
	for _, f := range append(p.theirs, extra) {
		f.Close()
	}
	if _, err := io.ReadAll(p.out); err != nil {
		t.Errorf("the hub's output pipe after a refused request: %v, want the end of the file (the launcher closed its copy)", err)
	}
}
