package mockplayer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// The launcher is the mock players' box: the harness's witness starts one per script, in
// a judge's box of its own, and asks it, over a socket of sequenced packets, to run each
// mock player there on the streams a stand-in handed over. A script's mock players thus
// share one box (one box's making per script, not per mock player) and its cgroup, and
// nothing they do reaches past it.
//
// Each mock player is a goroutine of the launcher, not a process: a process would start
// the Go runtime and the gauntlet binary's packages again for every one of them (about
// 2.5 ms of CPU each, a twentieth of a St Lucia grade). What a process of its own gave it,
// the launcher gives it (launched): its descriptors by the numbers it knows them by, its
// folder and environment for what it starts, and the ends a process meets by a signal, as
// its end told to the witness (the stand-in, the hub's player, then ends by that signal):
//
//   - a death by a signal of its fault script (Die), after it has told its stand-in;
//   - a write to a hub that closed its end of the pipe: SIGPIPE, unless -reference (the
//     reference programs ignore SIGPIPE);
//   - the witness's "stop" (its stand-in is gone): SIGKILL;
//   - a panic of the mock's own goroutine: exit status 2 and the panic on its stderr, as
//     the Go runtime ends a process.
//
// Its end closes every descriptor the request handed over, as a process's end does, and
// stops its record: once it is told ended, nothing more of it reaches the hub or the
// record, whatever its goroutines were doing.
//
// A request is one message: a LaunchRequest in JSON, with the descriptors it names (FDs:
// the number each takes for the mock player) as rights, in the same order; a request with
// Stop set (and no rights) stops mock player ID. The replies, one message each: "started
// ID", "failed ID WHY", and, once it has ended, "ended ID CODE SIGNAL".

// LaunchRequest asks the launcher for a mock player: ID names it in the replies; Args are
// its arguments (the mock player's flags), Dir its folder, Env its environment (the
// launcher's own when nil); FDs are the numbers its descriptors take (0, 1, 2, then 3 and
// up), in the order of the rights sent with it. Stop, set alone with ID, stops that mock
// player (a death by SIGKILL).
type LaunchRequest struct {
	ID   int      `json:"id"`
	Args []string `json:"args,omitempty"`
	Dir  string   `json:"dir,omitempty"`
	Env  []string `json:"env,omitempty"`
	FDs  []int    `json:"fds,omitempty"`
	Stop bool     `json:"stop,omitempty"`
}

// SendLaunchRequest sends req to the launcher on the socket conn, with files as its
// descriptors (req.FDs says the number each takes).
func SendLaunchRequest(conn int, req LaunchRequest, files []*os.File) error {
	msg, err := json.Marshal(req)
	if err != nil {
		return err
	}
	if len(msg) > MaxLaunchRequest {
		return fmt.Errorf("a request of %d bytes, above %d", len(msg), MaxLaunchRequest)
	}
	var oob []byte
	if len(files) > 0 {
		rights := make([]int, len(files))
		for i, f := range files {
			rights[i] = int(f.Fd())
		}
		oob = syscall.UnixRights(rights...)
	}
	return syscall.Sendmsg(conn, msg, oob, nil, 0)
}

// MaxLaunchRequest bounds a request's JSON: a larger one is refused by the witness before
// it is sent, and the launcher takes none.
const MaxLaunchRequest = 256 << 10

// maxLaunchFDs bounds the descriptors of one request (a mock player's three streams, its
// tell, three relayed pipes and the door, with room).
const maxLaunchFDs = 16

// Launch serves the witness's requests on the socket at descriptor fd until the witness
// closes it, and returns 0; the mock players still running go with its box. players finds
// the in-process reference players by name, as for Main.
func Launch(fd int, players func(name string) (InProcess, bool), stderr io.Writer) int {
	syscall.CloseOnExec(fd)
	var sendMu sync.Mutex
	reply := func(msg string) {
		sendMu.Lock()
		defer sendMu.Unlock()
		syscall.Sendmsg(fd, []byte(msg), nil, nil, 0)
	}
	var mu sync.Mutex
	running := map[int]*launched{}
	buf := make([]byte, MaxLaunchRequest+1)
	oob := make([]byte, syscall.CmsgSpace(maxLaunchFDs*4))
	for {
		n, oobn, _, _, err := syscall.Recvmsg(fd, buf, oob, syscall.MSG_CMSG_CLOEXEC)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n == 0 {
			return 0 // the witness is gone
		}
		fds := rightsIn(oob[:oobn])
		var req LaunchRequest
		if err := json.Unmarshal(buf[:n], &req); err != nil || n > MaxLaunchRequest || len(req.FDs) != len(fds) {
			for _, f := range fds {
				syscall.Close(f)
			}
			fmt.Fprintf(stderr, "mockplayer: launcher: a request it cannot read\n")
			continue
		}
		if req.Stop {
			mu.Lock()
			l := running[req.ID]
			mu.Unlock()
			if l != nil {
				l.end(0, syscall.SIGKILL)
			}
			continue
		}
		l, err := newLaunched(req, fds, reply)
		if err != nil {
			reply(fmt.Sprintf("failed %d %s", req.ID, strings.ReplaceAll(err.Error(), "\n", " ")))
			continue
		}
		mu.Lock()
		running[req.ID] = l
		mu.Unlock()
		reply(fmt.Sprintf("started %d", req.ID))
		go func() {
			l.run(players)
			mu.Lock()
			delete(running, req.ID)
			mu.Unlock()
		}()
	}
}

// rightsIn returns the descriptors of a message's control data.
func rightsIn(oob []byte) []int {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for _, m := range msgs {
		if got, err := syscall.ParseUnixRights(&m); err == nil {
			fds = append(fds, got...)
		}
	}
	return fds
}

// launched is a mock player run by the launcher: see the top of this file.
type launched struct {
	id    int
	argv  []string // its arguments (the mock player's flags)
	dir   string
	env   []string
	files map[int]*os.File // its descriptors, by the number it knows each by
	reply func(string)
	// reference: -reference, whose process ignores SIGPIPE (set by configure).
	reference bool

	once   sync.Once
	killed chan struct{} // closed once its end is told
	dead   sync.Mutex    // held by end while it closes the files; a record waits for it
	isDead bool          // its end was told: nothing more of it is recorded
}

// newLaunched takes the request's descriptors fds for a mock player; on an error they are
// closed.
func newLaunched(req LaunchRequest, fds []int, reply func(string)) (*launched, error) {
	if len(req.FDs) < 3 || !slices.Equal(req.FDs[:3], []int{0, 1, 2}) {
		closeAll(fds)
		return nil, errors.New("a request without the three standard streams first")
	}
	l := &launched{id: req.ID, argv: req.Args, dir: req.Dir, env: req.Env, files: map[int]*os.File{}, reply: reply, killed: make(chan struct{})}
	if l.env == nil {
		l.env = os.Environ()
	}
	for i, target := range req.FDs {
		if i >= 3 && (target < 3 || target > WitnessFD) || l.files[target] != nil {
			// Those taken already through their files: a file left to the collector would
			// close its number again, by then maybe another mock player's descriptor.
			for _, f := range l.files {
				f.Close()
			}
			closeAll(fds[i:])
			return nil, fmt.Errorf("descriptor %d out of range", target)
		}
		// The pipes to the hub and to a relayed program are polled, so that the end of
		// the mock closes them at once, a write or read in progress included (a process's
		// end does). Not its stderr, which it may share with the hub (the hub's own
		// stderr, inherited), nor its tell and the door (sockets the witness holds too):
		// the flag is the open file's, and would change them for the others.
		if target != 2 && target != 3 && target != WitnessFD && isPipe(fds[i]) {
			syscall.SetNonblock(fds[i], true)
		}
		l.files[target] = os.NewFile(uintptr(fds[i]), "descriptor "+strconv.Itoa(target))
	}
	return l, nil
}

func closeAll(fds []int) {
	for _, fd := range fds {
		syscall.Close(fd)
	}
}

// isPipe says whether descriptor fd is a pipe.
func isPipe(fd int) bool {
	var st syscall.Stat_t
	return syscall.Fstat(fd, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFIFO
}

// run plays the mock player its request's arguments ask for, and tells its end.
func (l *launched) run(players func(name string) (InProcess, bool)) {
	stderr := &launchedStderr{f: l.files[2], l: l}
	code := 2
	defer func() {
		if p := recover(); p != nil {
			// As the Go runtime ends a process that panics.
			fmt.Fprintf(l.files[2], "panic: %v\n\n%s", p, debug.Stack())
			l.end(2, 0)
			return
		}
		l.end(code, 0)
	}()
	f, status := parseFlags(l.argv, stderr)
	switch {
	case f == nil:
		code = status
	case f.launch >= 0 || f.witness || f.socket != "":
		fmt.Fprint(stderr, "mockplayer: the launcher runs mock players (-as, -relay, -relayed-fds) only\n")
	default:
		code = f.play(l.inProcess(players, stderr), mockHost{stdin: l.files[0], stdout: l.files[1], stderr: stderr, shared: l})
	}
}

// end tells the mock player's end, once: every descriptor it was handed is closed (the hub
// sees its pipes close, as at a process's end), its record stops, and the witness is told
// "ended ID CODE SIGNAL".
func (l *launched) end(code int, sig syscall.Signal) {
	l.once.Do(func() {
		l.dead.Lock()
		l.isDead = true
		for _, f := range l.files {
			f.Close()
		}
		l.dead.Unlock()
		close(l.killed)
		l.reply(fmt.Sprintf("ended %d %d %d", l.id, code, int(sig)))
	})
}

// configure sets what the mock's Config needs of the launcher: the ends a process meets by a
// signal (see the top of this file) and what it starts.
func (l *launched) configure(cfg *Config, reference bool) {
	cfg.Env, cfg.Dir = l.env, l.dir
	if door := l.files[WitnessFD]; door != nil {
		// The door, for a stand-in that a relayed program is (its mock is the run's too).
		cfg.Inherit = map[int]*os.File{WitnessFD: door}
	}
	cfg.Die = func(sig syscall.Signal) { l.end(0, sig) }
	cfg.Hang = func() { <-l.killed }
	l.reference = reference
	if !reference {
		cfg.Broken = func() { l.end(0, syscall.SIGPIPE) }
	}
	cfg.Own = func() []*os.File {
		own := make([]*os.File, 0, len(l.files))
		for _, f := range l.files {
			own = append(own, f)
		}
		return own
	}
}

// teller returns how the mock tells its stand-in its end, on its descriptor fd.
func (l *launched) teller(fd int) func(code int, sig syscall.Signal) {
	f := l.files[fd]
	return func(code int, sig syscall.Signal) {
		if f != nil {
			f.Write([]byte(verdictLine(code, sig)))
		}
	}
}

// passedFds reads -relayed-fds: three of the mock's descriptors above 2, distinct.
func (l *launched) passedFds(s string) (Passed, bool) {
	fds, ok := relayedNumbers(s)
	if !ok || l.files[fds[0]] == nil || l.files[fds[1]] == nil || l.files[fds[2]] == nil {
		return Passed{}, false
	}
	return Passed{In: l.files[fds[0]], Out: l.files[fds[1]], Status: l.files[fds[2]]}, true
}

// recorder is r, stopped once the mock's end is told.
func (l *launched) recorder(r Recorder) Recorder { return &launchedRecorder{r: r, l: l} }

type launchedRecorder struct {
	r Recorder
	l *launched
}

func (lr *launchedRecorder) do(f func()) {
	lr.l.dead.Lock()
	defer lr.l.dead.Unlock()
	if !lr.l.isDead {
		f()
	}
}

func (lr *launchedRecorder) FromHub(d []byte) { lr.do(func() { lr.r.FromHub(d) }) }
func (lr *launchedRecorder) ToHub(d []byte)   { lr.do(func() { lr.r.ToHub(d) }) }
func (lr *launchedRecorder) Note(e string)    { lr.do(func() { lr.r.Note(e) }) }

// inProcess is players, whose players end with status 2 on a panic (as their process
// would) instead of taking the launcher with them.
func (l *launched) inProcess(players func(name string) (InProcess, bool), stderr io.Writer) func(string) (InProcess, bool) {
	return func(name string) (InProcess, bool) {
		p, ok := players(name)
		if !ok {
			return nil, false
		}
		return func(args []string, stdin io.Reader, stdout, perr io.Writer) (code int) {
			defer func() {
				if r := recover(); r != nil {
					fmt.Fprintf(stderr, "panic: %v\n\n%s", r, debug.Stack())
					code = 2
				}
			}()
			return p(args, stdin, stdout, perr)
		}, true
	}
}

// launchedStderr is a launched mock's stderr: a write that fails because the reader closed
// the pipe ends the mock by SIGPIPE, as it ends a process (but for -reference, whose
// process ignores it).
type launchedStderr struct {
	f *os.File
	l *launched
}

func (s *launchedStderr) Write(p []byte) (int, error) {
	n, err := s.f.Write(p)
	if errors.Is(err, syscall.EPIPE) && !s.l.reference {
		s.l.end(0, syscall.SIGPIPE)
	}
	return n, err
}

func (s *launchedStderr) Close() error { return s.f.Close() }
