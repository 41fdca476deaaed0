// Package cohort grades several submissions with one budget of slots (gauntlet grade with
// several folders, or -out): the scheduling, the resumption from the reports already
// written, the progress and the cohort's table. The command line (flags, the program
// folders, how one submission is built) stays in cmd/gauntlet, which hands it a Config.
package cohort

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"gauntlet/harness/box/sandbox"
	"gauntlet/harness/grading/build"
	"gauntlet/harness/grading/grade"
	"gauntlet/harness/grading/term"
)

// A cohort run grades several submissions with one budget of -j busy slots (grade.Slots),
// each submission as a grade alone would be graded: its build takes a busy slot; then its
// grade (grade.Run) runs its busy cases in the shared busy slots, and its cases that wait,
// and those found quiet (a submission that hangs), in slots of its own, as many as a grade
// alone has. A free busy slot goes to the earliest submission that wants one, so the
// submissions finish roughly in the order given and each report is written as soon as it is
// done, while no slot idles when work remains (a later submission is built while an
// earlier one's last cases run). A submission whose programs never answer moves its cases
// out of the busy slots as it would alone, and costs the cohort about what it costs alone.
// See docs/grading.md.

// subState is where a submission is in a cohort run.
type subState int

const (
	queued   subState = iota // not built yet
	building                 // its build is running
	grading                  // built: its cases are being run
	finished                 // report made (or the grader could not grade it)
	resumed                  // its report was already in the -out folder
)

// submission is one DIR of a cohort run.
type submission struct {
	name    string // its folder's base name, made unique: the report's file name
	dir     string // absolute path
	state   subState
	spare   bool // from Config.Spare: left out unless this run grades it
	subj    grade.Subject
	built   *build.Result
	scratch string // its own scratch folder: build copy and case folders
	started time.Time
	done    int // case runs finished
	total   int // case runs to run (grade.Game.CaseRuns), once built
	report  *grade.Report
	problem string // the harness error that stopped it
}

// Spare is a submission a run may grade when nobody else does (Config.Spare).
type Spare struct{ Dir, Name string }

// Config is a cohort run: what is graded, with what, and where its reports go.
type Config struct {
	Game  grade.Game
	Cases []grade.Case // the cases to run (the -run selection)
	Dirs  []string     // the submissions' folders, in the order given
	// Names are the submissions' names (a shard's: named in the whole cohort); nil names
	// them from their folders (Names).
	Names []string
	// Spare are more submissions (a sharded grade's -steal: the other parts'), graded
	// after Dirs, each once Claim grants it; one that is not granted, or whose report is
	// already in OutDir, is left out of the run and of its table.
	Spare []Spare
	// Claim, when set, is asked for each submission just before its build (own: one of
	// Dirs, else of Spare): false (and why) leaves it to whoever holds it; release is
	// called once its report is written or its grade ends.
	Claim func(name string, own bool) (release func(), why string, ok bool)
	Jobs  int // slots: tasks run at once
	// Options are each submission's grading options (Jobs, Scratch, Slots, Priority, Stop
	// and OnOutcome are the run's own). Options.Cap bounds each submission's grade.
	Options grade.Options
	// StatusEvery is how often, when Stdout is not a terminal (a CI log, a file), a line on
	// Stderr says what is running, so that a long submission is seen to progress (0: every
	// 30 s). On a terminal the progress line says it.
	StatusEvery time.Duration
	// Scratch is the grade's scratch folder (each submission gets one of its own in it);
	// a second signal removes it before the process exits.
	Scratch string
	// Build builds the submission of folder dir in its scratch folder.
	Build func(dir, scratch string) (grade.Subject, *build.Result, error)
	// Isolation and Gauntlet are written in every report (grade.Report).
	Isolation, Gauntlet string
	// OutDir is where each report is written as NAME.json as soon as it is done, and
	// read back by a later run ("": nowhere).
	OutDir string
	// CSV, JUnit and HTML are the cohort's report files ("": none), written by WriteFile.
	CSV, JUnit, HTML string
	// Events, when set, is told of each case run as it ends and of each report as it is
	// made (gauntlet grade -events), the submissions by their names.
	Events         *grade.Events
	WriteFile      func(path string, fn func(io.Writer) error) error
	Stdout, Stderr io.Writer // the table and the progress line; the lines for people
}

type cohortRun struct {
	Config
	progress *progressLine // nil when stdout is not a terminal
	start    time.Time
	slots    *grade.Slots  // the busy slots, shared by every submission
	stop     chan struct{} // closed on an interrupt: start nothing more

	mu         sync.Mutex
	subs       []*submission
	stopping   bool      // interrupted: start nothing more
	errs       []string  // harness errors outside any case (reports that could not be written)
	lastStatus time.Time // the last status line off a terminal
}

// Names gives each folder a short unique name: its base name, with -2, -3, ...
// added to the second and later folders of the same base name, in argument order.
func Names(dirs []string) (names, abs []string, err error) {
	taken := map[string]bool{}
	seen := map[string]bool{}
	for _, d := range dirs {
		a, err := filepath.Abs(d)
		if err != nil {
			return nil, nil, err
		}
		if seen[a] {
			return nil, nil, fmt.Errorf("%s is given twice", d)
		}
		seen[a] = true
		abs = append(abs, a)
		taken[baseName(a)] = true
	}
	used := map[string]bool{}
	for _, a := range abs {
		n := baseName(a)
		if used[n] {
			k := 2
			for taken[fmt.Sprintf("%s-%d", n, k)] || used[fmt.Sprintf("%s-%d", n, k)] {
				k++
			}
			n = fmt.Sprintf("%s-%d", n, k)
		}
		used[n] = true
		names = append(names, n)
	}
	return names, abs, nil
}

func baseName(abs string) string {
	n := filepath.Base(abs)
	if n == string(filepath.Separator) || n == "." || n == "" {
		return "submission"
	}
	return n
}

// Run grades the submissions, prints the cohort table on Stdout and returns the exit
// status: 0 all passed, 1 a submission failed a case, 2 a harness error or an interrupt.
func Run(cfg Config) int {
	stdout, stderr := cfg.Stdout, cfg.Stderr
	names, abs, err := Names(cfg.Dirs)
	if err != nil {
		fmt.Fprintf(stderr, "gauntlet grade: %v\n", err)
		return 2
	}
	if cfg.Names != nil {
		names = cfg.Names
	}
	if cfg.OutDir != "" {
		if err := os.MkdirAll(cfg.OutDir, 0o755); err != nil {
			fmt.Fprintf(stderr, "gauntlet grade: -out: %v\n", err)
			return 2
		}
	}
	if cfg.StatusEvery <= 0 {
		cfg.StatusEvery = 30 * time.Second
	}
	c := &cohortRun{Config: cfg, start: time.Now(), slots: grade.NewSlots(cfg.Jobs), stop: make(chan struct{})}
	c.lastStatus = c.start
	for i, d := range abs {
		s := &submission{name: names[i], dir: d}
		rep, err := c.saved(s)
		if err != nil {
			fmt.Fprintf(stderr, "gauntlet grade: %v; use another -out folder, or remove the file to grade %s again\n", err, s.dir)
			return 2
		}
		if rep != nil {
			s.state, s.report = resumed, rep
			fmt.Fprintf(stderr, "gauntlet grade: %s: already graded in %s: not graded again\n", s.name, c.reportPath(s))
		}
		c.subs = append(c.subs, s)
	}
	for _, sp := range cfg.Spare {
		abs, err := filepath.Abs(sp.Dir)
		if err != nil {
			fmt.Fprintf(stderr, "gauntlet grade: %v\n", err)
			return 2
		}
		s := &submission{name: sp.Name, dir: abs, spare: true}
		if rep, err := c.saved(s); err != nil || rep != nil {
			continue // graded already (or not ours to overwrite)
		}
		c.subs = append(c.subs, s)
	}
	if term.IsTerminal(stdout) {
		c.progress = &progressLine{w: stdout, width: term.Width(stdout)}
	}

	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	quit := make(chan struct{})
	defer close(quit)
	go c.watch(sigs, quit)

	// The builds start in the order given: each submission's build slot is taken in turn
	// (at its priority, so that an earlier submission's cases come first), and its grade
	// goes on in a goroutine of its own.
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i, s := range c.subs {
			if s.state == resumed {
				continue
			}
			if !c.slots.Acquire(i, c.stop) {
				return // interrupted: the rest are not started
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				c.grade(i, s)
			}()
		}
	}()
	ticker := time.NewTicker(min(time.Second, cfg.StatusEvery))
	allDone := make(chan struct{})
	go func() { wg.Wait(); close(allDone) }()
	for waiting := true; waiting; {
		select {
		case <-ticker.C:
			c.mu.Lock()
			c.redraw(true)
			c.status()
			c.mu.Unlock()
		case <-allDone:
			waiting = false
		}
	}
	ticker.Stop()

	c.mu.Lock()
	defer c.mu.Unlock()
	if c.progress != nil {
		c.progress.clear()
	}
	return c.finish(stdout)
}

// watch turns the first SIGINT or SIGTERM into an orderly stop, and a second one into an
// immediate exit (the reports already written stay).
func (c *cohortRun) watch(sigs <-chan os.Signal, quit <-chan struct{}) {
	select {
	case sig := <-sigs:
		c.mu.Lock()
		c.stopping = true
		close(c.stop)
		if c.progress != nil {
			c.progress.clear()
		}
		fmt.Fprintf(c.Stderr, "gauntlet grade: %v: starting nothing more; waiting for the running cases (again to stop at once)\n", sig)
		c.mu.Unlock()
	case <-quit:
		return
	}
	select {
	case <-sigs:
		fmt.Fprintf(c.Stderr, "gauntlet grade: stopped; the reports already written are kept\n")
		sandbox.RemoveTree(c.Scratch)
		os.Exit(2)
	case <-quit:
	}
}

// grade grades submission s, the i-th, holding the busy slot of its build: its build,
// then its cases (grade.Run) in the shared busy slots and waiting slots of its own, at
// priority i.
func (c *cohortRun) grade(i int, s *submission) {
	c.mu.Lock()
	if c.stopping {
		c.mu.Unlock()
		c.slots.Release()
		return
	}
	c.mu.Unlock()
	if c.Claim != nil {
		release, why, ok := c.Claim(s.name, !s.spare)
		if !ok {
			c.mu.Lock()
			s.state, s.problem = finished, "elsewhere: "+why
			c.mu.Unlock()
			c.slots.Release()
			return
		}
		defer release()
	}
	c.mu.Lock()
	s.state = building
	c.redraw(false)
	c.mu.Unlock()
	built := c.build(s)
	c.slots.Release()
	if !built {
		return
	}
	opt := c.Options
	opt.Jobs, opt.Scratch = c.Jobs, s.scratch
	opt.Slots, opt.Priority, opt.Stop = c.slots, i, c.stop
	opt.OnAlone = func(o grade.Outcome) { c.Events.Alone(s.name, o) }
	opt.OnOutcome = func(o grade.Outcome) {
		c.Events.Case(s.name, o)
		c.mu.Lock()
		s.done++
		c.redraw(false)
		c.mu.Unlock()
	}
	outs := grade.Run(c.Game, c.Cases, s.subj, opt)
	if len(outs) < s.total {
		return // interrupted: finish says how far it got
	}
	c.complete(s, outs)
}

// build builds s in a scratch folder of its own and says whether it can be graded.
func (c *cohortRun) build(s *submission) bool {
	s.started = time.Now()
	dir, err := os.MkdirTemp(c.Scratch, "sub-")
	if err == nil {
		err = os.Chmod(dir, 0o711) // for the sandbox users (grade.Options.SandboxUsers)
	}
	var subj grade.Subject
	var built *build.Result
	if err == nil {
		subj, built, err = c.Build(s.dir, dir)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s.scratch = dir
	if err != nil {
		s.state, s.problem = finished, "HARNESS-ERROR: "+err.Error()
		sandbox.RemoveTree(dir)
		c.finishedLine(s)
		c.redraw(true)
		return false
	}
	s.subj, s.built, s.state = subj, built, grading
	s.total = c.Game.CaseRuns(c.Cases, subj)
	c.redraw(true)
	return true
}

// complete makes a submission's report once all its cases ran, and writes it to -out.
func (c *cohortRun) complete(s *submission, outs []grade.Outcome) {
	rep := grade.NewReport(c.Game, s.subj.Name, s.started, s.built, outs)
	rep.Notes = append(append([]string(nil), s.subj.Notes...), rep.Notes...)
	rep.Isolation = c.Isolation
	rep.Gauntlet, rep.Suite = c.Gauntlet, grade.SuiteDigest(c.Cases)
	c.Events.Report(s.name, rep)
	var werr error
	if c.OutDir != "" {
		werr = WriteAtomic(c.reportPath(s), rep.WriteJSON)
	}
	if err := sandbox.RemoveTree(s.scratch); err != nil {
		fmt.Fprintf(c.Stderr, "gauntlet grade: HARNESS-ERROR: %s: its scratch folder could not be removed: %v\n", s.dir, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s.report, s.state = rep, finished
	if werr != nil {
		c.errs = append(c.errs, fmt.Sprintf("%s: cannot write its report: %v", s.name, werr))
	}
	c.finishedLine(s)
	c.redraw(true)
}

// finishedLine says on stderr that a submission is done, when stdout is not a terminal
// (CI logs, a file): the progress line is shown only on a terminal, and without a line per
// submission a long cohort prints nothing until its table, which looks like a hang. The
// line: how many are done of all, the submission, its marks, its verdict counts and the
// time it took from the start of its build. Called with c.mu held.
func (c *cohortRun) finishedLine(s *submission) {
	if c.progress != nil {
		return
	}
	done := 0
	for _, x := range c.subs {
		if x.state == finished || x.state == resumed {
			done++
		}
	}
	took := time.Since(s.started).Round(100 * time.Millisecond)
	if s.report == nil {
		fmt.Fprintf(c.Stderr, "gauntlet grade: [%d/%d] %s: %s (after %v)\n", done, len(c.subs), s.name, s.problem, took)
		return
	}
	fmt.Fprintf(c.Stderr, "gauntlet grade: [%d/%d] %s: %s/%g marks (%s) in %v\n", done, len(c.subs), s.name,
		s.report.TotalText(), s.report.MaxMarks, s.report.CountsLine(), took)
}

func (c *cohortRun) reportPath(s *submission) string {
	return filepath.Join(c.OutDir, s.name+".json")
}

// saved reads a submission's report from the -out folder when it is there. A file there
// that is not a report of this submission on these cases is an error: grading again would
// overwrite it, and it may be the only copy of a long run's results (another -run, another
// folder of the same name, the suite changed).
func (c *cohortRun) saved(s *submission) (*grade.Report, error) {
	if c.OutDir == "" {
		return nil, nil
	}
	path := c.reportPath(s)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	var rep grade.Report
	if err == nil {
		err = json.Unmarshal(data, &rep)
	}
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s is not a report (%v)", path, err)
	case rep.Version != grade.ReportVersion || rep.Game != c.Game.Name || rep.Subject != s.dir:
		return nil, fmt.Errorf("%s is the report of another run (version %d, game %s, subject %s)",
			path, rep.Version, rep.Game, rep.Subject)
	case !sameCases(rep.Cases, c.Cases) || rep.Suite != "" && rep.Suite != grade.SuiteDigest(c.Cases):
		return nil, fmt.Errorf("%s covers other cases (another -run, or the suite changed)", path)
	}
	return &rep, nil
}

// sameCases reports whether a saved report ran exactly the given cases.
func sameCases(saved []grade.CaseReport, cases []grade.Case) bool {
	have := map[string]bool{}
	for _, c := range saved {
		have[c.ID] = true
	}
	if len(have) != len(cases) {
		return false
	}
	for _, c := range cases {
		if !have[c.ID] {
			return false
		}
	}
	return true
}

// WriteAtomic writes path through a temporary file in the same folder and a rename, so an
// interrupted write never leaves a half report that a resumed run would trust.
func WriteAtomic(path string, fn func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	if err := fn(tmp); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// finish prints the cohort table, writes -csv and -junit, and returns the exit status.
// Called with c.mu held, after every task ended.
func (c *cohortRun) finish(stdout io.Writer) int {
	table := grade.NewCohort(c.Game)
	var reports []*grade.Report
	status := 0
	for _, s := range c.subs {
		elsewhere := strings.HasPrefix(s.problem, "elsewhere: ")
		if s.spare && s.report == nil && (s.state == queued || elsewhere) {
			continue // another part's, which this run did not take
		}
		row := grade.CohortRow{Name: s.name, Report: s.report}
		switch {
		case elsewhere:
			row.State, row.Problem = grade.Elsewhere, strings.TrimPrefix(s.problem, "elsewhere: ")
		case s.state == resumed:
			row.State = grade.Resumed
		case s.report != nil:
			row.State = grade.Graded
		case s.problem != "":
			row.State, row.Problem = grade.Errored, s.problem
			status = 2
		default:
			row.State = grade.Interrupted
			row.Problem = fmt.Sprintf("interrupted after %d of %d case runs", s.done, s.total)
			if s.state == queued {
				row.Problem = "not started"
			}
			sandbox.RemoveTree(s.scratch)
			status = 2
		}
		if s.report != nil {
			reports = append(reports, s.report)
			switch {
			case len(s.report.Harness) > 0:
				status = 2
			case s.report.Failed() && status == 0:
				status = 1
			}
		}
		table.Rows = append(table.Rows, row)
	}
	if err := table.WriteTable(stdout); err != nil {
		c.errs = append(c.errs, err.Error())
	}
	if err := c.WriteFile(c.CSV, table.WriteCSV); err != nil {
		c.errs = append(c.errs, "-csv: "+err.Error())
	}
	if err := c.WriteFile(c.JUnit, func(w io.Writer) error { return grade.WriteJUnit(w, reports...) }); err != nil {
		c.errs = append(c.errs, "-junit: "+err.Error())
	}
	if err := c.WriteFile(c.HTML, table.WriteHTML); err != nil {
		c.errs = append(c.errs, "-html: "+err.Error())
	}
	for _, e := range c.errs {
		fmt.Fprintf(c.Stderr, "gauntlet grade: HARNESS-ERROR: %s\n", e)
	}
	for _, s := range c.subs {
		HarnessErrors(c.Stderr, "gauntlet grade", s.name, s.report)
	}
	for _, s := range c.subs {
		if s.report != nil && s.state != resumed {
			for _, n := range s.report.Notes {
				fmt.Fprintf(c.Stderr, "gauntlet grade: %s: note: %s\n", s.name, n)
			}
		}
	}
	if len(c.errs) > 0 {
		status = 2
	}
	return status
}

// HarnessErrors says on w that a report has cases with a HARNESS-ERROR, if it has.
func HarnessErrors(w io.Writer, cmd, name string, r *grade.Report) {
	if r != nil && len(r.Harness) > 0 {
		fmt.Fprintf(w, "%s: %s: HARNESS-ERROR in %d case(s), not marked: %s\n", cmd, name, len(r.Harness), strings.Join(r.Harness, "; "))
	}
}

// redraw shows the progress line (called with c.mu held). Unless forced, it draws at most
// ten times a second.
func (c *cohortRun) redraw(force bool) {
	p := c.progress
	if p == nil || !force && time.Since(p.drawn) < 100*time.Millisecond {
		return
	}
	p.draw(c.line())
}

// status writes the progress line on Stderr as a line of its own when Stdout is not a
// terminal, every StatusEvery (called with c.mu held): without it a submission that
// takes long (one that hangs) would show nothing until it is done.
func (c *cohortRun) status() {
	if c.progress != nil || time.Since(c.lastStatus) < c.StatusEvery {
		return
	}
	c.lastStatus = time.Now()
	fmt.Fprintf(c.Stderr, "gauntlet grade: %s\n", c.line())
}

// line says how far the cohort is: the time, the submissions done, each running one's
// case runs done of all (or "building"), how many wait (called with c.mu held).
func (c *cohortRun) line() string {
	done, waiting := 0, 0
	var running []string
	for _, s := range c.subs {
		switch s.state {
		case finished, resumed:
			done++
		case queued:
			waiting++
		case building:
			running = append(running, s.name+" building")
		case grading:
			running = append(running, fmt.Sprintf("%s %d/%d", s.name, s.done, s.total))
		}
	}
	sort.Strings(running)
	line := fmt.Sprintf("[%s] %d/%d done", time.Since(c.start).Round(time.Second), done, len(c.subs))
	if len(running) > 0 {
		line += ", running: " + strings.Join(running, ", ")
	}
	if waiting > 0 {
		line += fmt.Sprintf(", %d waiting", waiting)
	}
	if c.stopping {
		line += " (interrupted: finishing the running cases)"
	}
	return line
}

// progressLine is a status line redrawn in place on a terminal.
type progressLine struct {
	w     io.Writer
	width int // the terminal's columns: longer lines would wrap and break the redraw
	shown int // the length of the line on screen
	drawn time.Time
}

func (p *progressLine) draw(s string) {
	if r := []rune(s); len(r) > p.width-1 {
		s = string(r[:max(p.width-1, 0)])
	}
	n := len([]rune(s))
	pad := strings.Repeat(" ", max(p.shown-n, 0))
	fmt.Fprintf(p.w, "\r%s%s\r%s", s, pad, s)
	p.shown, p.drawn = n, time.Now()
}

func (p *progressLine) clear() {
	if p.shown > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.shown))
		p.shown = 0
	}
}
