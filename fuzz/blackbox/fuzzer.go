package blackbox

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"gauntlet/fuzz/record"
	"gauntlet/harness/box/sandbox"
)

// Subject is a program under test and the reference program it is compared with.
type Subject struct {
	Path string // the program (made absolute by Run)
	Ref  string // the reference program's name, e.g. "EAIT" or "stlucia"
}

// Options configure a fuzzing run.
type Options struct {
	Game     Game
	Role     Role
	Subjects []Subject // players (round robin) or the one hub
	// Vars is the suite variable that stands for a program of the game ("2310A" ->
	// "PLAYER_A"), as the regression files name it: the game's grade table's VarOf.
	Vars func(program string) (string, bool)
	// RefDir is a folder holding the reference programs, mockplayer and mockhub by name
	// (links to the gauntlet binary, or testscript's copies of a test binary).
	RefDir string
	// Published maps a program to the path a sandbox user runs it by, where RefDir is a
	// folder only the fuzzer may enter (the CLI's, as a grade's: cmd/gauntlet's
	// programLinks): the mock player a hub's seats run, and the reference programs a
	// regression file's judge starts as the sandbox user. A program it leaves out runs from
	// RefDir. Keep must hold their folders.
	Published map[string]string
	// Keep lists more folders the boxes keep visible: where the Published programs lie.
	Keep []string
	Seed uint64
	Runs int           // stop after this many cases (0: no limit)
	Time time.Duration // stop after this long (0: no limit); Runs or Time must be set
	Out  string        // folder for the findings ("" writes nothing)
	// Kinds are the mutations (player role) or faults (hub role) to use; nil means all.
	Kinds       []string
	StepTimeout time.Duration // wait for one reply (default 2s)
	RunTimeout  time.Duration // wait for a hub to end (default 10s)
	Minimise    Budget        // zero Tries: do not minimise
	Verify      bool          // run each regression file through the suite runner
	Progress    io.Writer     // a terminal for the progress line, or nil
	Log         io.Writer     // a line per finding as it is found, or nil
	// Stop, when closed, ends the run early as if its time were up (the failure being
	// minimised is written as it stands).
	Stop <-chan struct{}
	// Jobs is how many busy cases are played at once (default 1); up to waitingPerJob
	// times as many cases that wait on purpose play beside them (playAhead). Each case
	// still plays the subject and the reference side by side; the cases are taken in
	// order, so the findings of a campaign with Runs set are the same whatever Jobs is.
	Jobs int
	// InProcess gives a reference player's in-process form by name (nil, or false: the
	// reference runs as a process). With it, a player case without a signal plays the
	// reference in this process (record.RunFunc) where the campaign only looks for a
	// difference (the first play, minimisation), which saves a process start per case;
	// a difference is confirmed, and the regression file's expectations recorded, with the
	// reference as a process.
	InProcess func(name string) (record.Func, bool)
	// Replay, when set, is the command line that runs a regression file against the
	// subject it was found on, as the summary prints it (the CLI's gauntlet run).
	Replay func(file string, subj Subject) string
}

// Finding is one distinct failure.
type Finding struct {
	Sig       Signature
	Rule      Rule // the rule of the spec it breaks
	Subject   Subject
	Run       int    // the case number (with the seed, it reproduces the case)
	Case      string // what the case was, before minimisation
	Minimised string // what it is after, as written in its regression file (Written)
	Steps     [2]int // steps (or seats) before and after minimisation
	Unit      string // what Steps count: "steps" of a conversation or "seats" of a game
	Tries     int    // candidates the minimiser ran
	File      string // the regression file, when Out is set
	Replay    string // the command that runs File against the subject (Options.Replay)
	Verified  string // "" when the regression file passed on the reference and failed on the subject
	// Confirmed says how the difference was confirmed: "again alone" (the case run again
	// with nothing else of the campaign under way failed the same way), or, for a TIMEOUT
	// whose subject used as much CPU time as the step timeout, "in CPU time (N of CPU)"
	// (a busy loop, whatever the machine's load).
	Confirmed string
}

// Summary is what a fuzzing run did.
type Summary struct {
	Runs     int
	Elapsed  time.Duration
	Findings []Finding
	// Groups are the broken rules, one per rule and program fuzzed, in the order they were
	// first broken: the findings that show each, how many runs broke it, its smallest
	// finding.
	Groups      []Group
	Duplicates  int // failures with a signature already found
	Unconfirmed int // differences that did not come back when the case was run again
	// Flaky describes the first unconfirmed differences (run number and signature).
	Flaky   []string
	Skipped int // cases the reference could not finish (not the subject's fault)
	// TimedOut counts the runs (among those compared) where the subject ended on a
	// timeout: a wait for its reply took the whole step timeout, or it did not end.
	TimedOut int
}

// TimeoutNote says, when most runs ended on a timeout, that the campaign mostly waited on
// the subject, and so saw little of what it does past the first silence; "" otherwise.
func (s *Summary) TimeoutNote() string {
	if s.Runs == 0 || 2*s.TimedOut <= s.Runs {
		return ""
	}
	return fmt.Sprintf("most runs ended on a timeout (%d of %d): the subject did not answer within the step timeout, or did not end; the fuzzer sees little past that (a subject that does not flush its replies looks like this)", s.TimedOut, s.Runs)
}

// Rate is the cases run per second.
func (s *Summary) Rate() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Runs) / s.Elapsed.Seconds()
}

// fuzzer holds a run's fixed parts.
type fuzzer struct {
	opt   Options
	g     Game
	tmp   string
	rec   record.Options
	kinds []string
	boxed bool // the programs run as sandbox users in a box (see box)
	// scriptBox is how Verify runs the regression files: in the campaign's box, or nil.
	scriptBox *ScriptBox
	// users lends each run that starts a program a sandbox user of its own, when boxed.
	users *sandbox.UserPool
	// alone is held for reading by every case the workers play ahead, and for writing by
	// the run that confirms a difference: that run plays with nothing else of the campaign
	// under way, so that a difference the load made is not confirmed by the load (under
	// load, a one-bug mutant's campaign would keep 22 rules where it keeps 2 quiet).
	alone sync.RWMutex
}

// Run fuzzes the subjects. The error is a usage or harness error (a reference program
// that cannot be run, a folder that cannot be written); failures of the subject are
// findings.
func Run(opt Options) (*Summary, error) {
	if opt.Game == nil || len(opt.Subjects) == 0 {
		return nil, errors.New("blackbox: no game or no program to fuzz")
	}
	if opt.Vars == nil {
		return nil, errors.New("blackbox: no suite variables for the game's programs")
	}
	if opt.Runs <= 0 && opt.Time <= 0 {
		return nil, errors.New("blackbox: give a number of runs or a time")
	}
	all := PlayerMutations
	if opt.Role == RoleHub {
		all = HubFaults
		if len(opt.Subjects) != 1 {
			return nil, errors.New("blackbox: fuzz one hub at a time")
		}
	} else if opt.Role != RolePlayer {
		return nil, fmt.Errorf("blackbox: unknown role %q", opt.Role)
	}
	kinds := opt.Kinds
	if len(kinds) == 0 {
		kinds = all
	}
	for _, k := range kinds {
		if !slices.Contains(all, k) {
			return nil, fmt.Errorf("blackbox: no %s mutation %q (known: %s)", opt.Role, k, strings.Join(all, ", "))
		}
	}
	for i, s := range opt.Subjects {
		abs, err := filepath.Abs(s.Path)
		if err != nil {
			return nil, err
		}
		opt.Subjects[i].Path = abs
		if _, err := os.Stat(filepath.Join(opt.RefDir, s.Ref)); err != nil {
			return nil, fmt.Errorf("blackbox: no reference program %s: %w", s.Ref, err)
		}
	}
	if opt.StepTimeout <= 0 {
		opt.StepTimeout = 2 * time.Second
	}
	if opt.RunTimeout <= 0 {
		opt.RunTimeout = 10 * time.Second
	}
	tmp, note, err := sandbox.MakeScratch("", "gauntlet-fuzz-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if note != "" && opt.Log != nil {
		fmt.Fprintf(opt.Log, "note: %s\n", note)
	}
	f := &fuzzer{opt: opt, g: opt.Game, tmp: tmp, kinds: kinds,
		rec: record.Options{StepTimeout: opt.StepTimeout, ExitTimeout: opt.StepTimeout, SignalSettle: AfterSignal}}
	if opt.Role == RoleHub {
		f.rec.ExitTimeout = opt.RunTimeout
	}
	release, err := f.box()
	if err != nil {
		return nil, err
	}
	defer release()
	if err := f.check(); err != nil {
		return nil, err
	}
	return f.loop()
}

// check plays one unmutated case with each reference the campaign compares with, as a
// process, and requires it to end normally (exit status 0). It fails when the harness
// cannot run the programs as it means to (a reference or the mock player out of the
// box's reach): every case would then differ, or agree, for a reason that is not the
// subject's, and the campaign's verdicts would mean nothing.
//
// It then plays the same case with each subject, and where one exits 126 or 127 (a shell's
// "cannot execute" and "not found": most often a wrapper that runs a file the box hides),
// Options.Log gets a note saying so, before the campaign blames every case on it.
func (f *fuzzer) check() error {
	r := rand.New(rand.NewPCG(f.opt.Seed, math.MaxUint64)) // not a case's stream
	checked := map[string]bool{}
	for _, s := range f.opt.Subjects {
		var c shrinker
		if f.opt.Role == RoleHub {
			setup := f.g.Setup(r)
			for i := 0; i < 100 && !f.g.Finite(setup); i++ {
				setup = f.g.Setup(r)
			}
			c = NewHubCase(setup)
		} else {
			args, events, err := f.g.Conversation(r, s.Ref)
			if err != nil {
				return err
			}
			c = NewPlayerCase(s.Ref, args, events)
		}
		if !checked[s.Ref] {
			checked[s.Ref] = true
			res, err := f.runRef(c, s.Ref, false)
			if err != nil {
				return fmt.Errorf("blackbox: the reference %s: %w", s.Ref, err)
			}
			if res.Exit != (record.Exit{}) {
				return fmt.Errorf("blackbox: the reference %s did not play an unmutated case to its end (%s, stderr %q): the harness cannot run the programs as it means to", s.Ref, res.Exit, firstLine(res.Stderr))
			}
		}
		res, err := f.runOne(c, s.Path)
		if err != nil {
			return fmt.Errorf("blackbox: %s: %w", s.Path, err)
		}
		if code := res.Exit.Code; f.opt.Log != nil && res.Exit.Signal == 0 && !res.Exit.Hung && (code == 126 || code == 127) {
			why := ""
			if f.boxed {
				why = "; in the box /tmp, /var/tmp, /dev/shm and /run/lock are private, so a program it runs from there must lie in its own folder"
			}
			fmt.Fprintf(f.opt.Log, "note: %s exited %d on an unmutated case (stderr %q): a shell's status for a program it could not run%s\n",
				s.Path, code, firstLine(res.Stderr), why)
		}
	}
	return nil
}

// firstLine is the first line of b, without its newline.
func firstLine(b []byte) string {
	line, _, _ := strings.Cut(string(b), "\n")
	return line
}

// box runs every program of the campaign (subject and reference alike) as a sandbox user
// in a box, as the grader runs a subject, when the fuzzer is root and the machine allows
// boxes; otherwise they run as the fuzzer's own user, and Options.Log says so. Each run
// borrows a user of its own from the campaign's pool (runOne): runs overlap.
// The boxes share one network namespace, made for the campaign, with only its loopback:
// the games fuzzed here talk over pipes, and a namespace made and freed for every program
// would be a fifth of a campaign's CPU. Like the sandbox users, it is the campaign's
// alone.
func (f *fuzzer) box() (release func(), err error) {
	problem := sandbox.BoxProblem
	if sandbox.Rootless() {
		problem = sandbox.RootlessProblem
	}
	if err := problem(); err != nil {
		if f.opt.Log != nil {
			fmt.Fprintf(f.opt.Log, "note: the programs run without the grader's box (%v)\n", err)
		}
		return func() {}, nil
	}
	keep := []string{f.tmp, f.opt.RefDir}
	keep = append(keep, f.opt.Keep...)
	for _, s := range f.opt.Subjects {
		keep = append(keep, filepath.Dir(s.Path))
	}
	if sandbox.Rootless() {
		// Every program the campaign's own user, each run in a rootless box with a
		// network of its own (a shared one would start each program through sandbox's
		// C helper, netjoin.go, for nothing: the games talk over pipes).
		f.rec.Box = &sandbox.Box{Keep: keep}
		f.boxed = true
		f.scriptBox = &ScriptBox{Scratch: f.tmp, Keep: keep, Published: f.opt.Published}
		if f.opt.Log != nil {
			fmt.Fprintln(f.opt.Log, "note: the programs run as you in rootless boxes, as in a grade that is not root")
		}
		return func() {}, nil
	}
	net, err := sandbox.NewNet()
	if err != nil {
		return nil, err
	}
	f.users = &sandbox.UserPool{}
	f.rec.Box = &sandbox.Box{Keep: keep, Net: net}
	f.boxed = true
	f.scriptBox = &ScriptBox{Scratch: f.tmp, Keep: keep, Published: f.opt.Published}
	if f.opt.Log != nil {
		fmt.Fprintln(f.opt.Log, "note: the programs run as sandbox users in a box, as in a grade")
	}
	return func() {
		net.Close()
		f.users.Close()
	}, nil
}

// newCase makes case number run from the seed: the same seed and number give the same case.
func (f *fuzzer) newCase(run int) (shrinker, Subject, error) {
	r := rand.New(rand.NewPCG(f.opt.Seed, uint64(run)))
	subj := f.opt.Subjects[run%len(f.opt.Subjects)]
	n := 1
	if x := r.IntN(20); x >= 17 {
		n = 2 + x%2 // now and then two or three mutations at once
	}
	if f.opt.Role == RoleHub {
		c := NewHubCase(f.g.Setup(r))
		for i := 0; i < n; i++ {
			c.Mutate(f.g, r, f.pickKind(r))
		}
		return c, subj, nil
	}
	args, events, err := f.g.Conversation(r, subj.Ref)
	if err != nil {
		return nil, subj, err
	}
	c := NewPlayerCase(subj.Ref, args, events)
	for i := 0; i < n; i++ {
		c.Mutate(f.g, r, f.pickKind(r))
	}
	return c, subj, nil
}

// slowKinds are the faults whose cases take seconds (the hub's 2-second wait for a player
// that does not exit, a 300 ms pause): they are picked a quarter as often as the others,
// so that a run spends its time on many cases rather than on waiting.
var slowKinds = map[string]bool{"hang": true, "slow": true}

// pickKind picks one of the enabled kinds.
func (f *fuzzer) pickKind(r *rand.Rand) string {
	total := 0
	weight := func(k string) int {
		if slowKinds[k] && len(f.kinds) > 1 {
			return 1
		}
		return 4
	}
	for _, k := range f.kinds {
		total += weight(k)
	}
	x := r.IntN(total)
	for _, k := range f.kinds {
		if x -= weight(k); x < 0 {
			return k
		}
	}
	return f.kinds[len(f.kinds)-1]
}

// runOne runs one program on a case, as a sandbox user of its own when boxed.
func (f *fuzzer) runOne(c shrinker, prog string) (*record.Result, error) {
	opt := f.rec
	if f.users != nil {
		user, mark, err := f.users.Borrow()
		if err != nil {
			return nil, err
		}
		defer f.users.Return(user, mark)
		opt.Identity = sandbox.Identity{Lease: user}
	}
	switch c := c.(type) {
	case *PlayerCase:
		opt.Dir = f.tmp
		return record.Run(prog, c.Args, c.script(f.g.Hello()), opt)
	case *HubCase:
		return c.run(prog, f.opt.RefDir, f.opt.Published["mockplayer"], f.tmp, opt)
	}
	panic("blackbox: unknown case type")
}

// runRef runs the reference named ref on a case: in this process (record.RunFunc) when
// fast is set and it can (a player case without a signal step, a reference
// Options.InProcess knows), else as a process.
func (f *fuzzer) runRef(c shrinker, ref string, fast bool) (*record.Result, error) {
	if pc, ok := c.(*PlayerCase); ok && fast && f.opt.InProcess != nil && !pc.signals() {
		if fn, ok := f.opt.InProcess(ref); ok {
			return record.RunFunc(fn, pc.Args, pc.script(f.g.Hello()), f.rec)
		}
	}
	return f.runOne(c, filepath.Join(f.opt.RefDir, ref))
}

// runBoth runs the reference and the subject on a case at the same time; fast is runRef's.
func (f *fuzzer) runBoth(c shrinker, subj Subject, fast bool) (ref, sub *record.Result, err error) {
	var wg sync.WaitGroup
	var rerr, serr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		ref, rerr = f.runRef(c, subj.Ref, fast)
	}()
	sub, serr = f.runOne(c, subj.Path)
	wg.Wait()
	if rerr != nil {
		return nil, nil, fmt.Errorf("the reference %s: %w", subj.Ref, rerr)
	}
	if serr != nil {
		return nil, nil, fmt.Errorf("the subject: %w", serr)
	}
	return ref, sub, nil
}

// differs runs a case and returns its signature when the subject differs from the
// reference; ok is false when they agree or the reference did not finish (bad). fast is
// runBoth's.
func (f *fuzzer) differs(c shrinker, subj Subject, fast bool) (sig Signature, ref *record.Result, ok, bad bool, err error) {
	sig, ref, ok, bad, _, err = f.differsTimed(c, subj, fast)
	return sig, ref, ok, bad, err
}

// differsTimed is differs that also says whether the subject's run ended on a timeout
// (TimedOut).
func (f *fuzzer) differsTimed(c shrinker, subj Subject, fast bool) (sig Signature, ref *record.Result, ok, bad, timedOut bool, err error) {
	ref, sub, err := f.runBoth(c, subj, fast)
	if err != nil {
		return Signature{}, nil, false, false, false, err
	}
	if ref.Exit.Hung {
		return Signature{}, ref, false, true, false, nil
	}
	sig, ok = Compare(ref, sub)
	return sig, ref, ok, false, TimedOut(sub), nil
}

// played is a case made and played once (newCase, then differs), ahead of the loop.
type played struct {
	c         shrinker
	subj      Subject
	sig       Signature
	ref       *record.Result
	diff, bad bool
	timedOut  bool // the subject's run ended on a timeout
	err       error
}

// lookahead plays the campaign's cases on Options.Jobs workers, ahead of the loop that
// takes them in order (next): the loop's findings, confirmations and minimisation stay
// sequential and deterministic, while the first play of the next cases fills the cores.
type lookahead struct {
	results chan chan played // one per case, in case order
	quit    chan struct{}
	wg      sync.WaitGroup
}

// GCPercent is the garbage collector's setting a campaign runs best with; the CLI gives
// it to the whole process (debug.SetGCPercent) before Run, and so does
// BenchmarkPlayerCampaign. A campaign's live heap is small and its garbage is each
// case's: collecting at 5x the live heap rather than 2x cut the collector's share of the
// fuzzer's own CPU from 11% to 2% (a 2310A campaign: 10% more runs per second), for 16 MB
// more (22 to 38 MB).
const GCPercent = 400

// aheadPerJob is how many cases per job may be played ahead of the loop, under way or
// waiting to be taken: more than one, so that a case that waits out a step timeout at the
// head of the line does not hold the other workers back (at most Jobs busy ones are under
// way).
const aheadPerJob = 4

// waitingPerJob is how many cases that wait on purpose (a pause, a signal's settling, a
// mock player that sleeps or hangs: waits) may be under way per job beside the Jobs busy
// ones. They spend their time asleep, so they do not take a busy case's slot: in a
// campaign against 2310A a third of the cases wait, and they would hold the slots two
// thirds of the time.
const waitingPerJob = 4

// playAhead starts the workers. At most Jobs busy cases and waitingPerJob times Jobs
// waiting ones are played at once, and at most aheadPerJob times Jobs more are played or
// wait to be taken; with Runs set, no case past the last is played. Cases are made in
// order, by the one goroutine that hands them out.
func (f *fuzzer) playAhead() *lookahead {
	jobs := max(f.opt.Jobs, 1)
	waiting := waitingPerJob * jobs
	l := &lookahead{results: make(chan chan played, aheadPerJob*jobs+waiting-1), quit: make(chan struct{})}
	busy := make(chan struct{}, jobs)
	asleep := make(chan struct{}, waiting)
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		defer close(l.results)
		for run := 0; f.opt.Runs <= 0 || run < f.opt.Runs; run++ {
			out := make(chan played, 1)
			select {
			case l.results <- out:
			case <-l.quit:
				return
			}
			var p played
			p.c, p.subj, p.err = f.newCase(run)
			slots := busy
			if p.err == nil && p.c.waits() {
				slots = asleep
			}
			select {
			case slots <- struct{}{}:
			case <-l.quit:
				out <- played{err: errors.New("fuzz: stopped")}
				return
			}
			l.wg.Add(1)
			go func() {
				defer l.wg.Done()
				defer func() { <-slots }()
				if p.err == nil {
					f.alone.RLock()
					p.sig, p.ref, p.diff, p.bad, p.timedOut, p.err = f.differsTimed(p.c, p.subj, true)
					f.alone.RUnlock()
				}
				out <- p
			}()
		}
	}()
	return l
}

// next waits for the next case in order.
func (l *lookahead) next() played {
	out, ok := <-l.results
	if !ok {
		return played{err: errors.New("fuzz: no case left to play")}
	}
	return <-out
}

// stop ends the workers and waits for the cases under way, so that nothing the campaign
// started outlives it.
func (l *lookahead) stop() {
	close(l.quit)
	for range l.results {
	}
	l.wg.Wait()
}

func (f *fuzzer) loop() (*Summary, error) {
	sum := &Summary{}
	seen := map[string]bool{}
	groupOf := map[string]int{}  // program and rule ID -> index in sum.Groups
	ruleKey := map[string]Rule{} // program and signature key -> its rule
	start := time.Now()
	lastShown := time.Time{}
	progress := func(final bool) {
		if f.opt.Progress == nil || (!final && time.Since(lastShown) < 250*time.Millisecond) {
			return
		}
		lastShown = time.Now()
		el := time.Since(start)
		fmt.Fprintf(f.opt.Progress, "\r%d runs, %d failures, %.1f runs/s, %s ", sum.Runs, len(sum.Findings),
			float64(sum.Runs)/max(el.Seconds(), 1e-9), el.Round(time.Second))
		if sum.Runs > 0 && 2*sum.TimedOut > sum.Runs {
			fmt.Fprintf(f.opt.Progress, "(most runs ended on a timeout: %d) ", sum.TimedOut)
		}
		if final {
			fmt.Fprintln(f.opt.Progress)
		}
	}
	played := f.playAhead()
	defer played.stop()
	for run := 0; ; run++ {
		if f.opt.Runs > 0 && run >= f.opt.Runs || f.opt.Time > 0 && time.Since(start) >= f.opt.Time || f.stopped() {
			break
		}
		progress(false)
		first := played.next()
		if first.err != nil {
			return nil, first.err
		}
		c, subj := first.c, first.subj
		sum.Runs++
		sig, ref, diff, bad := first.sig, first.ref, first.diff, first.bad
		if bad {
			sum.Skipped++
			continue
		}
		if first.timedOut {
			sum.TimedOut++
		}
		if !diff {
			continue
		}
		// The line the reference refused, when it ended on one and the subject wrote
		// something else: part of what makes two failures the same bug, and of the rule
		// they break. When both wrote the same and only the endings differ (a wrong exit
		// status on any refused line), the line refused does not tell bugs apart.
		refusal := ""
		if !sig.SameOutput() && sig.Kind != KindLate {
			refusal = f.refusal(c, subj, ref.Exit)
		}
		key := subj.Path + "\x00" + sig.Key() + "\x00" + refusal
		if seen[key] {
			sum.Duplicates++
			sum.Groups[groupOf[subj.Path+"\x00"+ruleKey[key].ID]].Runs++
			continue
		}
		// The same case must fail the same way again, alone, or it is timing, not a bug to
		// keep; and against the reference as a process, what the regression file will
		// check. A TIMEOUT needs the subject to exceed the step timeout in CPU time (a
		// busy loop, which no load makes: kept without the run again, which would cost
		// the whole campaign a timeout's wait) or when run again alone.
		confirmed := confirmedInCPU(sig, f.timeout())
		sig2, diff2 := sig, true
		if confirmed == "" {
			confirmed = "again alone"
			var err error
			f.alone.Lock()
			sig2, _, diff2, _, err = f.differs(c, subj, false)
			f.alone.Unlock()
			if err != nil {
				return nil, err
			}
		}
		if !diff2 || sig2.Key() != sig.Key() {
			sum.Unconfirmed++
			if len(sum.Flaky) < 20 {
				sum.Flaky = append(sum.Flaky, fmt.Sprintf("run %d: %s; then %s", run, sig, map[bool]string{true: sig2.String(), false: "no difference"}[diff2]))
			}
			continue
		}
		seen[key] = true
		fd, err := f.keep(c, subj, sig, run, len(sum.Findings)+1)
		if err != nil {
			return nil, err
		}
		fd.Confirmed = confirmed
		fd.Rule = ruleOf(f.g, f.opt.Role, sig, ref.Exit)
		if strings.Contains(fd.Rule.ID, "/exit-") {
			fd.Rule = refined(fd.Rule, refusal)
		}
		ruleKey[key] = fd.Rule
		sum.Findings = append(sum.Findings, fd)
		gk := subj.Path + "\x00" + fd.Rule.ID
		gi, ok := groupOf[gk]
		if !ok {
			gi = len(sum.Groups)
			groupOf[gk] = gi
			sum.Groups = append(sum.Groups, Group{Subject: subj, Rule: fd.Rule, Shortest: len(sum.Findings) - 1})
		}
		gr := &sum.Groups[gi]
		gr.Runs++
		gr.Findings = append(gr.Findings, len(sum.Findings)-1)
		if fd.Steps[1] < sum.Findings[gr.Shortest].Steps[1] {
			gr.Shortest = len(sum.Findings) - 1
		}
		if f.opt.Log != nil {
			if f.opt.Progress != nil {
				fmt.Fprint(f.opt.Progress, "\r\033[K")
			}
			fmt.Fprintf(f.opt.Log, "FAIL %s (run %d): %s\n", filepath.Base(subj.Path), run, sig)
			fmt.Fprintf(f.opt.Log, "     rule [%s]: %s\n", fd.Rule.ID, fd.Rule.Words)
			if fd.Confirmed != "again alone" {
				fmt.Fprintf(f.opt.Log, "     confirmed %s\n", fd.Confirmed)
			}
			if fd.File != "" {
				fmt.Fprintf(f.opt.Log, "     regression: %s (%d -> %d %s)%s\n", fd.File, fd.Steps[0], fd.Steps[1], f.unit(), verifiedNote(fd.Verified))
			}
		}
	}
	sum.Elapsed = time.Since(start)
	progress(true)
	if f.opt.Out != "" {
		if err := writeSummary(f.opt, sum); err != nil {
			return nil, err
		}
	}
	return sum, nil
}

// timeout is the wait a TIMEOUT of this campaign ran out: a hub's end (RunTimeout), a
// player's reply or end (StepTimeout).
func (f *fuzzer) timeout() time.Duration {
	if f.opt.Role == RoleHub {
		return f.opt.RunTimeout
	}
	return f.opt.StepTimeout
}

// confirmedInCPU says how a TIMEOUT is confirmed without a run again: its subject used
// at least the timeout it ran out (step, the wait for a player; a hub's run timeout) in
// CPU time, so it was busy, not kept from the CPU by the
// machine's load. "" for any other difference, and for a TIMEOUT with less CPU (it must
// then time out again alone).
func confirmedInCPU(sig Signature, step time.Duration) string {
	if sig.Kind != KindTimeout || sig.CPU < step {
		return ""
	}
	return fmt.Sprintf("in CPU time (%v of CPU, the timeout %v)", sig.CPU.Round(10*time.Millisecond), step)
}

// refusal is the rule of the line a reference player refused in case c (the adapter's
// Refusal, replaying the case's lines through the engine), or "" for a hub case, a
// reference that did not end with a status, or one that refused nothing.
func (f *fuzzer) refusal(c shrinker, subj Subject, ref record.Exit) string {
	pc, ok := c.(*PlayerCase)
	if !ok || ref.Hung || ref.Signal != 0 {
		return ""
	}
	return f.g.Refusal(subj.Ref, pc.Args, pc.hubLines())
}

// stopped reports whether Options.Stop is closed.
func (f *fuzzer) stopped() bool {
	select {
	case <-f.opt.Stop:
		return true
	default:
		return false
	}
}

// unit is what a case's size counts: the steps of a conversation, or the seats of a game.
func (f *fuzzer) unit() string {
	if f.opt.Role == RoleHub {
		return "seats"
	}
	return "steps"
}

func verifiedNote(v string) string {
	if v == "" {
		return ""
	}
	return "; NOT VERIFIED: " + v
}

// keep minimises a confirmed failure and writes its regression file.
func (f *fuzzer) keep(c shrinker, subj Subject, sig Signature, run, n int) (Finding, error) {
	fd := Finding{Sig: sig, Subject: subj, Run: run, Case: describe(c), Unit: f.unit()}
	fd.Steps[0], _ = c.size()
	small := c
	if f.opt.Minimise.Tries > 0 {
		small, fd.Tries = minimise(f.g, c, func(v shrinker) bool {
			if f.stopped() {
				return false
			}
			s, _, ok, _, err := f.differs(v, subj, true)
			return err == nil && ok && s.Key() == sig.Key()
		}, f.opt.Minimise, f.opt.Jobs)
	}
	fd.Steps[1], _ = small.size()
	fd.Minimised = written(small)
	if f.opt.Out == "" {
		return fd, nil
	}
	// The reference's behaviour on the minimised case is what the regression asserts; the
	// minimised case's signature (its line number may have changed) is the one shown.
	ref, sub, err := f.runBoth(small, subj, false)
	if err != nil {
		return fd, err
	}
	if s, ok := Compare(ref, sub); ok && s.Key() == sig.Key() {
		fd.Sig, sig = s, s
	}
	name := fmt.Sprintf("fuzz_%s_%s_%s_%d", f.opt.Role, strings.ToLower(subj.Ref), strings.ToLower(sig.Kind), n)
	arch, err := f.regression(small, subj, ref, sig, run, fd)
	if err != nil {
		fd.Verified = err.Error()
		return fd, nil
	}
	if err := os.MkdirAll(f.opt.Out, 0o755); err != nil {
		return fd, err
	}
	fd.File = filepath.Join(f.opt.Out, name+".txtar")
	if err := os.WriteFile(fd.File, arch, 0o644); err != nil {
		return fd, err
	}
	if f.opt.Replay != nil {
		fd.Replay = f.opt.Replay(fd.File, subj)
	}
	if f.opt.Verify {
		fd.Verified = Verify(f.g, f.opt.Vars, f.opt.RefDir, fd.File, subj, f.scriptBox)
	}
	return fd, nil
}

func describe(c shrinker) string {
	switch c := c.(type) {
	case *PlayerCase:
		return c.Describe()
	case *HubCase:
		return c.Describe()
	}
	return ""
}

// writeSummary writes OUT/summary.txt: the run's parameters and one line per finding.
func writeSummary(opt Options, sum *Summary) error {
	if err := os.MkdirAll(opt.Out, 0o755); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "gauntlet fuzz %s -role %s -seed %d: %d runs in %s (%.1f runs/s), %d rules broken, %d failures, %d duplicates, %d unconfirmed, %d skipped\n",
		opt.Game.Name(), opt.Role, opt.Seed, sum.Runs, sum.Elapsed.Round(time.Millisecond), sum.Rate(),
		len(sum.Groups), len(sum.Findings), sum.Duplicates, sum.Unconfirmed, sum.Skipped)
	if n := sum.TimeoutNote(); n != "" {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	for _, fl := range sum.Flaky {
		fmt.Fprintf(&b, "unconfirmed (not kept): %s\n", fl)
	}
	WriteGroups(&b, sum)
	b.WriteString("\nFindings:\n")
	for _, fd := range sum.Findings {
		fmt.Fprintf(&b, "\n%s (run %d)\n  %s\n  rule [%s]: %s\n  case: %s\n  minimised (%d tries): %s\n", fd.Subject.Path, fd.Run, fd.Sig, fd.Rule.ID, fd.Rule.Words, fd.Case, fd.Tries, fd.Minimised)
		if fd.File != "" {
			fmt.Fprintf(&b, "  regression: %s%s\n", fd.File, verifiedNote(fd.Verified))
		}
		if fd.Replay != "" {
			fmt.Fprintf(&b, "  replay: %s\n", fd.Replay)
		}
	}
	return os.WriteFile(filepath.Join(opt.Out, "summary.txt"), []byte(b.String()), 0o644)
}

// WriteGroups writes one entry per broken rule: the rule's words, how many runs broke it,
// its findings and its smallest one's regression file.
func WriteGroups(w io.Writer, sum *Summary) {
	for i, gr := range sum.Groups {
		small := sum.Findings[gr.Shortest]
		fmt.Fprintf(w, "\nrule %d [%s] broken by %s: %s\n  %d runs, %d distinct failures; the smallest (%s, %d %s): %s\n",
			i+1, gr.Rule.ID, filepath.Base(gr.Subject.Path), gr.Rule.Words, gr.Runs, len(gr.Findings),
			small.Sig.Kind, small.Steps[1], small.Unit, smallestWhere(small))
		if small.Replay != "" {
			fmt.Fprintf(w, "  replay: %s\n", small.Replay)
		}
	}
}

// smallestWhere says where a finding's case is: its regression file, or its description.
func smallestWhere(fd Finding) string {
	if fd.File != "" {
		return fd.File + verifiedNote(fd.Verified)
	}
	return fd.Minimised
}
