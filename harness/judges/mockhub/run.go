package mockhub

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"gauntlet/harness/box/sandbox"
	"gauntlet/harness/judges/outcome"
	"gauntlet/harness/runtime/child"
	"gauntlet/harness/runtime/limitkill"
	"gauntlet/harness/runtime/transcript"
)

// Result is how a conversation went.
type Result struct {
	OK     bool
	Steps  int    // steps completed
	Failed *Step  // the step where the player diverged, when not OK
	Want   string // what that step expected
	Got    string // what the player did instead
	Status string // how the player ended: "exit status N", "killed by SIGNAME", or "killed by the mock hub"
	// Divergence is the conversation as it went up to the failed step, when not OK.
	Divergence *transcript.Divergence
	// Text, when set, is the whole report (a probe's: RegisterProbe).
	Text string
	// Kind is what happened at the failed step, for the grader (outcome.Kind), when not
	// OK; Signal and Limit are set for outcome.Signal and outcome.Limit.
	Kind   outcome.Kind
	Signal string
	Limit  string
	// LineDue and Partial are the record's (outcome.Record): nothing of a line that was due
	// came, or a line without its newline and then nothing more.
	LineDue, Partial bool
}

// Record is the result's account for the grader (see package outcome): the kind, the
// step, what was wanted and what came, and the report's first line as its message.
func (r Result) Record() outcome.Record {
	line, _, _ := strings.Cut(r.Report(), "\n")
	rec := outcome.Record{Kind: r.Kind, Want: r.Want, Got: r.Got, Signal: r.Signal, Limit: r.Limit,
		LineDue: r.LineDue, Partial: r.Partial, Message: line}
	if r.Failed != nil {
		rec.Step = r.Steps + 1
	}
	return rec
}

// DivergenceHeader introduces the conversation that follows a FAIL line in Report; the
// grader looks for it.
const DivergenceHeader = "the conversation, step by step, up to the first divergence from the engine's:"

// DivergenceContext is how many steps before the divergence Report shows.
const DivergenceContext = 20

// Report is an account of the result, for people: one line, and when the player diverged,
// the conversation up to that point with the divergence marked.
func (r Result) Report() string {
	if r.Text != "" {
		return r.Text
	}
	if r.OK {
		return fmt.Sprintf("ok: %d steps matched; player: %s", r.Steps, r.Status)
	}
	s := fmt.Sprintf("FAIL at step %d (line %d of the conversation: %s): want %s, got %s; player: %s",
		r.Steps+1, r.Failed.Source, r.Failed, r.Want, r.Got, r.Status)
	if r.Divergence != nil {
		s += "\n" + DivergenceHeader + "\n" + strings.TrimSuffix(r.Divergence.Text("  ", DivergenceContext), "\n")
	}
	return s
}

// Options tune a run.
type Options struct {
	StepTimeout time.Duration // how long to wait for the player at one step (default 5s)
	Stderr      io.Writer     // where the player's stderr goes (default: discarded)
	Subject     *Subject      // the user and folder to start the player as and in (nil: as the mock hub)
}

// Subject is the user a root mock hub starts the player as, and its working folder.
type Subject struct {
	UID, GID uint32
	Dir      string
	// Keep, for a judge that is not root (a rootless grade: UID and GID are 0), lists
	// the folders of the box the judge starts the subject in: its own box/ and the
	// programs, never the case's script (see harness/box/sandbox's rootless.go).
	Keep []string `json:",omitempty"`
	// Hide lists folders of Keep that the subject's box covers (the grader's own folder
	// of programs, which the judge runs from: scriptcmds.Settings.BoxHide).
	Hide []string `json:",omitempty"`
	// Disk, for such a judge, bounds all the files of the subject's folder together
	// (sandbox.Box.WorkDisk: the case's -case-disk, as a root grader's box/ is a tmpfs).
	Disk int64 `json:",omitempty"`
}

// Run starts prog with the conversation's arguments and plays the conversation, or runs
// its probe (RegisterProbe). Whatever happens, the player's process group is killed and
// reaped before Run returns.
func Run(c *Conversation, prog string, opt Options) (Result, error) {
	if opt.StepTimeout <= 0 {
		opt.StepTimeout = 5 * time.Second
	}
	if c.Probe != nil {
		return c.Probe.Spec.Run(prog, c.Args, opt)
	}
	wire := child.Pipes
	switch {
	case c.TCP:
		wire = child.Serve
	case c.Connect:
		wire = child.Connect
	}
	p, err := start(prog, c.Args, wire, opt.Stderr, opt.Subject, opt.StepTimeout)
	if err != nil {
		if why := cannotRun(err); why != nil && len(c.Steps) > 0 {
			// The player's own file does not run (a program hidden in a folder its user
			// cannot search, a script whose interpreter is missing, not a program at all):
			// the player fails the case at its first step, as a player that starts and
			// says nothing would. It is not the judge's error (a HARNESS-ERROR would leave
			// the case out of the marks).
			st := &c.Steps[0]
			got := "a player that cannot be started (" + why.Error() + ")"
			return Result{Failed: st, Want: "the player to start", Got: got, Status: "not started", Kind: outcome.Diverged,
				Divergence: &transcript.Divergence{First: 1, Got: got, Want: "the player to start"}}, nil
		}
		return Result{}, err
	}
	defer p.kill()
	res := Result{OK: true}
	var done []string
	var lv *liveGame
	for i := range c.Steps {
		st := &c.Steps[i]
		var want, got string
		var ok bool
		if st.Kind == Live {
			if lv == nil {
				if lv, err = newLiveGame(c.Judge); err != nil {
					return Result{}, err
				}
			}
			if want, got, ok, err = p.live(st, lv, opt.StepTimeout, &done); err != nil {
				return Result{}, err
			}
		} else {
			want, got, ok = p.step(st, opt.StepTimeout)
		}
		if !ok {
			res = Result{Failed: st, Want: want, Got: got, Steps: i, Divergence: &transcript.Divergence{
				Before: done, First: 1, Got: describeGot(st, got), Want: describeWant(st, want)}}
			break
		}
		if st.Kind != Live {
			done = append(done, describeStep(st))
		}
		res.Steps = i + 1
	}
	res.Status = p.finish()
	if !res.OK {
		res.Kind, res.Signal, res.Limit = p.kind(res.Failed)
		res.LineDue = res.Kind == outcome.Silent && p.nothing && (res.Failed.Kind == Expect || res.Failed.Kind == Hello)
		res.Partial = p.partial
	}
	return res, nil
}

// kind says what happened at the failed step st, once the player has ended: a limit that
// killed the player wherever the conversation says it (the step's got, or how the player
// ended after a divergence); a death by another signal at an exit step; a step that timed
// out; another exit status at an exit step; else a divergence.
func (p *proc) kind(st *Step) (k outcome.Kind, signal, limit string) {
	if p.signal != 0 {
		signal = transcript.SignalName(p.signal)
	}
	switch {
	case p.signal == syscall.SIGXCPU, p.limitKill == limitkill.CPU:
		// (A SIGKILL at the CPU limit, a wrapper's 152: limitkill.)
		return outcome.Limit, signal, "cpu"
	case p.signal == syscall.SIGXFSZ, p.limitKill == limitkill.FileSize:
		return outcome.Limit, signal, "file-size"
	case st.Kind == Exit && p.exitSignal != 0:
		return outcome.Signal, transcript.SignalName(p.exitSignal), ""
	case p.silent:
		return outcome.Silent, signal, ""
	case st.Kind == Exit && !p.stillRunning:
		return outcome.Exit, signal, ""
	}
	return outcome.Diverged, signal, ""
}

type proc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser // the player's stdin, or the write side of its connection
	out    chan chunk     // what the player writes, as it comes; closed at EOF
	buf    []byte
	eof    bool
	exited chan struct{}
	status string
	signal syscall.Signal // the signal that killed the player, once it has ended
	limit  string         // limitkill's note on status when a limit ended the player, else ""
	// limitKill is the limit that ended the player (limitkill.None: none).
	limitKill limitkill.Limit
	killed    bool
	// pid is the player program's pid for a signal step: the command's own, or, in a box
	// of the judge's (subjectConfig), the program's below its supervisor (0: not found).
	pid func() int
	// What the failed step saw: a timeout (silent), an exit step's player killed by a
	// signal (exitSignal) or still running at the step's end.
	silent       bool
	exitSignal   syscall.Signal
	stillRunning bool
	// nothing: nothing came of the line the failed step awaited; partial: a line without
	// its newline came, and then nothing more (silence or EOF).
	nothing, partial bool
}

// start starts a player that talks over wire (pipes, or TCP as the mock hub's client or
// server); timeout bounds its connecting. Over TCP its real stdout is discarded (but for
// the "port N" line of a server).
func start(prog string, args []string, wire child.Wire, stderr io.Writer, subj *Subject, timeout time.Duration) (*proc, error) {
	c, err := child.Start(spec(prog, args, wire, stderr, subj, timeout))
	if err != nil {
		return nil, fmt.Errorf("cannot start %s: %w", prog, err)
	}
	p := &proc{cmd: c.Cmd, stdin: c.In, out: make(chan chunk, 16), exited: make(chan struct{})}
	p.pid = func() int { return c.Cmd.Process.Pid }
	if cfg, boxed := subjectConfig(subj); boxed {
		p.pid = func() int { return sandbox.ProgramPid(cfg, c.Cmd) }
	}
	go p.read(c.Out)
	go p.wait()
	return p, nil
}

// cannotRun is why the exec of the player's file failed, when start's error is that: the
// file missing, not executable by the player's user, not a program the kernel can run, or
// a script whose interpreter is missing. Nil for any other error (the judge's own).
func cannotRun(err error) error {
	var pe *fs.PathError
	if !errors.As(err, &pe) || !strings.Contains(pe.Op, "exec") {
		return nil
	}
	for _, e := range []error{syscall.ENOENT, syscall.EACCES, syscall.ENOEXEC, syscall.ELOOP, syscall.ENOTDIR, syscall.EISDIR, syscall.ENAMETOOLONG} {
		if errors.Is(pe.Err, e) {
			return pe.Err
		}
	}
	return nil
}

// spec is the start of a subject program a judge runs: its own process group, the
// environment of a subject (child.SubjectEnv: the judge's environment is the script's,
// which names the harness's programs and settings: given them, a subject could play the
// mock player as the reference player in its place), and, as a root mock hub's
// subject, its own user (no supplementary groups) and folder.
func spec(prog string, args []string, wire child.Wire, stderr io.Writer, subj *Subject, timeout time.Duration) child.Spec {
	s := child.Spec{Path: prog, Args: args, Wire: wire, Timeout: timeout, Stderr: stderr, Group: true,
		Env: child.SubjectEnv(os.Environ(), "")}
	if subj != nil {
		// Graded: in a box, whose /tmp is the subject's own.
		env := child.SubjectEnv(os.Environ(), "/tmp")
		s.Env = nil
		s.Dir = subj.Dir
		if subj.UID != 0 {
			s.User = &syscall.Credential{Uid: subj.UID, Gid: subj.GID, Groups: []uint32{}}
			s.Env = env
		} else {
			cfg, _ := subjectConfig(subj)
			s.Build = func(path string, args []string) *exec.Cmd { return sandbox.Command(cfg, env, path, args...) }
		}
	}
	return s
}

// subjectConfig is the sandbox of the subject subj, and whether it has one: a judge that is
// not root boxes the subject (which has the judge's user) apart from the case's script, in
// a box of its own, in the judge's network namespace (the case's own), under the limits
// the judge has.
func subjectConfig(subj *Subject) (sandbox.Config, bool) {
	if subj == nil || subj.UID != 0 {
		return sandbox.Config{}, false
	}
	box := &sandbox.Box{Keep: subj.Keep, Hide: subj.Hide, SameNet: true, WorkDisk: subj.Disk}
	return sandbox.Config{Identity: sandbox.Identity{Same: true}, Box: box, Limits: sandbox.Limits{
		CPU: sandbox.Unlimited, AddressSpace: sandbox.Unlimited, Processes: sandbox.Unlimited,
		FileSize: sandbox.Unlimited, OpenFiles: sandbox.Unlimited}}, true
}

// Command is the command of a subject program a judge starts and wires itself (see spec).
func Command(prog string, args []string, stderr io.Writer, subj *Subject) *exec.Cmd {
	return child.Command(spec(prog, args, child.Pipes, stderr, subj, 0))
}

// read passes what the player writes to p.out in chunks, and closes it at the end.
func (p *proc) read(r io.ReadCloser) {
	defer close(p.out)
	defer r.Close()
	for {
		b := make([]byte, 4096)
		n, err := r.Read(b)
		if n > 0 {
			p.out <- chunk{b[:n], time.Now()}
		}
		if err != nil {
			return
		}
	}
}

// wait records how the player ended.
func (p *proc) wait() {
	err := p.cmd.Wait()
	p.status = "exit status 0"
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		var sig syscall.Signal
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			sig = ws.Signal()
			p.status = "killed by " + transcript.SignalName(sig)
			p.signal = sig
		} else {
			p.status = fmt.Sprintf("exit status %d", ee.ExitCode())
		}
		// The player inherits this process's limits: a limit that ended it is said, so
		// that the grader and the fuzzers tell it from a crash or a broken rule (a
		// SIGKILL at the CPU limit, a wrapper's 152).
		cpu := ee.UserTime() + ee.SystemTime()
		if l := limitkill.Of(sig, ee.ExitCode(), cpu, limitkill.SoftCPU()); l != limitkill.None {
			p.limit, p.limitKill = limitkill.Note(l, sig, cpu), l
		}
	}
	close(p.exited)
}

// chunk is some bytes the player wrote, and when the mock hub's reader got them.
type chunk struct {
	b  []byte
	at time.Time
}

// fill waits until the buffer holds what until asks for, or EOF, or the deadline (the
// timer, firing at by). Bytes read after by are late even when the mock hub sees them and
// the timer at once (a loaded machine can delay it past both): they are kept for the
// account, and the step has timed out.
func (p *proc) fill(deadline <-chan time.Time, by time.Time, until func([]byte) bool) (timedOut bool) {
	for !until(p.buf) && !p.eof {
		select {
		case c, ok := <-p.out:
			if !ok {
				p.eof = true
				return false
			}
			p.buf = append(p.buf, c.b...)
			if c.at.After(by) {
				return true
			}
		case <-deadline:
			return true
		}
	}
	return false
}

func hasLine(b []byte) bool {
	for _, c := range b {
		if c == '\n' {
			return true
		}
	}
	return false
}

// step performs one step; on a divergence it returns what was wanted and what came.
func (p *proc) step(st *Step, timeout time.Duration) (want, got string, ok bool) {
	timer, by := time.NewTimer(timeout), time.Now().Add(timeout)
	defer timer.Stop()
	switch st.Kind {
	case Send:
		p.stdin.Write([]byte(st.Text + "\n"))
	case SendRaw:
		p.stdin.Write([]byte(st.Text))
	case Close:
		p.stdin.Close()
	case Signal:
		// To the player alone, as a hub's kill(pid, sig); a boxed player not found below
		// its supervisor gets it through its group, which the supervisor ignores.
		if pid := p.pid(); pid > 0 {
			syscall.Kill(pid, syscall.Signal(st.Signal))
		} else {
			syscall.Kill(-p.cmd.Process.Pid, syscall.Signal(st.Signal))
		}
	case Sleep:
		time.Sleep(st.Delay)
	case Hello:
		n := len(st.Text)
		timedOut := p.fill(timer.C, by, func(b []byte) bool { return len(b) >= n })
		return p.take(strconv.Quote(st.Text), n, timedOut, timeout)
	case ExpectAny:
		timedOut := p.fill(timer.C, by, hasLine)
		if !hasLine(p.buf) {
			return p.take("a line", len(p.buf), timedOut, timeout)
		}
		p.buf = p.buf[bytes.IndexByte(p.buf, '\n')+1:]
	case Expect:
		timedOut := p.fill(timer.C, by, hasLine)
		want := strconv.Quote(st.Text + "\n")
		if !hasLine(p.buf) {
			return p.take(want, len(p.buf), timedOut, timeout)
		}
		n := 0
		for p.buf[n] != '\n' {
			n++
		}
		return p.take(want, n+1, false, timeout)
	case ExpectUnordered:
		left := st.Unordered()
		for len(left) > 0 {
			timedOut := p.fill(timer.C, by, hasLine)
			want := "one of " + quoteAll(left)
			if !hasLine(p.buf) {
				return p.take(want, len(p.buf), timedOut, timeout)
			}
			line := string(p.buf[:bytes.IndexByte(p.buf, '\n')])
			i := slices.Index(left, line)
			if i < 0 {
				return p.take(want, len(line)+1, false, timeout)
			}
			p.buf = p.buf[len(line)+1:]
			left = slices.Delete(left, i, i+1)
		}
	case EOF:
		timedOut := p.fill(timer.C, by, func(b []byte) bool { return len(b) > 0 })
		if timedOut {
			p.silent = true
			return "EOF", fmt.Sprintf("nothing within %v (stdout still open)", timeout), false
		}
		if len(p.buf) > 0 {
			return "EOF", strconv.Quote(string(p.buf)), false
		}
	case End:
		// Not checked: wait for the player to exit, throwing its stdout away, and let finish
		// kill it if it does not.
		for {
			select {
			case <-p.exited:
				return "", "", true
			case <-timer.C:
				return "", "", true
			case _, ok := <-p.out:
				if !ok {
					p.eof = true
					select {
					case <-p.exited:
					case <-timer.C:
					}
					return "", "", true
				}
			}
		}
	case Exit:
		select {
		case <-p.exited:
		case <-timer.C:
			p.stillRunning = true
			return st.String(), fmt.Sprintf("still running after %v", timeout), false
		}
		want := fmt.Sprintf("exit status %d", st.Status)
		if st.Signal != 0 {
			want = "killed by " + transcript.SignalName(syscall.Signal(st.Signal))
		}
		if p.status != want {
			p.exitSignal = p.signal
			return want, p.status + p.limit, false
		}
	}
	return "", "", true
}

// quoteAll quotes each line with its newline, separated by spaces.
func quoteAll(lines []string) string {
	q := make([]string, len(lines))
	for i, l := range lines {
		q[i] = strconv.Quote(l + "\n")
	}
	return strings.Join(q, " ")
}

// take removes n bytes from the buffer and compares them with the wanted (quoted) text.
func (p *proc) take(want string, n int, timedOut bool, timeout time.Duration) (string, string, bool) {
	n = min(n, len(p.buf))
	got := string(p.buf[:n])
	p.buf = p.buf[n:]
	if strconv.Quote(got) == want {
		return "", "", true
	}
	p.silent = timedOut
	switch {
	case timedOut && got == "":
		p.nothing = true
		return want, fmt.Sprintf("nothing within %v", timeout), false
	case timedOut:
		p.partial = true
		return want, fmt.Sprintf("%q and then nothing within %v", got, timeout), false
	case p.eof && got == "":
		return want, "EOF", false
	case p.eof && !hasLine([]byte(got)):
		p.partial = true
		return want, fmt.Sprintf("%q and then EOF", got), false
	}
	return want, strconv.Quote(got), false
}

// finish ends the run: it gives a player that is still running a moment to exit, then kills
// its process group, and returns how it ended.
func (p *proc) finish() string {
	select {
	case <-p.exited:
	case <-time.After(100 * time.Millisecond):
		p.kill()
		p.killed = true
	}
	<-p.exited
	if p.killed {
		return "killed by the mock hub at the end (" + p.status + ")"
	}
	return p.status + p.limit
}

func (p *proc) kill() {
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	p.stdin.Close()
}

// describeStep renders a step as a line of the conversation, in the style of transcript's
// text: "hub -> player | turn 123AAA", "player -> hub | ! [no newline]", or the step itself
// for the ones that carry no line ("hub: close", "player: exit 0").
func describeStep(st *Step) string {
	switch st.Kind {
	case Hello, Expect:
		return "player -> hub | " + showLine(st.Text, st.Kind == Expect)
	case ExpectAny:
		return "player -> hub | (a line)"
	case ExpectUnordered:
		var ls []string
		for _, t := range st.Unordered() {
			ls = append(ls, showLine(t, true))
		}
		return "player -> hub | " + strings.Join(ls, ", ") + " (in any order)"
	case Send, SendRaw:
		return "hub -> player | " + showLine(st.Text, st.Kind == Send)
	case Close, Signal, Sleep, End:
		return "hub: " + st.String()
	}
	return "player: " + st.String()
}

// describeWant renders what a failed step wanted: the step itself, or for a live step what
// the rules allowed there.
func describeWant(st *Step, want string) string {
	if st.Kind == Live {
		return "player -> hub | " + want
	}
	return describeStep(st)
}

// describeGot renders what the player did at a failed step: its bytes as a line when got is
// a quoted string, else got's own words ("nothing within 5s", "exit status 1").
func describeGot(st *Step, got string) string {
	if text, err := strconv.Unquote(got); err == nil {
		line, full := strings.CutSuffix(text, "\n")
		return "player -> hub | " + showLine(line, full)
	}
	if st.Kind == Exit {
		return "player: " + got
	}
	return "player -> hub | " + got
}

// showLine escapes a line's bytes, and says when it had no newline.
func showLine(text string, newline bool) string {
	s := transcript.Escape([]byte(text))
	if !newline {
		s += " [no newline]"
	}
	return s
}
