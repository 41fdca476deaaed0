package sandbox

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"gauntlet/execrole"
	"gauntlet/harness/box/hygiene"
	"gauntlet/harness/runtime/child"
	"gauntlet/harness/runtime/transcript"
)

// Spec describes one program of a run.
type Spec struct {
	// Name names the program in the transcript and the result (e.g. "hub", "player 0").
	// Names must be unique in a run and must not be "stdout", "stderr" or "harness".
	// Default: "prog N" for the Nth spec.
	Name string
	// Path is the program. A name without '/' is looked up in the harness's PATH; a
	// relative path is taken from the harness's working directory (the subject runs in its
	// private one). argv[0] is Path as given.
	Path string
	Args []string
	// Env is added to the environment after Config.Env.
	Env []string
	// Stdin, Stdout and Stderr say where the standard descriptors go (zero: /dev/null for
	// stdin, Capture for the others).
	Stdin, Stdout, Stderr Stream
	// Peer names the other end of Pipe and Bytes streams in the transcript (default
	// "harness"): a mock hub driving a player would say "hub".
	Peer string
	// ExtraFiles are passed as descriptors 3, 4, ... The caller keeps ownership.
	ExtraFiles []*os.File
}

// Group is a set of processes started together under one Config: one deadline, one
// sandbox user, one private working directory, one transcript. Each process is the leader
// of its own session and process group.
type Group struct {
	cfg     Config
	procs   []*Process
	trk     *tracker
	track   *runTrack
	lease   *lease
	users   []int // the sandbox users the run holds (liveUsers) until its finish
	dir     string
	before  hygiene.DirState
	devnull *os.File
	start   time.Time

	stop     chan struct{}
	stopOnce sync.Once
	once     sync.Once
	res      *Result
}

// Process is one program the harness started.
type Process struct {
	// Name is the Spec's name.
	Name string

	g       *Group
	proc    *os.Process
	pid     int
	started time.Time

	stdin          *pipeWriter
	stdout, stderr *pipeReader
	inFile         *os.File      // harness end of a Bytes stdin
	fed            chan struct{} // closed when the Bytes feeder is done
	outCap, errCap *capture

	startRSS int64 // peak RSS of the exec-with-limits step
	// status is the harness's end of the pipe on which the init of the program's PID
	// namespace reports the program's end (a boxed program, see execrole's pidns.go).
	status *os.File
	// progPid is the program's pid when an init started it (0: pid is the program's).
	progPid int
	// initPid is the init's pid when it is not pid's: pid is a rootless run's join helper,
	// the init its child (netjoin.go).
	initPid int
	// initDone is closed once that init is reaped (nil: no init).
	initDone chan struct{}
	// life is the write end of the init's lifeline (execrole.Settings.LifeFD), held until
	// the init is reaped.
	life *os.File

	done   chan struct{} // closed once reaped and recorded
	exit   Exit
	ended  time.Time
	rusage *syscall.Rusage
	folder byte // the flags of its working folder the init reported (execrole.FolderFull...)
	// orphans is how many processes the program left its init to reap, as the init
	// reported (execrole.StatusOrphans), or -1 (no init, or no report).
	orphans int

	mu      sync.Mutex
	signals []syscall.Signal
}

// Run starts one program and waits for the end of its run.
func Run(cfg Config, spec Spec) (*Result, error) {
	g, err := Start(cfg, spec)
	if err != nil {
		return nil, err
	}
	return g.Wait(), nil
}

// Start starts the programs of a run. If one cannot be started (missing program, no
// permission...), the ones already started are stopped and cleaned up and the error is
// returned: that is a harness or configuration error, not a verdict on the subject.
func Start(cfg Config, specs ...Spec) (*Group, error) {
	cfg = cfg.withDefaults()
	if len(specs) == 0 {
		return nil, errors.New("sandbox: no program to start")
	}
	seen := map[string]bool{}
	for i := range specs {
		if specs[i].Name == "" {
			specs[i].Name = fmt.Sprintf("prog %d", i)
		}
		n := specs[i].Name
		if seen[n] || n == transcript.Stdout || n == transcript.Stderr || n == transcript.Harness {
			return nil, fmt.Errorf("sandbox: bad or repeated program name %q", n)
		}
		seen[n] = true
		if specs[i].Peer == "" {
			specs[i].Peer = transcript.Harness
		}
	}
	g := &Group{cfg: cfg, trk: theTracker(), stop: make(chan struct{})}
	if g.trk.setupErr != nil {
		return nil, g.trk.setupErr
	}
	var err error
	if g.lease, err = chooseIdentity(cfg.Identity); err != nil {
		return nil, err
	}
	if err := g.makeDir(); err != nil {
		g.lease.release()
		return nil, err
	}
	if g.devnull, err = os.OpenFile(os.DevNull, os.O_RDWR, 0); err != nil {
		g.lease.release()
		if g.cfg.WorkDir == "" {
			hygiene.RemoveAll(g.dir)
		}
		return nil, err
	}
	tok := make([]byte, 16)
	rand.Read(tok)
	g.track = &runTrack{token: hex.EncodeToString(tok), uid: -1, sids: map[int]bool{},
		marks: map[int]uint64{}, roots: map[int]uint64{}, inits: map[int]uint64{}, zseen: map[procKey]*zombieWatch{}}
	if g.lease != nil && g.lease.exclusive {
		g.track.uid = g.lease.uid
	}
	if d := cfg.Identity.Delegate; d != nil && g.lease == nil {
		g.track.delegate = d.UID()
	}
	if g.lease != nil && g.lease.exclusive {
		g.users = append(g.users, g.lease.uid)
	}
	if d := cfg.Identity.Delegate; d != nil {
		g.users = append(g.users, d.UID())
	}
	// Before the first start: every process of the run has a pid allocated after it.
	g.track.from = hygiene.MarkPids()
	holdUsers(g.users, g.track.from)
	g.trk.add(g.track)
	g.start = time.Now()
	for _, s := range specs {
		if err := g.startOne(s); err != nil {
			g.Stop()
			return nil, err
		}
	}
	return g, nil
}

// makeDir makes the private working directory, writes Config.Files into it, hands it to
// the sandbox user and takes the "before" snapshot.
// Quiet says how long every process of the run has been asleep without using any CPU, as
// the tracker's sweeps (every SweepInterval) saw it: 0 while a process of it runs, is
// runnable, or used CPU time since the sweep before. A grader moves a quiet case off its
// CPU slots (a program that waits for input that never comes costs the machine nothing).
func (g *Group) Quiet() time.Duration {
	g.trk.mu.Lock()
	defer g.trk.mu.Unlock()
	if g.track.quiet.IsZero() {
		return 0
	}
	return time.Since(g.track.quiet)
}

func (g *Group) makeDir() error {
	dir := g.cfg.WorkDir
	if dir == "" {
		d, err := os.MkdirTemp(g.cfg.TempDir, "gauntlet-run-")
		if err != nil {
			return fmt.Errorf("sandbox: working directory: %w", err)
		}
		dir = d
	}
	g.dir = dir
	fail := func(err error) error {
		if g.cfg.WorkDir == "" {
			hygiene.RemoveAll(dir)
		}
		return fmt.Errorf("sandbox: working directory: %w", err)
	}
	for name, data := range g.cfg.Files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if !strings.HasPrefix(p, dir+string(filepath.Separator)) {
			return fail(fmt.Errorf("file name %q leaves the directory", name))
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fail(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return fail(err)
		}
	}
	if g.lease != nil && (g.cfg.WorkDir == "" || g.cfg.GiveWorkDir) {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(path, g.lease.uid, g.lease.gid)
		})
		if err != nil {
			return fail(err)
		}
	}
	g.before = hygiene.SnapshotDir(dir)
	return nil
}

// resolve finds the program like the shell would, relative to the harness.
func resolve(path string) (string, error) {
	if !strings.Contains(path, "/") {
		p, err := exec.LookPath(path)
		if err != nil {
			return "", err
		}
		path = p
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", err
	}
	if st.IsDir() {
		return "", fmt.Errorf("%s is a directory", abs)
	}
	return abs, nil
}

// env builds the environment of a process: ProgramEnv with HOME and TMPDIR
// the working directory, then Config.Env, Spec.Env, the run token; a later NAME=value
// replaces an earlier one.
func (g *Group) env(spec Spec) []string {
	all := []string{"HOME=" + g.dir, "TMPDIR=" + g.dir}
	all = append(all, g.cfg.Env...)
	all = append(all, spec.Env...)
	all = append(all, TokenEnv+"="+g.track.token)
	return g.cfg.Box.env(ProgramEnv(all...))
}

func limitValue(n int64) int64 {
	if n < 0 {
		return Unlimited
	}
	return n
}

// initsUseRole makes the init of every box start its program through the role, as it does
// where traces are refused (a kernel or container that forbids ptrace): set by the tests
// alone (InitsUseRole), so that this way is tested where traces are allowed.
var initsUseRole atomic.Bool

// startOne starts one program through the "exec with limits" role (startThroughRole); then
// it tracks it, takes its output and waits for the role's word that the program was
// exec'd.
func (g *Group) startOne(spec Spec) (err error) {
	path, err := resolve(spec.Path)
	if err != nil {
		return fmt.Errorf("sandbox: start %s: %w", spec.Name, err)
	}
	p := &Process{Name: spec.Name, g: g, done: make(chan struct{}), orphans: -1}
	var ends startEnds
	defer func() { ends.release(err != nil) }()
	st, err := g.streams(spec, p, &ends)
	if err != nil {
		return err
	}
	s := roleSettings(g.cfg.Limits, g.cfg.Box, g.cfg.Cgroup, path)
	s.ErrFD = 3 + len(spec.ExtraFiles)
	if s.Box != nil {
		s.PID = execrole.PIDInit
		s.NoTrace = initsUseRole.Load()
	}
	if g.lease != nil {
		s.UID, s.GID = g.lease.uid, g.lease.gid
	} else {
		s.NProcRel = true
	}
	argv := append([]string{spec.Path}, spec.Args...)
	// Every stream is a file, so the command starts no copying goroutine, and the process
	// is reaped with Process.Wait (p.wait), never cmd.Wait.
	cmd, errR, err := g.startThroughRole(&s, spec, argv, st.files, p, &ends)
	if err != nil {
		return err
	}
	defer errR.Close()
	p.proc, p.pid, p.started = cmd.Process, cmd.Process.Pid, time.Now()
	g.trackRoot(p.pid, true, p.status != nil)
	g.cfg.Transcript.Start(spec.Name, p.pid, argv)
	g.takeOutput(spec, p, st)
	g.procs = append(g.procs, p)
	go p.wait()

	ends.closeChild()
	if err := g.awaitExec(spec, s, p, errR); err != nil {
		return err
	}
	if p.inFile != nil {
		p.fed = make(chan struct{})
		go p.feed(spec.Stdin.data, g.cfg.Transcript.LineWriter(spec.Peer, spec.Name))
	}
	return nil
}

// startEnds are the pipe ends of one start: the child's, closed once it has started (or
// failed to), and the harness's, closed too if the start failed.
type startEnds struct{ child, ours []*os.File }

// pipe makes a pipe whose ends are to be closed by release: the child's end is r or w, as
// the caller adds it with addChild, the other the harness's with addOurs.
func (e *startEnds) pipe() (r, w *os.File, err error) {
	r, w, err = os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: pipe: %w", err)
	}
	return r, w, nil
}

func (e *startEnds) addChild(f *os.File) { e.child = append(e.child, f) }
func (e *startEnds) addOurs(f *os.File)  { e.ours = append(e.ours, f) }

// closeChild closes the child's ends (it holds its own copies once started).
func (e *startEnds) closeChild() {
	for _, f := range e.child {
		f.Close()
	}
	e.child = nil
}

// release closes what is left of the child's ends, and the harness's ends if the start
// failed.
func (e *startEnds) release(failed bool) {
	e.closeChild()
	if failed {
		for _, f := range e.ours {
			f.Close()
		}
	}
}

// startStreams are a program's standard streams as it gets them (files) and the harness's
// ends of its captured or piped output (outR), with what was asked for each output.
type startStreams struct {
	files [3]*os.File
	outR  [3]*os.File
	outs  [3]Stream
}

// streams makes the program's standard streams as spec asks: the null device, a file, or
// a pipe (p's stdin writer, or a Bytes stdin that p feeds).
func (g *Group) streams(spec Spec, p *Process, ends *startEnds) (st startStreams, err error) {
	switch spec.Stdin.kind {
	case kindDefault, kindNull, kindCapture:
		st.files[0] = g.devnull
	case kindFile:
		st.files[0] = spec.Stdin.file
	case kindPipe, kindBytes:
		r, w, err := ends.pipe()
		if err != nil {
			return st, err
		}
		st.files[0] = r
		ends.addChild(r)
		ends.addOurs(w)
		if spec.Stdin.kind == kindPipe {
			p.stdin = &pipeWriter{f: w, lw: g.cfg.Transcript.LineWriter(spec.Peer, spec.Name)}
		} else {
			p.inFile = w
		}
	}
	st.outs = [3]Stream{1: spec.Stdout, 2: spec.Stderr}
	for fd := 1; fd <= 2; fd++ {
		switch st.outs[fd].kind {
		case kindNull, kindBytes:
			st.files[fd] = g.devnull
		case kindFile:
			st.files[fd] = st.outs[fd].file
		case kindDefault, kindCapture, kindPipe:
			r, w, err := ends.pipe()
			if err != nil {
				return st, err
			}
			st.files[fd] = w
			ends.addChild(w)
			ends.addOurs(r)
			st.outR[fd] = r
		}
	}
	return st, nil
}

// startThroughRole starts the program through the exec role, with the role's error pipe
// (returned: the harness's end) and, for the init of a PID namespace, the pipe of the
// program's end (p.status) and the init's lifeline (p.life).
func (g *Group) startThroughRole(s *execrole.Settings, spec Spec, argv []string, files [3]*os.File, p *Process, ends *startEnds) (*exec.Cmd, *os.File, error) {
	errR, errW, err := ends.pipe()
	if err != nil {
		return nil, nil, err
	}
	ends.addChild(errW)
	fail := func(err error) (*exec.Cmd, *os.File, error) {
		errR.Close()
		return nil, nil, err
	}
	extra := append(append([]*os.File(nil), spec.ExtraFiles...), errW)
	if s.PID == execrole.PIDInit {
		// The program's end comes from the init of its PID namespace.
		r, w, err := ends.pipe()
		if err != nil {
			return fail(err)
		}
		p.status, p.initDone = r, make(chan struct{})
		ends.addOurs(r)
		ends.addChild(w)
		s.StatusFD = 3 + len(extra)
		extra = append(extra, w)
		// The init's lifeline: the harness holds the write end until the init is
		// reaped, so a harness killed outright takes the namespace with it.
		lr, lw, err := ends.pipe()
		if err != nil {
			return fail(err)
		}
		p.life = lw
		ends.addChild(lr)
		s.LifeFD = 3 + len(extra)
		extra = append(extra, lr)
	}
	cmd := roleCommand(*s, g.cfg.Box, g.env(spec), argv)
	cmd.Dir = g.dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = files[0], files[1], files[2]
	cmd.ExtraFiles = extra
	if err := child.StartCmd(cmd); err != nil {
		if p.life != nil {
			p.life.Close()
		}
		return fail(fmt.Errorf("sandbox: start %s: %w", spec.Name, err))
	}
	return cmd, errR, nil
}

// trackRoot records pid as a root of the run's processes (one the tracker never takes for
// one left running), when session is set as the leader of a session of the run, and when
// init is set as the harness's own process that starts the program and reaps its PID
// namespace (execrole.PIDInit, or a rootless run's join helper before it).
func (g *Group) trackRoot(pid int, session, init bool) {
	g.trk.mu.Lock()
	defer g.trk.mu.Unlock()
	if session {
		g.track.sids[pid] = true
	}
	if pr, err := hygiene.ReadProc(pid); err == nil {
		g.track.roots[pid] = pr.Start
		if init {
			g.track.inits[pid] = pr.Start
		}
	}
}

// takeOutput hands the harness's ends of p's output to a pipe reader (Pipe) or a capture.
func (g *Group) takeOutput(spec Spec, p *Process, st startStreams) {
	log := g.cfg.Transcript
	for fd, r := range st.outR {
		if r == nil {
			continue
		}
		to := transcript.Stdout
		if fd == 2 {
			to = transcript.Stderr
		}
		switch st.outs[fd].kind {
		case kindPipe:
			pr := &pipeReader{f: r, lw: log.LineWriter(spec.Name, spec.Peer)}
			if fd == 1 {
				p.stdout = pr
			} else {
				p.stderr = pr
			}
		default:
			c := newCapture(r, log.LineWriter(spec.Name, to), g.cfg.OutputLimit)
			if fd == 1 {
				p.outCap = c
			} else {
				p.errCap = c
			}
		}
	}
}

// FolderOverBoundError is a start refused because the program's working folder holds more
// than the box's bound (Box.WorkDisk) before it starts: what the subject's earlier runs
// left there, its own doing, which the harness tells from its own failures by this type.
type FolderOverBoundError struct{ err error }

func (e *FolderOverBoundError) Error() string { return e.err.Error() }

// awaitExec reads the role's error pipe, which the role closes by exec'ing (close-on-exec)
// or writes why it failed (after its "hwm N" line, the harness's peak it folded in), and
// then finds the program's pid below the init.
func (g *Group) awaitExec(spec Spec, s execrole.Settings, p *Process, errR *os.File) error {
	errR.SetReadDeadline(time.Now().Add(10 * time.Second))
	report, _ := io.ReadAll(io.LimitReader(errR, 4096))
	msg := string(report)
	if rest, ok := strings.CutPrefix(msg, "hwm "); ok {
		n, after, _ := strings.Cut(rest, "\n")
		p.startRSS, _ = strconv.ParseInt(n, 10, 64)
		msg = after
	}
	kind := ""
	if rest, ok := strings.CutPrefix(msg, execrole.KindLine); ok {
		kind, msg, _ = strings.Cut(rest, "\n")
	}
	if msg != "" {
		g.cfg.Transcript.Notef(transcript.Harness, "could not start %s: %s", spec.Name, msg)
		err := fmt.Errorf("sandbox: start %s: %s", spec.Name, msg)
		if kind == execrole.KindFolderOverBound {
			return &FolderOverBoundError{err}
		}
		return err
	}
	if p.status != nil {
		// The program has been exec'd (the end of file): the init's child.
		p.progPid = firstChild(p.pid)
		if joinsNet(s, g.cfg.Box) {
			// The init is the join helper's child (netjoin.go): a root of the run.
			p.initPid, p.progPid = p.progPid, firstChild(p.progPid)
			g.trackRoot(p.initPid, false, true)
		}
	}
	return nil
}

// feed writes a Bytes stdin line by line, so that each line is recorded when the program
// could take it, then closes it. A subject that never reads leaves a write blocked until
// the run ends and closes the pipe under it.
func (p *Process) feed(data []byte, lw *transcript.LineWriter) {
	defer close(p.fed)
	defer p.inFile.Close()
	defer lw.Close()
	const maxChunk = 64 << 10
	for len(data) > 0 {
		n := bytes.IndexByte(data, '\n') + 1
		if n <= 0 || n > maxChunk {
			n = min(len(data), maxChunk)
		}
		w, err := p.inFile.Write(data[:n])
		lw.Write(data[:w])
		if err != nil {
			return
		}
		data = data[n:]
	}
}

// wait reaps the process and records how it ended. A boxed program's end is the one the
// init of its PID namespace reports: the init itself stays until the run's last process
// has ended (those the harness finds left running included), and is reaped after.
func (p *Process) wait() {
	var st *os.ProcessState
	var err error
	var ws syscall.WaitStatus
	var ru syscall.Rusage
	reported := false
	if p.status != nil {
		rec, _ := io.ReadAll(io.LimitReader(p.status, int64(execrole.StatusSize)+1))
		p.status.Close()
		ws, ru, reported = execrole.ParseStatus(rec)
		p.folder = execrole.StatusFlags(rec)
		p.orphans = execrole.StatusOrphans(rec)
	}
	if !reported {
		st, err = p.proc.Wait()
	}
	p.ended = time.Now()
	// Let the program's last output reach the transcript before its exit, unless some
	// other process holds the pipe open.
	grace := make(chan struct{})
	t := time.AfterFunc(100*time.Millisecond, func() { close(grace) })
	defer t.Stop()
	for _, c := range []*capture{p.outCap, p.errCap} {
		if c == nil {
			continue
		}
		select {
		case <-c.done:
		case <-grace:
		}
	}
	log := p.g.cfg.Transcript
	if err != nil {
		p.exit = Exit{Code: -1}
		log.Notef(transcript.Harness, "wait for %s: %v", p.Name, err)
	} else {
		if reported {
			p.rusage = &ru
		} else {
			ws = st.Sys().(syscall.WaitStatus)
			p.rusage, _ = st.SysUsage().(*syscall.Rusage)
		}
		if ws.Signaled() {
			p.exit = Exit{Signal: ws.Signal(), Core: ws.CoreDump()}
			log.Killed(p.Name, p.pid, ws.Signal())
		} else {
			p.exit = Exit{Code: ws.ExitStatus()}
			log.Exited(p.Name, p.pid, ws.ExitStatus())
		}
	}
	if reported {
		go func() {
			p.proc.Wait()
			p.life.Close()
			close(p.initDone)
		}()
	} else if p.initDone != nil {
		p.life.Close()
		close(p.initDone)
	}
	close(p.done)
}

// Pid returns the program's process id (not the init's of its PID namespace, which the
// harness started for it: a signal sent to this pid reaches the program alone).
func (p *Process) Pid() int {
	if p.progPid > 0 {
		return p.progPid
	}
	return p.pid
}

// firstChild is the first child of process pid (its main thread's), or pid itself when it
// has none (it ended already).
func firstChild(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(pid) + "/children")
	if err != nil {
		return pid
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		if n, err := strconv.Atoi(f[0]); err == nil {
			return n
		}
	}
	return pid
}

// Stdin returns the caller's end of a Pipe stdin (nil for other kinds). Closing it sends
// end of file to the program.
func (p *Process) Stdin() io.WriteCloser {
	if p.stdin == nil {
		return nil
	}
	return p.stdin
}

// Stdout returns the caller's end of a Pipe stdout (nil for other kinds). It is closed
// when it reaches end of file; a caller that stops early closes it.
func (p *Process) Stdout() io.ReadCloser {
	if p.stdout == nil {
		return nil
	}
	return p.stdout
}

// Stderr is like Stdout, for stderr.
func (p *Process) Stderr() io.ReadCloser {
	if p.stderr == nil {
		return nil
	}
	return p.stderr
}

// Done is closed once the process has ended and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exit returns how the process ended; ok is false while it runs.
func (p *Process) Exit() (e Exit, ok bool) {
	select {
	case <-p.done:
		return p.exit, true
	default:
		return Exit{}, false
	}
}

// Signal sends sig to the process's group (the program and the children it did not move
// elsewhere), as a terminal would, and records it. It fails once the process has ended.
func (p *Process) Signal(sig syscall.Signal) error {
	select {
	case <-p.done:
		return os.ErrProcessDone
	default:
	}
	p.mu.Lock()
	p.signals = append(p.signals, sig)
	p.mu.Unlock()
	p.g.cfg.Transcript.SendSignal(transcript.Harness, p.Name, sig)
	if p.status != nil && p.progPid > 0 && p.progPid != p.pid {
		// A boxed program leads a process group of its own in its box (execrole's
		// pidns.go), apart from its init's: the signal goes to the program's group, as a
		// terminal's would; to the program alone when it left its group empty.
		if err := unix.Kill(-p.progPid, sig); err == nil {
			return nil
		}
		return unix.Kill(p.progPid, sig)
	}
	return unix.Kill(-p.pid, sig)
}

// Procs returns the processes in the order of their specs.
func (g *Group) Procs() []*Process { return g.procs }

// Process returns the process named name, or nil.
func (g *Group) Process(name string) *Process {
	for _, p := range g.procs {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Transcript returns the run's transcript.
func (g *Group) Transcript() *transcript.Log { return g.cfg.Transcript }

// Dir returns the run's private working directory.
func (g *Group) Dir() string { return g.dir }

// Stop ends the run now: FirstSignal to every process still running, SIGKILL after Grace,
// then the same clean-up and audit as Wait, whose result it returns.
func (g *Group) Stop() *Result {
	g.stopOnce.Do(func() { close(g.stop) })
	return g.Wait()
}

// Wait waits until every process has ended or the deadline passes (then diagnoses the
// hang and stops them), kills whatever the run left behind, audits it, and returns the
// result. Later calls return the same result.
func (g *Group) Wait() *Result {
	g.once.Do(g.finish)
	return g.res
}
