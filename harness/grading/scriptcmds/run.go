package scriptcmds

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"gauntlet/harness/box/hygiene"
	"gauntlet/harness/box/sandbox"
	"gauntlet/harness/judges/faults"
	"gauntlet/harness/judges/mockhub"
	"gauntlet/harness/judges/outcome"
)

// Run runs a program and checks its exit status. Its stdout and stderr become the script's
// stdout and stderr (for cmp, stdout, stderr), kept up to 1 MiB each.
//
//	run -status 1 2310dealer onlyone     # must exit with status 1
//	run -status signal:SEGV ./crasher     # must die by SIGSEGV
//	run -status any -timeout 5s ./prog   # any status, but within 5 seconds
//	run -signal HUP -after-stdout 'Player 0' -status any 2310dealer d p 2310A 2310A
//	run -env PORT server $PORT &srv&     # in the background: `await srv` checks it
//
// The program runs in its own process group, in the script's current directory, with the
// script's environment (a variable the script set itself must be named with -env NAME).
// At the deadline (default 10s, or the grader's Settings.Timeout) the whole group is killed and the command fails. When the
// program has exited, anything still running in its group is killed and the command fails:
// a program must not leave processes behind. (`noprocs` also finds those that left the group.)
//
// A last argument `&` or `&NAME&` runs the program in the background, as testscript's exec
// does: the command returns at once, and `await` (NAME, or all) waits for it and makes the
// same checks. In a graded case, the runs of the case meet on one loopback, the case's
// (see network).
func Run(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		harnessFail(ts, "run: use -status instead of '!'")
	}
	bgName, background := "", false
	if n := len(args); n > 0 && backgroundMark.MatchString(args[n-1]) {
		bgName, background = strings.Trim(args[n-1], "&"), true
		args = args[:n-1]
	}
	r := startRun(ts, args, background)
	if background {
		backgroundRuns(ts).add(ts, bgName, r)
		return
	}
	r.finish(ts)
}

// backgroundMark is a last argument that sends a run to the background: & or &NAME&.
var backgroundMark = regexp.MustCompile(`^&(\w+&)?$`)

// aRun is a program run started: what its checks need once it ends.
type aRun struct {
	activity         *Activity // the script's, when its grader watches it (ActivityKey)
	name             string    // the program as the script wrote it
	status           string
	timeout          time.Duration
	sig              syscall.Signal
	noFiles          bool
	reaped           bool // -reaped: the program must have reaped every child it started
	allowLeft        map[string]bool
	judge            bool
	judgeFile        string // where a judge writes its record (outcome.Var)
	box              *caseBox
	cwd, boxCwd      string
	stdin            *os.File
	g                *sandbox.Group
	out, errOut      boundedBuffer
	done             chan struct{} // closed once the program ended and its streams drained
	res              *sandbox.Result
	sent, overflowed bool
	sentAfter        time.Duration // when the signal went, for the log
	// heldOpen: the program's output was still held open once the run had ended and the
	// sandbox had killed all it found of it, and its reading was cut off.
	heldOpen bool
	// witness is the script's witness holder, whose mock players with ended stand-ins are
	// ended before an output held open is blamed on the program (see watch).
	witness *witnessHolder
	// door is the witness's door handed to the program (nil: the script has no witness):
	// what came through it that no stand-in sends is charged to the run (door.refusals).
	door *door
}

// outputDrain is how long the reading of a program's output may go on once its run has
// ended: whatever still holds the pipes then is something the sandbox could not find,
// and the harness must not wait on it for ever.
const outputDrain = 2 * time.Second

// startRun parses run's arguments, starts the program and watches it until it ends, in a
// goroutine of its own.
func startRun(ts *testscript.TestScript, args []string, background bool) *aRun {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	status := fs.String("status", "0", "expected exit status: N, signal:NAME, or any; alternatives after commas")
	timeout := fs.Duration("timeout", runTimeout(ts), "deadline")
	stdin := fs.String("stdin", "", "file to use as stdin (default: empty)")
	sigName := fs.String("signal", "", "signal to send")
	after := fs.Duration("after", 0, "send the signal this long after the start")
	afterOut := fs.String("after-stdout", "", "send the signal once stdout contains this text")
	afterErr := fs.String("after-stderr", "", "send the signal once stderr contains this text")
	noFiles := fs.Bool("nofiles", false, "also fail when the program creates or changes files in the folder")
	reaped := fs.Bool("reaped", false, "also fail when the program ended leaving a process it started for its box to reap (it must kill and reap its children itself)")
	allowLeft := map[string]bool{}
	fs.Func("allow", "a process of this command name left running is killed without failing (repeatable)", func(s string) error { allowLeft[s] = true; return nil })
	var extraEnv []string
	fs.Func("env", "pass this script variable too", func(s string) error { extraEnv = append(extraEnv, s); return nil })
	if err := fs.Parse(args); err != nil {
		harnessFail(ts, "run: %v\n%s", err, usage("run"))
	}
	if fs.NArg() == 0 {
		harnessFail(ts, "%s", usage("run"))
	}
	recordRun(ts, RunRecord{Program: fs.Arg(0), Args: fs.Args()[1:], Judge: IsJudge(filepath.Base(fs.Arg(0)))})
	r := &aRun{name: fs.Arg(0), status: *status, timeout: *timeout, noFiles: *noFiles, reaped: *reaped,
		allowLeft: allowLeft, done: make(chan struct{})}
	if *sigName != "" {
		s, err := faults.ParseSignal(*sigName)
		if err != nil {
			harnessFail(ts, "run: %v", err)
		}
		r.sig = s
	}
	// The program is looked up in the script's PATH, not the test process's.
	prog := fs.Arg(0)
	if strings.Contains(prog, "/") {
		prog = ts.MkAbs(prog)
	} else if p, err := lookPath(prog, ts.Getenv("PATH")); err == nil {
		prog = p
	} else {
		fail(ts, outcome.Record{Kind: outcome.Missing, Program: prog}, "run: %s: executable file not found in $PATH", prog)
	}
	stdinStream := sandbox.Null
	if *stdin != "" {
		f, err := os.Open(ts.MkAbs(*stdin))
		ts.Check(err)
		r.stdin = f
		stdinStream = sandbox.File(f)
	}
	// The program runs in the sandbox (its own session and process group, resource limits,
	// the deadline, the hygiene audit) in the script's folder: as a sandbox user of its own
	// that is handed the folder when the grader's settings ask for one (Settings.SandboxUser),
	// else as the harness's own user.
	set := settings(ts)
	cfg := sandbox.Config{
		Limits:      set.Limits,
		WorkDir:     ts.MkAbs("."),
		Identity:    sandbox.Identity{Same: !set.SandboxUser},
		GiveWorkDir: true,
		Deadline:    *timeout,
	}
	r.box, _ = ts.Value(caseBoxKey{}).(*caseBox)
	r.witness, _ = ts.Value(witnessKey{}).(*witnessHolder)
	r.judge = judges[filepath.Base(prog)]
	if r.judge {
		cfg.Env = environ(ts, extraEnv)
		// The judge's account comes back in a file of the case's folder, which the subject
		// cannot reach (see outcome.go).
		f, err := os.CreateTemp(filepath.Dir(ts.Getenv("WORK")), "judge-outcome-*.jsonl")
		if err != nil {
			harnessFail(ts, "run: harness error: the judge's record: %v", err)
		}
		f.Close()
		r.judgeFile = f.Name()
		cfg.Env = append(cfg.Env, outcome.Var+"="+r.judgeFile)
	} else {
		cfg.Env = subjectEnviron(ts, extraEnv, r.box != nil)
	}
	r.cwd = ts.MkAbs(".")
	if box := r.box; box != nil {
		var err error
		if r.boxCwd, err = box.dirs(r.cwd); err != nil {
			box.folderFail(ts, "run: "+fs.Arg(0)+": its folder", err)
		}
		// Graded: the judge runs as root in the script's folder and starts the subject as
		// the case's user in box/; the subject runs as that user in box/, with its inputs.
		// A subject's box holds box/ and bin/ of the case, not its script (a judge's
		// holds the whole case folder).
		cfg.Box = &sandbox.Box{Keep: box.keep, Hide: box.hide}
		if r.judge {
			// The subject the judge starts works in box/, and the judge writes its record
			// (a rootless box binds the rest of what a judge keeps read-only).
			cfg.Box.Keep, cfg.Box.Writable, cfg.Box.Hide = box.judgeKeep, []string{box.box, r.judgeFile}, nil
			cfg.Box.Nested = true // a rootless judge boxes its subject
		}
		cfg.Box.Net = box.network()
		if box.noBox {
			cfg.Box = nil
		}
		cfg.GiveWorkDir = false
		if box.group != nil {
			cfg.Cgroup = box.group.ProcFiles()
		}
		switch {
		case r.judge && box.lease == nil:
			// Rootless: the judge boxes the subject itself (mockhub.Subject).
			cfg.Identity = sandbox.Identity{Same: true}
			subj, err := json.Marshal(mockhub.Subject{Dir: r.boxCwd, Keep: box.keep, Hide: box.hide, Disk: box.disk})
			if err != nil {
				ts.Fatalf("run: harness error: %v", err)
			}
			cfg.Env = append(cfg.Env, mockhub.SubjectEnv+"="+string(subj))
		case r.judge:
			cfg.Identity = sandbox.Identity{Same: true, Delegate: box.lease}
			cfg.Env = append(cfg.Env, fmt.Sprintf("%s=%d:%d:%s", mockhub.SubjectEnv, box.lease.UID(), box.lease.GID(), r.boxCwd))
		default:
			if err := box.giveInputs(r.cwd, r.boxCwd, fs.Args()[1:]); err != nil {
				box.folderFail(ts, "run: "+fs.Arg(0)+": its inputs", err)
			}
			cfg.Identity = sandbox.Identity{Lease: box.lease}
			if box.lease == nil {
				cfg.Identity = sandbox.Identity{Same: true}
			}
			cfg.WorkDir = r.boxCwd
			if cfg.Box != nil { // (none where the machine gives no namespaces)
				cfg.Box.WorkDisk = box.disk // (a rootless box's: see caseBox.disk)
			}
		}
	}
	// The witness's door, at its descriptor: the stand-ins the program starts reach the
	// witness through it alone (a judge passes it on to its subject).
	door, err := r.witness.openDoor()
	if err != nil {
		harnessFail(ts, "run: harness error: the witness's door: %v", err)
	}
	r.door = door
	// Named after its program, as a diagnosis shows it: a run may be a reference program
	// (the reference hub of a player's case), which is nobody's "subject".
	g, err := sandbox.Start(cfg, sandbox.Spec{Name: filepath.Base(prog), Path: prog, Args: fs.Args()[1:],
		Stdin: stdinStream, Stdout: sandbox.Pipe, Stderr: sandbox.Pipe, ExtraFiles: door.runFiles()})
	if err != nil {
		door.close()
		if r.stdin != nil {
			r.stdin.Close()
		}
		if r.judgeFile != "" {
			os.Remove(r.judgeFile)
		}
		// A program that is not there (the subject's, unbuilt or removed) is told from the
		// harness's failure to start one by the error and the file, not by the message.
		rec := outcome.Record{Kind: outcome.Harness, Program: fs.Arg(0)}
		var full *sandbox.FolderOverBoundError
		switch {
		case errors.Is(err, os.ErrNotExist) || notThere(prog):
			rec.Kind = outcome.Missing
		case errors.As(err, &full) && r.box != nil && r.box.subjectRan:
			// The subject's folder filled past its bound by its earlier runs.
			rec.Kind, rec.Limit = outcome.Limit, caseDisk
		}
		fail(ts, rec, "run: %s: %v", fs.Arg(0), err)
	}
	r.g = g
	if r.box != nil {
		r.box.subjectRan = true
	}
	if a, ok := ts.Value(ActivityKey{}).(*Activity); ok {
		r.activity = a
		a.add(g)
	}
	go r.watch(*after, *afterOut, *afterErr)
	return r
}

// watch drains the program's streams, sends the signal at its moment, stops the program
// once an output passed the capture bound, and records how the run ended.
func (r *aRun) watch(after time.Duration, afterOut, afterErr string) {
	defer close(r.done)
	if r.activity != nil {
		defer r.activity.remove(r.g)
	}
	p := r.g.Procs()[0]
	var readers sync.WaitGroup
	for _, c := range []struct {
		r   io.Reader
		dst *boundedBuffer
	}{{p.Stdout(), &r.out}, {p.Stderr(), &r.errOut}} {
		readers.Add(1)
		go func(src io.Reader, dst *boundedBuffer) {
			defer readers.Done()
			io.Copy(dst, src)
		}(c.r, c.dst)
	}
	start := time.Now()
	r.sent = r.sig == 0
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	// The sandbox enforces the deadline while it waits; watch the output meanwhile.
	finished := make(chan *sandbox.Result, 1)
	go func() { finished <- r.g.Wait() }()
watch:
	for {
		select {
		case r.res = <-finished:
			break watch
		case <-tick.C:
			if r.out.overflowed() || r.errOut.overflowed() {
				// Past the capture bound the rest would be thrown away: stop it now.
				r.overflowed = true
				r.res = r.g.Stop()
				break watch
			}
			if r.sent {
				continue
			}
			ready := (afterOut == "" && afterErr == "" && time.Since(start) >= after) ||
				(afterOut != "" && r.out.contains(afterOut)) ||
				(afterErr != "" && r.errOut.contains(afterErr))
			if ready {
				// To the program only, not its group: a hub's players must not get it too.
				syscall.Kill(p.Pid(), r.sig)
				r.sentAfter = time.Since(start)
				r.sent = true
			}
		}
	}
	// Everything of the run is gone (its box, its stand-ins): so are the mock players its
	// door let in, whatever holds their connections.
	r.door.close()
	drained := make(chan struct{})
	go func() {
		readers.Wait()
		close(drained)
	}()
	select {
	case <-drained:
	case <-time.After(outputDrain):
		// A mock player holding a stream its stand-in handed over is the harness's to end:
		// it is, now, and the reading gets as long again to end.
		if r.witness != nil && r.witness.w != nil && r.witness.w.endOrphans() > 0 {
			select {
			case <-drained:
			case <-time.After(outputDrain):
			}
		}
	}
	select {
	case <-drained:
	default:
		r.heldOpen = true
		for _, s := range []io.Reader{p.Stdout(), p.Stderr()} {
			if c, ok := s.(io.Closer); ok {
				c.Close() // the blocked read returns
			}
		}
		<-drained
	}
	if r.stdin != nil {
		r.stdin.Close()
	}
}

// stop ends a run that is still going (a background run nobody awaited) and waits for it.
func (r *aRun) stop() {
	r.g.Stop()
	<-r.done
	if r.judgeFile != "" {
		os.Remove(r.judgeFile)
	}
}

// finish waits for the run to end, makes its output the script's, and checks it: the exit
// status, the deadline, the limits, the capture bound and what it left behind.
func (r *aRun) finish(ts *testscript.TestScript) {
	<-r.done
	if r.sig != 0 && r.sent {
		ts.Logf("run: sent %v to %s after %v", r.sig, r.name, r.sentAfter.Round(time.Millisecond))
	}
	if r.box != nil {
		if err := r.box.takeResults(r.cwd, r.boxCwd); err != nil {
			r.box.folderFail(ts, "run: "+r.name+": its results", err)
		}
	}
	res := r.res
	pr := res.Procs[0]
	totals := ""
	if r.box != nil {
		totals = r.box.totalsReached()
	}
	if r.judge && pr.Exit != (sandbox.Exit{}) {
		// The judge's own account, for the grader (see JudgeOutputFile).
		writeNoFollow(filepath.Join(filepath.Dir(ts.Getenv("WORK")), JudgeOutputFile), r.out.bytes(), 0o644, -1, -1)
	}
	judged := r.judgeRecord(ts)
	setOutput(ts, r.out.bytes(), r.errOut.bytes())
	got := describeSandboxExit(pr.Exit)
	ts.Logf("run: %s: %s in %v", r.name, got, res.Duration.Round(time.Millisecond))
	for _, w := range runNotes(res.Warnings, r.judge) {
		ts.Logf("run: note: %s", w)
	}
	var leftovers []string
	zombie := false
	for _, f := range res.Hygiene.Findings {
		if f.Kind == hygiene.LeftRunning && r.allowLeft[commandName(f.Command)] {
			ts.Logf("run: allowed and killed: %s", f)
			continue
		}
		if f.Kind != hygiene.LeftRunning && f.Kind != hygiene.Zombie && !r.noFiles {
			continue
		}
		leftovers = append(leftovers, f.String())
		zombie = zombie || f.Kind == hygiene.Zombie
	}
	rec := outcome.Record{Program: r.name, Got: got}
	switch {
	case len(res.Errors) > 0:
		harnessFail(ts, "run: harness error: %s", strings.Join(res.Errors, "; "))
	case r.heldOpen && r.judge:
		// A judge's own output: nothing of the subject's is handed it, so what holds it is
		// the harness's own failure.
		harnessFail(ts, "run: harness error: %s ended, but something it started that the sandbox could not find still held its output open %v later (its output was cut off there)", r.name, outputDrain)
	case len(r.door.refusals()) > 0:
		// The program (or what it started) asked the witness, through the door its run
		// was handed, for what no stand-in asks: a hello the stand-ins do not send (one
		// without the witness's token, on streams no player has), more mock players than
		// any game has. A verdict that does not depend on the load (outcome.Held), never a
		// HARNESS-ERROR.
		rec.Kind = outcome.Held
		fail(ts, rec, "run: %s asked the harness's witness for what no stand-in asks: %s", r.name, strings.Join(r.door.refusals(), "; "))
	case res.DeadlinePassed:
		diag := ""
		if res.Hang != nil {
			diag = " (" + res.Hang.String() + ")"
			rec.Hang = string(res.Hang.Kind)
		}
		if r.activity != nil {
			r.activity.deadlinePassed(res.Hang != nil && waitingHang(*res.Hang))
		}
		rec.Kind = outcome.Deadline
		fail(ts, rec, "run: %s did not finish within %v (killed)%s", r.name, r.timeout, diag)
	case !r.sent && !r.overflowed:
		rec.Kind = outcome.Early
		fail(ts, rec, "run: %s ended (%s) before the moment to send %v came", r.name, got, r.sig)
	case r.overflowed || r.out.dropped > 0 || r.errOut.dropped > 0:
		rec.Kind, rec.Limit = outcome.Limit, "output"
		fail(ts, rec, "run: %s wrote more than %d bytes (stdout %d and stderr %d bytes over)", r.name, MaxCapture, r.out.dropped, r.errOut.dropped)
	case pr.Limit != "":
		rec.Kind, rec.Limit, rec.Signal = outcome.Limit, string(pr.Limit), signalName(pr.Exit)
		fail(ts, rec, "run: %s ran into the %s limit (%s)", r.name, pr.Limit, got)
	case totals != "":
		rec.Kind, rec.Limit, rec.Signal = outcome.Limit, "case "+totals, signalName(pr.Exit)
		fail(ts, rec, "run: %s ran into the %s limit of the whole case (%s)", r.name, totals, got)
	case !statusMatches(ts, r.status, got, judgeAlternative(r.judge, r.out.bytes())):
		msg := fmt.Sprintf("run: %s: want exit %s, got %s", r.name, strings.ReplaceAll(r.status, ",", " or "), got)
		rec.Want = r.status
		fail(ts, r.exitRecord(rec, pr.Exit, judged), "%s", msg)
	case len(leftovers) > 0 || r.heldOpen:
		// A program's output held open once it ended, the sandbox had killed all it found of
		// it and the witness the mock players whose stand-ins had ended, is held by something
		// it handed its output to beyond the sandbox's reach (the witness's mock player it
		// gave its own streams to, a process it hid outside its box): the program's own doing,
		// charged to it as what it left behind (a HARNESS-ERROR would leave the case out of
		// the marks: a hub could opt out of every case it could not pass so). Alone, a verdict
		// that does not depend on the machine's load (outcome.Held); with processes left
		// running, one that does (outcome.Left, which the grader confirms alone).
		rec.Kind, rec.Zombie = outcome.Left, zombie
		if r.heldOpen {
			leftovers = append(leftovers, fmt.Sprintf("its output still held open %v after it ended, by something it handed its output to that outlived it (its output was cut off there)", outputDrain))
			if len(leftovers) == 1 {
				rec.Kind = outcome.Held
			}
		}
		fail(ts, rec, "run: %s exited but left processes running or files behind: %s", r.name, strings.Join(leftovers, "; "))
	case r.reaped && pr.Orphans > 0:
		// The box reaps whatever its program leaves, so that nothing of a case outlives
		// it; a program that leaves its children to it has not reaped them (sandbox's
		// ProcResult.Orphans, counted by the box's init).
		rec.Kind, rec.Got = outcome.Left, fmt.Sprintf("%d unreaped", pr.Orphans)
		fail(ts, rec, "run: %s ended without reaping %d process(es) it started (alive or dead when it ended, they were left for the box to reap)", r.name, pr.Orphans)
	case r.reaped && pr.Orphans < 0:
		ts.Logf("run: note: -reaped not checked: %s ran without a box, whose init counts what a program leaves to it", r.name)
	}
}

// folderFail fails the script for err, met on the subject's folder (box/) while the
// harness gave a run its inputs or took back its results. Once a program of the case has
// run there, an error the subject's programs can cause is theirs, what they left behind
// (kind Left, a HYGIENE the grader confirms alone): a file or a link where the harness puts
// a folder or an input, modes that refuse the harness (a rootless grade's subject is the
// grader's own user), its disk filled. Any other error, or one before anything of the
// subject ran, is the harness's.
func (b *caseBox) folderFail(ts *testscript.TestScript, what string, err error) {
	switch {
	case !b.subjectRan:
	case errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) || errors.Is(err, syscall.EFBIG):
		fail(ts, outcome.Record{Kind: outcome.Limit, Limit: caseDisk, Got: err.Error()}, "%s: the subject's folder, as its programs left it, is full: %v", what, err)
	case subjectFolderError(err):
		fail(ts, outcome.Record{Kind: outcome.Left, Got: err.Error()}, "%s: the subject's folder, as its programs left it: %v", what, err)
	}
	harnessFail(ts, "%s: harness error: %v", what, err)
}

// caseDisk names the limit of the subject's folder in a case (-case-disk) in a record, as the
// sandbox names it when a copy back does not fit.
const caseDisk = string(sandbox.LimitDisk)

// subjectFolderError says whether err is one that what a program left in its folder can
// cause: a path of the wrong kind, refused access (a full folder is told apart, above).
func subjectFolderError(err error) bool {
	for _, e := range []syscall.Errno{syscall.EACCES, syscall.EPERM, syscall.ENOTDIR, syscall.EISDIR,
		syscall.ELOOP, syscall.EEXIST, syscall.ENOTEMPTY, syscall.ENAMETOOLONG, syscall.EMLINK, syscall.ETXTBSY} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// waitingHang says whether hang d is a wait (for input, a child or a timer) rather than
// work or what the sandbox could not tell. A process in uninterruptible sleep (state D: in
// the kernel, such as reading /proc/PID/mountinfo while many boxes change their mounts on a
// loaded machine) is held by the machine, not waiting for a peer; so is one blocked
// writing (BlockedWrite), whose reader is the harness or a judge it runs, which read all
// they are sent: a loaded machine that slows them keeps a flood from reaching the output
// bound (LIMIT) before the deadline (TestHostileOutputFlood got TIMEOUT so under load).
func waitingHang(d hygiene.Diagnosis) bool {
	switch d.Kind {
	case hygiene.Deadlock, hygiene.LeakedPipe, hygiene.Sleeping:
	default:
		return false
	}
	for _, p := range d.Procs {
		if p.State == 'D' || p.State == 'R' {
			return false
		}
	}
	return true
}

// exitRecord is the record of a run that ended with another status than the one wanted
// (rec has the program, the status wanted and got): a judge's own account when the judge
// found the subject at fault (exit 1), a harness record when the judge failed itself (exit
// 2); for any other program, how it ended: killed by SIGXCPU or SIGXFSZ (a limit), by
// another signal, or another exit status.
func (r *aRun) exitRecord(rec outcome.Record, e sandbox.Exit, judged *outcome.Record) outcome.Record {
	switch {
	case r.judge && e.Signal == 0 && e.Code == 1:
		if judged != nil {
			// The judge's account, with the program it judged as the script named it.
			j := *judged
			j.Program = r.name
			return j
		}
		rec.Kind, rec.Judge = outcome.Diverged, filepath.Base(r.name)
		return rec
	case r.judge && e.Signal == 0 && e.Code == 2:
		rec.Kind, rec.Judge = outcome.Harness, filepath.Base(r.name)
		return rec
	case e.Signal == syscall.SIGXCPU:
		rec.Kind, rec.Limit, rec.Signal = outcome.Limit, string(sandbox.LimitCPU), signalName(e)
	case e.Signal == syscall.SIGXFSZ:
		rec.Kind, rec.Limit, rec.Signal = outcome.Limit, string(sandbox.LimitFileSize), signalName(e)
	case e.Signal != 0:
		rec.Kind, rec.Signal = outcome.Signal, signalName(e)
	default:
		rec.Kind = outcome.Exit
	}
	return rec
}

// notThere reports whether a program cannot be run because a file it needs is not there:
// the program itself, or the interpreter its "#!" line names (the kernel's ENOENT for
// both, which the sandbox passes on only as text when the exec role reports it).
func notThere(prog string) bool {
	missing := func(path string) bool {
		_, err := os.Stat(path)
		return errors.Is(err, os.ErrNotExist)
	}
	if missing(prog) {
		return true
	}
	// Without blocking on a FIFO, and reading only a regular file (the subject's own).
	f, err := os.OpenFile(prog, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return false
	}
	head := make([]byte, 256)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if line, ok := strings.CutPrefix(string(head), "#!"); ok {
		line, _, _ = strings.Cut(line, "\n")
		if words := strings.Fields(line); len(words) > 0 {
			return missing(words[0])
		}
	}
	return false
}

// judgeRecord takes back a judge's record (the last it wrote), and removes its file; nil
// for a program that is no judge, or a judge that wrote none.
func (r *aRun) judgeRecord(ts *testscript.TestScript) *outcome.Record {
	if r.judgeFile == "" {
		return nil
	}
	defer os.Remove(r.judgeFile)
	rec, ok, err := outcome.Last(r.judgeFile)
	if err != nil {
		ts.Logf("run: harness error: the judge's record: %v", err)
	}
	if !ok {
		return nil
	}
	return &rec
}

// signalName is the name of the signal that ended a program ("SIGSEGV"), or "".
func signalName(e sandbox.Exit) string {
	if e.Signal == 0 {
		return ""
	}
	return "SIG" + faults.SignalWord(e.Signal)
}

// runNotes are the sandbox's warnings about a run that go in the case's log, which students
// read: those about the subject's run. A judge (the mock hub) runs as the grader on purpose,
// and what its sandbox says about that ("running as root without a sandbox user") is about
// the harness, not the program graded, so it is left out.
func runNotes(warnings []string, judge bool) []string {
	if judge {
		return nil
	}
	return warnings
}
