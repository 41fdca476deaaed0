package mockplayer

// The witnessed mock player: the mock runs outside the subject's reach, so that the record
// of what a hub under test sent its players is the harness's, not something the hub could
// have written.
//
// A hub starts its players itself, so whatever it starts runs as the subject's user, in the
// subject's box: a mock player started there could be traced, killed or imitated by the hub,
// and a record it wrote could be written by the hub. So the program the hub starts is only a
// stand-in (Stub). It reaches the harness only through what the harness handed the hub's
// run: the witness's door (WitnessDoor), one end of a socket pair that the run's program gets
// at descriptor WitnessFD and passes on to the players it starts, as it passes them its
// other descriptors. A hub that closes every descriptor above 2 before it starts a player
// (careful C code) leaves its stand-in no door: that stand-in connects instead to the
// witness's socket (WitnessListener), whose path it was given, and the harness takes the
// connection as one through the door of the run it counts it to (the hello, its token and
// the bounds the same). The stand-in makes a connection of its own (a socket
// pair), sends on it its hello (the mock's name, the witness's token, the arguments the hub
// gave it) with its three standard streams (the hub's pipes, SCM_RIGHTS), hands the other
// end through the door, lets go of the door and of its own copies of the pipes, and waits.
// The harness starts the real mock player, outside the box, on those very streams (so every
// byte the hub writes reaches the mock, and every byte the mock writes reaches the hub, as
// before), and the stand-in ends as the mock ended (the same exit status, or death by the
// same signal): the mock tells it so itself the moment it ends, on a copy of the connection
// (ForMock, -tell), and the harness tells it again once it has reaped the mock (for a mock
// that could not tell: one killed). When the stand-in dies first (the hub killed its
// player), the harness kills the mock; and every mock a run's door let in goes when that
// run ends.
//
// A relay of a program that must run where the hub runs (the subject's own player, a
// case's script) runs witnessed too: before any verdict, the harness asks the stand-in to
// start the program (Run: its argv, and its stderr, which is the hub's), and the stand-in,
// as the hub's player in the subject's box, starts it on two pipes and hands the harness
// their other ends and a pipe on which it tells how the program ended (Pipes). The relay
// runs outside the box on the hub's streams with those (Passed, -relayed-fds), and the
// stand-in, which reaps the program, ends with the relay.
//
// The hub holds the door too: it may send through it what it likes. The witness's token,
// written into the C stand-in, which a hub may run but not read, tells a stand-in's hello
// from anything else; where no C compiler built it (the stand-in is then gauntlet's own
// program behind a readable wrapper) there is no token, and a hello the hub sends itself
// gets what the hub could have had by starting a stand-in on the same streams.

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"gauntlet/execrole"
	"gauntlet/harness/runtime/tcp"
)

// WitnessFD is the descriptor at which a stand-in finds the witness's door, inherited from
// the hub that started it (see the package's witness.go).
const WitnessFD = execrole.WitnessFD

// WitnessHello is what a stand-in tells the harness: the mock it stands for (the name given
// to mkplayer), the witness's token (written into the C stand-in, which a hub may run but
// not read: a hello without it does not come from a stand-in; empty where the stand-in is
// gauntlet's own program) and the arguments the hub gave it.
type WitnessHello struct {
	Name  string   `json:"name"`
	Token string   `json:"token"`
	Args  []string `json:"args"`
}

// maxHello bounds a hello (a hub that connects itself may send anything).
const maxHello = 64 << 10

// Stub is the stand-in a hub starts as its player, where no C compiler built standin.c: it
// hands its standard streams to the harness's witness through the door it inherited
// (WitnessFD), with the mock's name and args, and then ends as the mock did. It returns
// only on an error (status 2, said on stderr) or an exit status.
//
// Where there is no door at WitnessFD (a hub that closes every descriptor above 2 in the
// players it starts, as careful C code does) and socket is not "", it connects to the
// witness's socket at that path instead (ListenWitness) and sends the hello there: the
// witness takes such a connection as one that came through the door of the run that
// started last.
func Stub(name, socket string, args []string, stderr io.Writer) int {
	// The folder the hub started it in, for a program the witness asks it to start.
	startDir, _ := os.Getwd()
	hello, err := json.Marshal(WitnessHello{Name: name, Args: args})
	if err != nil || len(hello) > maxHello {
		fmt.Fprintf(stderr, "mockplayer: hello too long\n")
		return 2
	}
	fd, theirs, err := connectionPair()
	viaDoor := err == nil
	if !viaDoor && socket != "" {
		var derr error
		if fd, derr = dialWitness(socket); derr != nil {
			err = fmt.Errorf("%v, and its socket %s: %v", err, socket, derr)
		} else {
			err = nil
		}
		// (Back where the hub started it: dialWitness may have left it in the socket's folder.)
		os.Chdir(startDir)
	}
	if err != nil {
		fmt.Fprintf(stderr, "mockplayer: the harness's witness: %v\n", err)
		return 2
	}
	// Copies of the player's ends of the hub's pipes beyond fds 0 and 1 (a hub that dup2s
	// without closing the original): the stand-in lets go of them, so that the mock holds
	// those ends alone, and the hub sees the end of the mock's output when the mock closes
	// it ("close") or ends, as it did when the mock ran here. Copies of the hub's own ends
	// (leaked to the player) stay, as they stayed in the mock until it ended.
	closeCopies(0, 1, fd)
	// Main put a pipe stdin in non-blocking mode (PolledStdin), which the pipe keeps: the
	// mock player reading it must find it as a hub leaves it, or its own runtime would
	// take it for one it polls already and read it without waiting.
	syscall.SetNonblock(0, false)
	msg := binary.BigEndian.AppendUint32(nil, uint32(len(hello)))
	msg = append(msg, hello...)
	// The hello goes first, so that it waits for the witness when the connection comes.
	n, err := syscall.SendmsgN(fd, msg, syscall.UnixRights(0, 1, 2), nil, syscall.MSG_NOSIGNAL)
	for err == nil && n < len(msg) {
		var m int
		m, err = syscall.SendmsgN(fd, msg[n:], nil, nil, syscall.MSG_NOSIGNAL)
		n += m
	}
	if viaDoor {
		if err == nil {
			err = knock(theirs)
		}
		syscall.Close(theirs)
		// The door is the hub's: nothing the stand-in starts gets it.
		syscall.Close(WitnessFD)
	}
	if err != nil {
		fmt.Fprintf(stderr, "mockplayer: the harness's witness: %v\n", err)
		return 2
	}
	// The pipes are the mock's now: the stand-in's fds 0 and 1 become the null device, so
	// that the hub sees the end of the mock's output when the mock ends; so does its fd 2
	// when it is the same pipe as its stdout (a hub that gave the player 2>&1).
	fds := []int{0, 1}
	if samePipe(1, 2) {
		fds = append(fds, 2)
	}
	null, err := syscall.Open(os.DevNull, syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	for _, n := range fds {
		if err == nil {
			syscall.Dup2(null, n)
		} else {
			syscall.Close(n)
		}
	}
	if err == nil && null > 2 {
		syscall.Close(null)
	}
	r := &witnessReader{fd: fd}
	line, err := r.line(64)
	if err == nil && strings.HasPrefix(line, "run ") {
		// A relay's program, to start here (standin.c does the same).
		var argv []string
		if argv, err = r.runRequest(line); err == nil {
			err = stubRun(fd, argv, startDir, r.given)
		}
		if err != nil {
			fmt.Fprintf(stderr, "mockplayer: the harness's witness: %v\n", err)
			return 2
		}
		line, err = r.line(64)
	}
	if err != nil {
		fmt.Fprintf(stderr, "mockplayer: the harness's witness ended without a verdict\n")
		return 2
	}
	code, sig, err := parseVerdict(line)
	if err != nil {
		fmt.Fprintf(stderr, "mockplayer: the harness's witness: %v\n", err)
		return 2
	}
	if sig != 0 {
		Die(sig)
	}
	return code
}

// witnessReader reads what the witness sends a stand-in, keeping the first descriptor that
// comes with it (given).
type witnessReader struct {
	fd    int
	buf   []byte
	given *os.File
}

// fill reads more.
func (r *witnessReader) fill() error {
	b := make([]byte, 4096)
	oob := make([]byte, syscall.CmsgSpace(4*4))
	n, oobn, _, _, err := syscall.Recvmsg(r.fd, b, oob, syscall.MSG_CMSG_CLOEXEC)
	for err == syscall.EINTR {
		n, oobn, _, _, err = syscall.Recvmsg(r.fd, b, oob, syscall.MSG_CMSG_CLOEXEC)
	}
	if msgs, perr := syscall.ParseSocketControlMessage(oob[:oobn]); err == nil && perr == nil {
		for _, m := range msgs {
			fds, _ := syscall.ParseUnixRights(&m)
			for _, fd := range fds {
				if r.given == nil {
					r.given = os.NewFile(uintptr(fd), "the program's stderr")
				} else {
					syscall.Close(fd)
				}
			}
		}
	}
	if err == nil && n == 0 {
		err = io.EOF
	}
	if err != nil {
		return err
	}
	r.buf = append(r.buf, b[:n]...)
	return nil
}

// line returns the next line, of at most max bytes.
func (r *witnessReader) line(max int) (string, error) {
	for {
		if i := bytes.IndexByte(r.buf, '\n'); i >= 0 {
			line := string(r.buf[:i+1])
			r.buf = r.buf[i+1:]
			return line, nil
		}
		if len(r.buf) > max {
			return "", errors.New("no line")
		}
		if err := r.fill(); err != nil {
			return "", err
		}
	}
}

// runRequest reads the argv of the run request whose first line is head ("run N\n").
func (r *witnessReader) runRequest(head string) ([]string, error) {
	n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(head, "run "), "\n"))
	if err != nil || n <= 0 || n > maxRun {
		return nil, fmt.Errorf("not a run request: %q", head)
	}
	for len(r.buf) < n {
		if err := r.fill(); err != nil {
			return nil, fmt.Errorf("the run request ended early: %w", err)
		}
	}
	body := r.buf[:n]
	r.buf = r.buf[n:]
	if body[n-1] != 0 {
		return nil, errors.New("not a run request")
	}
	return strings.Split(string(body[:n-1]), "\x00"), nil
}

// stubRun starts argv[0] with argv in dir (the folder the hub started the stand-in in),
// its stderr being stderr (or the stand-in's own), on pipes it hands the witness at fd with
// a pipe on which it says how the program ended (WitnessConn.Pipes), as standin.c does. A
// program that cannot be started is told so on its stderr and ends with status 127.
func stubRun(fd int, argv []string, dir string, stderr *os.File) error {
	if stderr == nil {
		stderr = os.Stderr
	}
	defer stderr.Close()
	inR, inW, err := os.Pipe()
	if err != nil {
		return err
	}
	defer inR.Close()
	defer inW.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		return err
	}
	defer outR.Close()
	defer outW.Close()
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return err
	}
	defer statusR.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Stdin, cmd.Stdout, cmd.Stderr = dir, inR, outW, stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "mockplayer: cannot start the player: %v\n", err)
		statusW.Write([]byte(verdictLine(127, 0)))
		statusW.Close()
	} else {
		go func() {
			cmd.Wait()
			ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if ws.Signaled() {
				statusW.Write([]byte(verdictLine(0, ws.Signal())))
			} else {
				statusW.Write([]byte(verdictLine(ws.ExitStatus(), 0)))
			}
			statusW.Close()
		}()
	}
	rights := syscall.UnixRights(int(inW.Fd()), int(outR.Fd()), int(statusR.Fd()))
	_, err = syscall.SendmsgN(fd, []byte("pipes\n"), rights, nil, syscall.MSG_NOSIGNAL)
	return err
}

// doorMessage is what a stand-in sends through the door, with its end of a new connection.
const doorMessage = "connect\n"

// connectionPair makes the stand-in's connection to the witness: a connected pair of Unix
// stream sockets, the stand-in's end first; the other goes through the door (knock).
func connectionPair() (mine, theirs int, err error) {
	if !execrole.IsWitnessDoor(WitnessFD) {
		return -1, -1, fmt.Errorf("no door to the witness at descriptor %d (the hub that started this player did not pass it on)", WitnessFD)
	}
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, -1, err
	}
	return fds[0], fds[1], nil
}

// dialWitness connects to the witness's socket at path (ListenWitness), from the socket's
// folder when the path is longer than a socket's address may be (the caller then goes back
// to its own folder).
func dialWitness(path string) (int, error) {
	addr := path
	if len(addr) >= len(syscall.RawSockaddrUnix{}.Path) {
		if err := os.Chdir(filepath.Dir(path)); err != nil {
			return -1, err
		}
		addr = filepath.Base(path)
	}
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	for {
		err = syscall.Connect(fd, &syscall.SockaddrUnix{Name: addr})
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		syscall.Close(fd)
		return -1, err
	}
	return fd, nil
}

// knock hands the witness the end theirs of a new connection, through the door.
func knock(theirs int) error {
	var err error
	for {
		err = syscall.Sendmsg(WitnessFD, []byte(doorMessage), syscall.UnixRights(theirs), nil, syscall.MSG_NOSIGNAL)
		if err != syscall.EINTR {
			return err
		}
	}
}

// samePipe reports whether fds a and b are both FIFOs of the same pipe.
func samePipe(a, b int) bool {
	var sa, sb syscall.Stat_t
	return syscall.Fstat(a, &sa) == nil && syscall.Fstat(b, &sb) == nil && sa.Mode&syscall.S_IFMT == syscall.S_IFIFO &&
		sb.Mode&syscall.S_IFMT == syscall.S_IFIFO && sa.Dev == sb.Dev && sa.Ino == sb.Ino
}

// closeCopies closes the descriptors other than in, out, 2 and keep that are the same end
// of the same pipe as in (a read end) or out (a write end).
func closeCopies(in, out, keep int) {
	type end struct {
		dev, ino uint64
		mode     int // O_RDONLY or O_WRONLY
	}
	ends := map[end]bool{}
	for fd, mode := range map[int]int{in: syscall.O_RDONLY, out: syscall.O_WRONLY} {
		var st syscall.Stat_t
		if syscall.Fstat(fd, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFIFO {
			ends[end{st.Dev, st.Ino, mode}] = true
		}
	}
	if len(ends) == 0 {
		return
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil || n == in || n == out || n == 2 || n == keep {
			continue
		}
		var st syscall.Stat_t
		if syscall.Fstat(n, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
			continue
		}
		if fl, err := fcntl(n, syscall.F_GETFL); err == nil && ends[end{st.Dev, st.Ino, fl & syscall.O_ACCMODE}] {
			syscall.Close(n)
		}
	}
}

// parseVerdict reads "exit N\n" or "signal N\n".
func parseVerdict(line string) (code int, sig syscall.Signal, err error) {
	kind, num, ok := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
	n, nerr := strconv.Atoi(num)
	switch {
	case !ok || nerr != nil || n < 0 || n > 255:
	case kind == "exit":
		return n, 0, nil
	case kind == "signal" && n > 0 && n < 65:
		return 0, syscall.Signal(n), nil
	}
	return 0, 0, fmt.Errorf("not a verdict: %q", line)
}

// WitnessDoor is the harness's side of a door: one end of a socket pair (SOCK_SEQPACKET)
// whose other end (BoxEnd) a run's program gets at WitnessFD. Through it a stand-in hands
// the witness one end of a connection of its own (Accept); each message is whole, so the
// stand-ins of one hub knock at once without mixing.
type WitnessDoor struct {
	f   *os.File // the harness's end
	box *os.File // the end handed to the run (and to its mocks, for the stand-ins a relay starts)
}

// NewWitnessDoor makes a door.
func NewWitnessDoor() (*WitnessDoor, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	syscall.SetNonblock(fds[0], true)
	return &WitnessDoor{f: os.NewFile(uintptr(fds[0]), "witness door"), box: os.NewFile(uintptr(fds[1]), "witness door (the run's end)")}, nil
}

// BoxEnd is the end of the door to hand a run's program at WitnessFD (AtWitnessFD); the
// door keeps it until Close.
func (d *WitnessDoor) BoxEnd() *os.File { return d.box }

// AtWitnessFD returns extra (a command's ExtraFiles, descriptors 3, 4, ...) with door at
// WitnessFD.
func AtWitnessFD(extra []*os.File, door *os.File) []*os.File {
	out := append([]*os.File(nil), extra...)
	for len(out) < WitnessFD-3 {
		out = append(out, nil)
	}
	return append(out[:WitnessFD-3], door)
}

// ErrKnock is Accept's error for a message through the door that is not a stand-in's: not
// "connect" with one end of a Unix stream socket. The door stays open.
var ErrKnock = errors.New("a message through the witness's door that no stand-in sends")

// Accept waits for a stand-in's connection. It returns ErrKnock for anything else that
// came through the door, io.EOF at its end (shut, or an empty message) and another error
// once the door is closed.
func (d *WitnessDoor) Accept() (*WitnessConn, error) {
	rc, err := d.f.SyscallConn()
	if err != nil {
		return nil, err
	}
	buf := make([]byte, 64)
	oob := make([]byte, syscall.CmsgSpace(4*4))
	var n, oobn, flags int
	var rerr error
	recv := func(fd uintptr) bool {
		n, oobn, flags, _, rerr = syscall.Recvmsg(int(fd), buf, oob, syscall.MSG_CMSG_CLOEXEC)
		return rerr != syscall.EAGAIN
	}
	// What is queued first, whatever the deadline (Wake): the poller sees a deadline passed
	// before it looks at the door, and a wait that the deadline ends does not look again,
	// either of which left there what a run sent just before it ended.
	queued := false
	err = rc.Control(func(fd uintptr) { queued = recv(fd) })
	if err == nil && !queued {
		err = rc.Read(recv)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			if rc.Control(func(fd uintptr) { queued = recv(fd) }) == nil && queued {
				err = nil
			}
		}
	}
	if err == nil {
		err = rerr
	}
	if err != nil {
		return nil, err
	}
	var fds []int
	if msgs, perr := syscall.ParseSocketControlMessage(oob[:oobn]); perr == nil {
		for _, m := range msgs {
			if got, perr := syscall.ParseUnixRights(&m); perr == nil {
				fds = append(fds, got...)
			}
		}
	}
	if n == 0 && len(fds) == 0 {
		// The end of the door (or an empty message, which reads the same): nothing more
		// comes through it. The harness holds a copy of the run's end until it closes
		// the door, so only a program that shut the door, or sent nothing, makes it.
		return nil, io.EOF
	}
	ok := string(buf[:n]) == doorMessage && len(fds) == 1 && flags&(syscall.MSG_TRUNC|syscall.MSG_CTRUNC) == 0
	if ok {
		dom, err1 := syscall.GetsockoptInt(fds[0], syscall.SOL_SOCKET, syscall.SO_DOMAIN)
		typ, err2 := syscall.GetsockoptInt(fds[0], syscall.SOL_SOCKET, syscall.SO_TYPE)
		ok = err1 == nil && err2 == nil && dom == syscall.AF_UNIX && typ == syscall.SOCK_STREAM
	}
	if !ok {
		for _, fd := range fds {
			syscall.Close(fd)
		}
		return nil, ErrKnock
	}
	syscall.SetNonblock(fds[0], true)
	return &WitnessConn{f: os.NewFile(uintptr(fds[0]), "witness connection")}, nil
}

// Wake makes Accept take what is queued in the door and then, where it would wait for
// more, return os.ErrDeadlineExceeded: for the harness once the run has ended, when
// nothing of the run's own can come any more.
func (d *WitnessDoor) Wake() { d.f.SetReadDeadline(time.Now()) }

// Close closes the door: a pending Accept returns an error, and what a stand-in sends
// through it later fails (once every copy of the run's end has gone).
func (d *WitnessDoor) Close() error {
	err := d.f.Close()
	d.box.Close()
	return err
}

// WitnessListener is the witness's socket: the fallback of the stand-ins that find no door
// at WitnessFD (their hub closed every descriptor above 2 before it started them). Any
// program that can reach its path may connect to it; the harness takes a connection there
// as one that came through a door (a hello with the token, within the door's bounds).
type WitnessListener struct {
	f    *os.File
	path string
}

// ListenWitness listens on a new Unix stream socket at path, which any user may connect to
// (the stand-ins run as the subject's user), replacing nothing: a file already there is an
// error.
func ListenWitness(path string) (*WitnessListener, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC|syscall.SOCK_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	// A folder's descriptor in the address keeps it short, whatever the folder's path.
	dir, err := syscall.Open(filepath.Dir(path), unix.O_PATH|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		syscall.Close(fd)
		return nil, err
	}
	addr := fmt.Sprintf("/proc/self/fd/%d/%s", dir, filepath.Base(path))
	if len(path) < len(addr) {
		addr = path
	}
	err = syscall.Bind(fd, &syscall.SockaddrUnix{Name: addr})
	if err == nil {
		// (Connecting takes write permission on the socket's file.)
		if err = syscall.Chmod(addr, 0o666); err != nil {
			syscall.Unlink(addr)
		}
	}
	syscall.Close(dir)
	if err == nil {
		if err = syscall.Listen(fd, 64); err != nil {
			os.Remove(path)
		}
	}
	if err != nil {
		syscall.Close(fd)
		return nil, err
	}
	return &WitnessListener{f: os.NewFile(uintptr(fd), path), path: path}, nil
}

// Path is the socket's path.
func (l *WitnessListener) Path() string { return l.path }

// Accept waits for a connection to the socket.
func (l *WitnessListener) Accept() (*WitnessConn, error) {
	nfd, err := tcp.AcceptFD(l.f)
	if err != nil {
		return nil, err
	}
	return &WitnessConn{f: os.NewFile(uintptr(nfd), "witness connection")}, nil
}

// Wait waits until a connection may be queued at the socket (AcceptQueued takes it; it may
// have been taken already); an error once the listener is closed.
func (l *WitnessListener) Wait() error {
	rc, err := l.f.SyscallConn()
	if err != nil {
		return err
	}
	first := true
	return rc.Read(func(fd uintptr) bool {
		if !first {
			return true
		}
		first = false
		// A connection already queued returns at once: one that came after the last
		// accept looked may have woken the poller before this wait began, and a wait
		// starts by forgetting what woke it (it would then sleep until the next
		// connection). Otherwise the poller waits for the socket.
		ready := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(ready, 0)
		return err == nil && n > 0
	})
}

// AcceptQueued takes a connection queued at the socket, without waiting: nil, nil when
// none is.
func (l *WitnessListener) AcceptQueued() (*WitnessConn, error) {
	rc, err := l.f.SyscallConn()
	if err != nil {
		return nil, err
	}
	nfd := -1
	var aerr error
	if err := rc.Control(func(fd uintptr) {
		for {
			nfd, _, aerr = syscall.Accept4(int(fd), syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC)
			if aerr != syscall.EINTR && aerr != syscall.ECONNABORTED {
				return
			}
		}
	}); err != nil {
		return nil, err
	}
	if aerr == syscall.EAGAIN {
		return nil, nil
	}
	if aerr != nil {
		return nil, os.NewSyscallError("accept", aerr)
	}
	return &WitnessConn{f: os.NewFile(uintptr(nfd), "witness connection")}, nil
}

// Close stops listening (a pending Accept returns an error) and removes the socket.
func (l *WitnessListener) Close() error {
	os.Remove(l.path)
	return l.f.Close()
}

// WitnessConn is one stand-in's connection.
type WitnessConn struct {
	f *os.File
}

// PeerPid is the process id of the stand-in at the other end, as the kernel tells it (in
// the witness's PID namespace): the process that made the connection's pair; 0 when it
// cannot be told.
func (c *WitnessConn) PeerPid() int {
	rc, err := c.f.SyscallConn()
	if err != nil {
		return 0
	}
	pid := 0
	rc.Control(func(fd uintptr) {
		if cred, err := syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED); err == nil {
			pid = int(cred.Pid)
		}
	})
	return pid
}

// Hello reads the stand-in's hello and the three streams it hands over (stdin, stdout,
// stderr of the player the hub started), waiting until deadline.
func (c *WitnessConn) Hello(deadline time.Time) (WitnessHello, [3]*os.File, error) {
	var h WitnessHello
	var files [3]*os.File
	c.f.SetReadDeadline(deadline)
	defer c.f.SetReadDeadline(time.Time{})
	buf := make([]byte, 4+maxHello)
	n, fds, err := c.receive(buf, 3)
	if err != nil {
		return h, files, err
	}
	closeFds := func() {
		for _, fd := range fds {
			syscall.Close(fd)
		}
	}
	if len(fds) != 3 {
		closeFds()
		return h, files, fmt.Errorf("the hello came with %d descriptors, not 3", len(fds))
	}
	if err := c.playable(fds); err != nil {
		closeFds()
		return h, files, err
	}
	got := buf[:n]
	for len(got) < 4 || len(got) < 4+int(binary.BigEndian.Uint32(got)) {
		if len(got) >= 4 && binary.BigEndian.Uint32(got) > maxHello {
			closeFds()
			return h, files, errors.New("hello too long")
		}
		m, err := c.f.Read(buf[len(got):])
		if err != nil {
			closeFds()
			return h, files, err
		}
		got = buf[:len(got)+m]
	}
	size := int(binary.BigEndian.Uint32(got))
	if err := json.Unmarshal(got[4:4+size], &h); err != nil {
		closeFds()
		return h, files, fmt.Errorf("hello: %w", err)
	}
	for i, fd := range fds {
		files[i] = os.NewFile(uintptr(fd), []string{"stdin", "stdout", "stderr"}[i])
	}
	return h, files, nil
}

// playable says why the streams a hello handed over (stdin, stdout, stderr) are no player's
// streams a mock could play on, or nil: a stdin whose writing end is the stdout (the mock
// would hold its own input open). A hub's player never has such streams. (A stream that
// is the stand-in's own end of the connection needs no rule: the mock goes with the run
// whose door let it in, whatever holds the connection open.)
func (c *WitnessConn) playable(fds []int) error {
	if samePipe(fds[0], fds[1]) {
		return errors.New("the hello's stdin and stdout are one pipe")
	}
	return nil
}

// maxRun bounds a run request's argv (the stand-in's MAX_RUN).
const maxRun = 256 << 10

// runRequest is the message that asks a stand-in to start argv[0] with argv: "run N\n"
// and N bytes, each string of argv ended by a NUL.
func runRequest(argv []string) ([]byte, error) {
	var body []byte
	for _, a := range argv {
		if strings.IndexByte(a, 0) >= 0 {
			return nil, fmt.Errorf("an argument holds a NUL: %q", a)
		}
		body = append(append(body, a...), 0)
	}
	if len(argv) == 0 || len(body) > maxRun {
		return nil, fmt.Errorf("cannot ask for a program with %d arguments of %d bytes", len(argv), len(body))
	}
	return append([]byte("run "+strconv.Itoa(len(body))+"\n"), body...), nil
}

// Run asks the stand-in to start, where it runs (in the subject's box, as the subject's
// user), the program argv[0] with argv (looked up in the PATH as exec.Command does when it
// has no '/'), in the folder the hub started the stand-in in, its stderr being stderr
// (sent with the request). Pipes then takes what the stand-in sends back. This is how a
// relay of a program of the subject's runs witnessed (mkplayer NAME -relay PROGRAM): the
// relay outside the box, the program in it.
func (c *WitnessConn) Run(argv []string, stderr *os.File, deadline time.Time) error {
	msg, err := runRequest(argv)
	if err != nil {
		return err
	}
	c.f.SetWriteDeadline(deadline)
	defer c.f.SetWriteDeadline(time.Time{})
	rc, err := c.f.SyscallConn()
	if err != nil {
		return err
	}
	var n int
	var serr error
	err = rc.Write(func(fd uintptr) bool {
		n, serr = syscall.SendmsgN(int(fd), msg, syscall.UnixRights(int(stderr.Fd())), nil, syscall.MSG_NOSIGNAL)
		return serr != syscall.EAGAIN
	})
	if err == nil {
		err = serr
	}
	if err == nil && n < len(msg) {
		_, err = c.f.Write(msg[n:])
	}
	return err
}

// Pipes reads the stand-in's answer to Run ("pipes\n"), waiting until deadline: the write
// end of the program's stdin, the read end of its stdout, and the read end of the pipe on
// which the stand-in says how the program ended ("exit N" or "signal N", see Passed).
func (c *WitnessConn) Pipes(deadline time.Time) ([3]*os.File, error) {
	var files [3]*os.File
	c.f.SetReadDeadline(deadline)
	defer c.f.SetReadDeadline(time.Time{})
	const answer = "pipes\n"
	buf := make([]byte, len(answer))
	n, fds, err := c.receive(buf, 4)
	if err != nil {
		return files, err
	}
	if n > 0 && n < len(buf) {
		_, err = io.ReadFull(c.f, buf[n:])
		n = len(buf)
	}
	if err != nil || string(buf[:n]) != answer || len(fds) != 3 {
		for _, fd := range fds {
			syscall.Close(fd)
		}
		if err == nil {
			err = fmt.Errorf("the stand-in answered %q with %d descriptors, not the pipes", buf[:n], len(fds))
		}
		return files, err
	}
	for i, fd := range fds {
		files[i] = os.NewFile(uintptr(fd), []string{"the program's stdin", "the program's stdout", "the program's status"}[i])
	}
	return files, nil
}

// receive reads what the stand-in sent into buf, one recvmsg on the poller (until the
// connection's read deadline), with the descriptors that came with it: at most room of
// them are taken (close-on-exec); the kernel closes any more.
func (c *WitnessConn) receive(buf []byte, room int) (n int, fds []int, err error) {
	rc, err := c.f.SyscallConn()
	if err != nil {
		return 0, nil, err
	}
	oob := make([]byte, syscall.CmsgSpace(room*4))
	var oobn int
	var rerr error
	err = rc.Read(func(fd uintptr) bool {
		n, oobn, _, _, rerr = syscall.Recvmsg(int(fd), buf, oob, syscall.MSG_CMSG_CLOEXEC)
		return rerr != syscall.EAGAIN
	})
	if err == nil {
		err = rerr
	}
	if err != nil {
		return 0, nil, err
	}
	if msgs, perr := syscall.ParseSocketControlMessage(oob[:oobn]); perr == nil {
		for _, m := range msgs {
			if got, perr := syscall.ParseUnixRights(&m); perr == nil {
				fds = append(fds, got...)
			}
		}
	}
	return n, fds, nil
}

// HungUp says, at once, whether the stand-in's end of the connection has been closed (it
// ended): what Gone waits for, asked without waiting for the goroutine that watches it.
func (c *WitnessConn) HungUp() bool {
	rc, err := c.f.SyscallConn()
	if err != nil {
		return false
	}
	hung := false
	rc.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLRDHUP}}
		if n, err := unix.Poll(fds, 0); err == nil && n > 0 {
			hung = fds[0].Revents&(unix.POLLRDHUP|unix.POLLHUP|unix.POLLERR) != 0
		}
	})
	return hung
}

// Gone returns a channel closed when the stand-in has ended (or broken the protocol by
// writing after its hello).
func (c *WitnessConn) Gone() <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		var b [1]byte
		c.f.Read(b[:])
		close(ch)
	}()
	return ch
}

// Verdict tells the stand-in to end as the mock did: exit with status code, or die by sig
// when sig is not 0. The stand-in ends on the first verdict it reads: one the mock player
// told it itself (ForMock) comes first, and this one then finds it gone.
func (c *WitnessConn) Verdict(code int, sig syscall.Signal) error {
	_, err := c.f.Write([]byte(verdictLine(code, sig)))
	return err
}

// verdictLine is the line that tells a stand-in how to end.
func verdictLine(code int, sig syscall.Signal) string {
	if sig != 0 {
		return "signal " + strconv.Itoa(int(sig)) + "\n"
	}
	return "exit " + strconv.Itoa(code) + "\n"
}

// ForMock returns a copy of the connection for the mock player the harness starts (its
// exec.Cmd.ExtraFiles), on which the mock tells the stand-in how it ends (-tell) the moment
// it knows, so that the stand-in ends with the mock and not once the harness has seen the
// mock end: a hub measures how long its players take to exit (St Lucia's 2 seconds before
// SIGKILL), and a harness busy with other cases on a loaded machine took longer than that
// to pass the verdict on (issue 40). Call started once the mock has started (or failed
// to): starting a program sets the descriptor it inherits to blocking mode, which the
// connection shares, and started sets it back.
func (c *WitnessConn) ForMock() (f *os.File, started func(), err error) {
	rc, err := c.f.SyscallConn()
	if err != nil {
		return nil, nil, err
	}
	nfd := -1
	var derr error
	if err := rc.Control(func(fd uintptr) { nfd, derr = unix.FcntlInt(fd, syscall.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return nil, nil, err
	}
	if derr != nil {
		return nil, nil, derr
	}
	f = os.NewFile(uintptr(nfd), "witness connection (the mock's copy)")
	return f, func() {
		f.Close()
		rc.Control(func(fd uintptr) { syscall.SetNonblock(int(fd), true) })
	}, nil
}

// Tell is the mock player's side of ForMock: it tells the stand-in at descriptor fd to end
// with status code, or by sig when sig is not 0.
func Tell(fd int, code int, sig syscall.Signal) error {
	line := verdictLine(code, sig)
	_, err := syscall.Write(fd, []byte(line))
	return err
}

// Close closes the connection.
func (c *WitnessConn) Close() error { return c.f.Close() }
