package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"

	"gauntlet/harness/box/execfile"
	"gauntlet/harness/box/sandbox"
	"gauntlet/harness/grading/build"
	"gauntlet/harness/grading/grade"
	"gauntlet/harness/grading/grade/cohort"
	"gauntlet/harness/grading/scriptcmds"
	"gauntlet/programs"
	"gauntlet/testscripts"
)

const gradeUsage = `usage: gauntlet grade GAME [flags] [DIR...]

Grades the submission in DIR on GAME's conformance suite: copies DIR to a scratch folder,
runs make there, finds the programs the spec names, runs every case (in the pairings that
tell whether the hub or the players are wrong), and prints a report with marks by the spec's
categories. With no DIR it grades the built-in reference programs.

With several DIRs (or with -out) it grades a cohort: each submission in isolation, several
at once within the -j budget, a progress line on a terminal, and a table with one row per
submission at the end. -out DIR keeps each submission's JSON report as soon as it is done;
a rerun with the same -out skips the submissions already reported there (resume). On SIGINT
it stops starting cases, lets the running ones end, and keeps what is done (a second SIGINT
stops at once). With -shard K/N it grades only the K-th of N parts of the cohort, for N
machines grading it together; gauntlet merge makes the cohort's reports from the parts'.
Flags may come before or after the folders ("--" ends them). Details: docs/grading.md.

Exit status: 0 when every case passes, 1 when any fails (or a build fails), 2 on a usage or
harness error, or when a cohort run was interrupted.

Flags:
`

type progFlags map[string]string

func (p progFlags) String() string { return fmt.Sprint(map[string]string(p)) }
func (p progFlags) Set(s string) error {
	name, path, ok := strings.Cut(s, "=")
	if !ok || name == "" || path == "" {
		return fmt.Errorf("want NAME=PATH, got %q", s)
	}
	p[name] = path
	return nil
}

type gradeFlags struct {
	jobs         int
	run          string
	timeout      time.Duration
	subTimeout   time.Duration // -submission-timeout: grade.Options.Cap
	explain      bool
	noBuild      bool
	verbose      bool
	failfast     bool
	jsonFile     string
	junitFile    string
	htmlFile     string
	gradescope   string
	csvFile      string
	eventsFile   string // -events: the event stream (grade.Events)
	outDir       string
	keepDir      string
	progs        progFlags
	limits       sandbox.Limits
	unsafe       bool
	suite        string
	gsVisibility string
	cpuProfile   string // -cpuprofile: the grader's own CPU profile (gradeCmd)
	// boxed: builds and cases run in boxes (set from the machine, see boxDecision)
	boxed bool
	// noBox: boxed at the level below the box (sandbox users without namespaces); isolation
	// names the level reached, for the report.
	noBox     bool
	isolation string
	// hide: the submission folders a build must not see (every one of the grade's)
	hide []string
	// shard: -shard K/N; names: the cohort's names of the shard's folders (shard.go)
	shard shardFlag
	names []string
	// steal: -steal, with spare the other parts' submissions it may take (claim.go)
	steal bool
	spare []cohort.Spare
}

// gradeFlagSet defines gauntlet grade's flags into f.
func gradeFlagSet(f *gradeFlags, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("gauntlet grade", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.progs = progFlags{}
	fs.IntVar(&f.jobs, "j", 2, "busy cases run at once, with the cases that wait on purpose beside them (in a cohort: slots shared by all submissions)")
	fs.StringVar(&f.run, "run", "", "only the cases whose id matches this regular expression")
	fs.DurationVar(&f.timeout, "timeout", 0, "default deadline of each program run in a case (default: the game's; cases that set their own keep it)")
	fs.DurationVar(&f.subTimeout, "submission-timeout", 0, "wall time one submission's cases may take (e.g. 10m; default: no cap): once passed, its cases not started yet are TIMEOUT, not run (a backstop for a submission that hangs)")
	fs.BoolVar(&f.explain, "explain", false, "print what each case runs and checks, without running it")
	fs.BoolVar(&f.noBuild, "no-build", false, "use the programs in DIR as they are, without make")
	fs.BoolVar(&f.verbose, "v", false, "show the full log of every failed case")
	fs.BoolVar(&f.failfast, "failfast", false, "stop at the first failed case (one folder only)")
	fs.StringVar(&f.jsonFile, "json", "", "write the report as JSON to `FILE` (docs/report-format.md)")
	fs.StringVar(&f.junitFile, "junit", "", "write the report as JUnit XML to `FILE` (a cohort: one testsuite per submission)")
	fs.StringVar(&f.htmlFile, "html", "", "write the report as one self-contained HTML page to `FILE`: marks, failures grouped, each conversation up to its first divergence (a cohort: a sortable table of the submissions first, then the cohort's dashboard, then a section per submission)")
	fs.StringVar(&f.gradescope, "gradescope", "", "write a Gradescope results.json to `FILE`")
	fs.StringVar(&f.gsVisibility, "gradescope-visibility", "visible", "visibility of the Gradescope results: visible, hidden, after_due_date or after_published")
	fs.StringVar(&f.eventsFile, "events", "", "stream one JSON line per case run to `FILE` as it ends, and one per report (- for stdout; docs/report-format.md)")
	fs.StringVar(&f.csvFile, "csv", "", "write the cohort table (one row per submission) as CSV to `FILE`")
	fs.StringVar(&f.suite, "suite", "", "grade with the cases of `PATH` (a folder of .txtar cases, or one case file, e.g. a fuzzer's regression file) instead of the built-in suite")
	fs.StringVar(&f.keepDir, "keep", "", "keep each failed case run in `DIR`/CASE (the case, what its run left, its log) with a rerun.sh that runs it again with -v (one submission)")
	fs.StringVar(&f.outDir, "out", "", "cohort: write each submission's JSON report to `DIR`/NAME.json as soon as it is done; skip those already there")
	fs.BoolVar(&f.unsafe, "unsafe", false, "grade even where the machine cannot box the submission (a root grader without namespaces): the submission then runs unboxed and could read the expected outputs; never for marks")
	fs.Var(&f.shard, "shard", "`K/N`: grade only the K-th of N parts of the cohort (needs -out; every part is given all the folders and picks its own, the same whatever their order; gauntlet merge puts the parts' reports together)")
	fs.BoolVar(&f.steal, "steal", false, "with -shard and one -out folder all the shards share: once its own part is graded, grade the other parts' submissions no shard has started (claims in -out/.claims), so that no part waits for a slow one; every shard of the run must have it")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the grader's own process to `FILE` (go tool pprof; the programs it starts are not in it: docs/grading.md, \"Speed\")")
	fs.Var(f.progs, "prog", "NAME=PATH: use PATH (relative to DIR) as the spec's program NAME (repeatable)")
	f.limits.AddFlags(fs)
	// The CPU time's default is the game's own (grade.Game.CPU), or the sandbox's.
	cpuFlag := fs.Lookup("cpu")
	cpuFlag.Usage, cpuFlag.DefValue = "CPU time each subject process may use (default: the game's, from its protocol: "+gameCPUs()+")", "0s"
	return fs
}

// gradeCases loads the cases to grade (the game's suite or -suite's) and the -run filter,
// and checks them; false when it said on stderr why they cannot be graded.
func gradeCases(g grade.Game, f gradeFlags, stderr io.Writer) ([]grade.Case, *regexp.Regexp, bool) {
	var filter *regexp.Regexp
	if f.run != "" {
		re, err := regexp.Compile(f.run)
		if err != nil {
			fmt.Fprintf(stderr, "gauntlet grade: -run: %v\n", err)
			return nil, nil, false
		}
		filter = re
	}
	cases, err := loadSuite(g, f.suite)
	if err != nil {
		if f.suite != "" {
			fmt.Fprintf(stderr, "gauntlet grade: -suite %s: %v\n", f.suite, err)
			return nil, nil, false
		}
		fmt.Fprintf(stderr, "gauntlet grade: HARNESS-ERROR: %v\n", err)
		return nil, nil, false
	}
	if unknown := grade.UnknownCategories(g, cases); len(unknown) > 0 {
		fmt.Fprintf(stderr, "gauntlet grade: HARNESS-ERROR: the suite uses categories the game does not define: %s\n", strings.Join(unknown, ", "))
		return nil, nil, false
	}
	if len(selectCases(cases, filter)) == 0 {
		fmt.Fprintf(stderr, "gauntlet grade: -run %q matches no case of %s (see -explain for the case ids)\n", f.run, g.Name)
		return nil, nil, false
	}
	return cases, filter, true
}

// gradeShard, with -shard K/N, plans the cohort's parts and returns the manifest and the
// folders of part K (with f.hide and f.names set); with none all the folders. A status
// other than 0 ends the grade: a usage error, or a part with no folder of its own.
func gradeShard(g grade.Game, dirs []string, f *gradeFlags, cases []grade.Case, stderr io.Writer) (*shardManifest, []string, int) {
	if f.shard.n == 0 {
		return nil, dirs, 0
	}
	if err := shardUsage(dirs, *f); err != nil {
		fmt.Fprintf(stderr, "gauntlet grade: %v\n", err)
		return nil, nil, 2
	}
	shard, err := planShard(dirs, *f, g.Name, grade.SuiteDigest(cases))
	if err != nil {
		fmt.Fprintf(stderr, "gauntlet grade: %v\n", err)
		return nil, nil, 2
	}
	for _, s := range shard.Cohort {
		if s.Shard != f.shard.k {
			f.hide = append(f.hide, s.Subject) // the other parts' folders, hidden from builds too
		}
	}
	dirs, f.names = shard.mine(f.shard.k)
	if f.steal {
		// The other parts' submissions, the last of the plan first: those their part
		// would reach last.
		for i := len(shard.Cohort) - 1; i >= 0; i-- {
			if s := shard.Cohort[i]; s.Shard != f.shard.k {
				f.spare = append(f.spare, cohort.Spare{Dir: s.Subject, Name: s.Name})
			}
		}
	}
	if len(dirs) == 0 && len(f.spare) == 0 {
		return shard, nil, emptyShard(shard, *f, stderr)
	}
	return shard, dirs, 0
}

func gradeCmd(args []string, stdout, stderr io.Writer) int {
	var f gradeFlags
	fs := gradeFlagSet(&f, stderr)
	usageTo := func(w io.Writer) {
		fmt.Fprint(w, gradeUsage)
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(stderr)
		fmt.Fprintf(w, "\nGames: %s\n", strings.Join(programs.GradeGames(), ", "))
	}
	fs.Usage = func() { usageTo(stderr) }
	if wantsHelp(args) {
		usageTo(stdout)
		return 0
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fs.Usage()
		return 2
	}
	g, ok := programs.GradeGame(args[0])
	if !ok {
		fmt.Fprintf(stderr, "gauntlet grade: unknown game %q%s (games: %s)\n", args[0], didYouMean(args[0], programs.GradeGames()), strings.Join(programs.GradeGames(), ", "))
		return 2
	}
	positional, err := parseInterspersed(fs, args[1:], stderr)
	if err != nil {
		return 2
	}
	dashes := 0
	for _, out := range []string{f.jsonFile, f.junitFile, f.htmlFile, f.gradescope, f.csvFile, f.eventsFile} {
		if out == "-" {
			dashes++
		}
	}
	if dashes > 1 {
		fmt.Fprint(stderr, "gauntlet grade: only one report can go to stdout (-)\n")
		return 2
	}
	reportStdout = stdout
	if dashes == 1 {
		// The report takes stdout; the summary goes to stderr.
		stdout = stderr
	}
	if err := checkValues(fs, f); err != nil {
		fmt.Fprintf(stderr, "gauntlet grade: %v\n", err)
		return 2
	}
	cpuGiven := false
	fs.Visit(func(fl *flag.Flag) { cpuGiven = cpuGiven || fl.Name == "cpu" })
	if !cpuGiven {
		f.limits.CPU = 0 // the game's (grade.Run)
	}
	if !slices.Contains(grade.GradescopeVisibilities, f.gsVisibility) {
		fmt.Fprintf(stderr, "gauntlet grade: -gradescope-visibility %q: want one of %s\n", f.gsVisibility, strings.Join(grade.GradescopeVisibilities, ", "))
		return 2
	}
	cases, filter, ok := gradeCases(g, f, stderr)
	if !ok {
		return 2
	}
	if f.explain {
		explain(stdout, g, cases, filter)
		return 0
	}
	dirs := positional
	for _, d := range dirs {
		if st, err := os.Stat(d); err != nil {
			fmt.Fprintf(stderr, "gauntlet grade: %s: no such folder\n", d)
			return 2
		} else if !st.IsDir() {
			fmt.Fprintf(stderr, "gauntlet grade: %s is not a folder\n", d)
			return 2
		}
	}
	shard, dirs, status := gradeShard(g, dirs, &f, selectCases(cases, filter), stderr)
	if status != 0 || shard != nil && len(dirs) == 0 && len(f.spare) == 0 {
		return status // a usage error, or a part with no folder of its own
	}
	if f.steal && shard == nil {
		fmt.Fprintf(stderr, "gauntlet grade: -steal is for a sharded grade (-shard K/N), whose shards share one -out folder\n")
		return 2
	}
	isCohort := len(dirs) > 1 || f.outDir != ""
	if isCohort && (len(dirs) > 0 || len(f.spare) == 0) { // a shard stealing with no part of its own is checked by shardUsage
		if err := cohortUsage(dirs, f); err != nil {
			fmt.Fprintf(stderr, "gauntlet grade: %v\n", err)
			return 2
		}
	}
	// -cpuprofile: from here, the box's first look at the machine included (the search for
	// the judge's files); written once the grade ends, and only if the command line passed
	// every check (checked).
	checked := false
	if f.cpuProfile != "" {
		var prof bytes.Buffer
		if err := pprof.StartCPUProfile(&prof); err != nil {
			fmt.Fprintf(stderr, "gauntlet grade: -cpuprofile: %v\n", err)
			return 2
		}
		defer func() {
			pprof.StopCPUProfile()
			if !checked {
				return
			}
			if err := os.WriteFile(f.cpuProfile, prof.Bytes(), 0o644); err != nil {
				fmt.Fprintf(stderr, "gauntlet grade: -cpuprofile: %v\n", err)
			}
		}()
	}
	notes, err := boxDecision(&f, len(dirs) > 0 || len(f.spare) > 0)
	if err != nil {
		fmt.Fprintf(stderr, "gauntlet grade: %v\n", err)
		return 2
	}
	// Every usage error is known by now: only now are the report paths checked and the
	// -out and -keep folders made, so that a refused command line leaves nothing behind.
	if err := checkOutputs(f); err != nil {
		fmt.Fprintf(stderr, "gauntlet grade: %v\n", err)
		return 2
	}
	checked = true
	// The first line, at once: what is graded and how much, before the slow steps (the
	// program folders, make, the first case).
	fmt.Fprintln(stderr, startLine(g.Name, dirs, len(selectCases(cases, filter)), caseRuns(g, selectCases(cases, filter)), f))
	for _, n := range notes {
		fmt.Fprintf(stderr, "gauntlet grade: note: %s\n", n)
	}
	if shard != nil {
		if err := shard.write(f.outDir, f.shard.k, f.shard.n); err != nil {
			fmt.Fprintf(stderr, "gauntlet grade: HARNESS-ERROR: -out: %v\n", err)
			return 2
		}
		fmt.Fprintf(stderr, "gauntlet grade: shard %s: %d of the cohort's %d submissions: %s\n", f.shard.String(), len(dirs), len(shard.Cohort), strings.Join(f.names, " "))
		if f.steal {
			fmt.Fprintf(stderr, "gauntlet grade: shard %s: -steal: then the other parts' submissions no shard has started (claims in %s)\n", f.shard.String(), filepath.Join(f.outDir, claimsDir))
		}
	}
	for _, d := range dirs {
		if abs, err := filepath.Abs(d); err == nil {
			f.hide = append(f.hide, abs)
		}
	}
	// Searchable by others: the sandbox users run the programs in here.
	scratch, scratchNote, err := grade.MakeScratch()
	if err != nil {
		fmt.Fprintf(stderr, "gauntlet grade: HARNESS-ERROR: %v\n", err)
		return 2
	}
	defer func() {
		if err := sandbox.RemoveTree(scratch); err != nil {
			fmt.Fprintf(stderr, "gauntlet grade: HARNESS-ERROR: the scratch folder %s could not be removed: %v\n", scratch, err)
		}
	}()
	if scratchNote != "" {
		fmt.Fprintf(stderr, "gauntlet grade: note: %s\n", scratchNote)
	}
	progs, err := programLinks(scratch)
	defer openPrograms(scratch) // (before the scratch folder's removal)
	if err != nil {
		fmt.Fprintf(stderr, "gauntlet grade: HARNESS-ERROR: %v\n", err)
		return 2
	}
	events, closeEvents, err := openEvents(f.eventsFile)
	if err != nil {
		fmt.Fprintf(stderr, "gauntlet grade: -events %s: %v\n", f.eventsFile, err)
		return 2
	}
	if isCohort {
		cfg := cohortConfig(g, selectCases(cases, filter), dirs, f, progs, scratch, stdout, stderr)
		cfg.Events = events
		if f.steal {
			cfg.Claim = newClaimer(f.outDir, f.shard.String()).claim
		}
		status = cohort.Run(cfg)
	} else {
		status = gradeOne(g, cases, filter, dirs, f, notes, progs, scratch, events, stdout, stderr)
	}
	if err := closeEvents(); err != nil {
		fmt.Fprintf(stderr, "gauntlet grade: HARNESS-ERROR: -events %s: %v\n", f.eventsFile, err)
		return 2
	}
	return status
}

// openEvents opens the event stream of -events path ("-": stdout; "": none, a nil
// *grade.Events, which writes nothing); the function returned closes it and says whether
// every event was written.
func openEvents(path string) (*grade.Events, func() error, error) {
	switch path {
	case "":
		return nil, func() error { return nil }, nil
	case "-":
		ev := grade.NewEvents(reportStdout)
		return ev, ev.Err, nil
	}
	// A new file: one planted at path (a link) is replaced, never written through.
	os.Remove(path)
	file, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, nil, err
	}
	ev := grade.NewEvents(file)
	return ev, func() error {
		err := ev.Err()
		if cerr := file.Close(); err == nil {
			err = cerr
		}
		return err
	}, nil
}

// cohortConfig is a cohort grade as the flags set it up.
func cohortConfig(g grade.Game, cases []grade.Case, dirs []string, f gradeFlags, progs programFolders, scratch string, stdout, stderr io.Writer) cohort.Config {
	return cohort.Config{Game: g, Cases: cases, Dirs: dirs, Names: f.names, Jobs: f.jobs,
		Options: grade.Options{Timeout: f.timeout, Cap: f.subTimeout, BinDir: progs.bin, Published: progs.published, Limits: f.limits,
			SandboxUsers: f.boxed, NoBox: f.noBox, Unsafe: f.unsafe},
		Scratch: scratch,
		Build: func(dir, scratch string) (grade.Subject, *build.Result, error) {
			return buildSubject(g, dir, scratch, f)
		},
		Isolation: f.isolation, Gauntlet: graderID(), OutDir: f.outDir, Spare: f.spare,
		CSV: f.csvFile, JUnit: f.junitFile, HTML: f.htmlFile, WriteFile: writeFile,
		Stdout: stdout, Stderr: stderr}
}

// gradeOne grades one subject (the folder in dirs, or the built-in reference programs with
// none), prints its summary and writes its report files.
func gradeOne(g grade.Game, cases []grade.Case, filter *regexp.Regexp, dirs []string, f gradeFlags, notes []string, progs programFolders, scratch string, events *grade.Events, stdout, stderr io.Writer) int {
	started := time.Now()
	var subj grade.Subject
	var built *build.Result
	if len(dirs) == 0 {
		// The built-in subject: the reference programs themselves.
		subj = grade.Subject{Name: "built-in reference programs", Programs: map[string]string{}}
		for _, p := range g.Programs {
			subj.Programs[p.Name] = progs.published[p.Name]
		}
	} else {
		var err error
		subj, built, err = buildSubject(g, dirs[0], scratch, f)
		if err != nil {
			fmt.Fprintf(stderr, "gauntlet grade: HARNESS-ERROR: %v\n", err)
			return 2
		}
	}
	stop, stopped := interruptible(scratch, stderr)
	defer stopped()
	live := newProgress(stderr, g, g.CaseRuns(selectCases(cases, filter), subj), f.failfast)
	anyStop := make(chan struct{})
	go func() {
		select {
		case <-stop:
		case <-live.stop:
		}
		close(anyStop)
	}()
	opt := grade.Options{Jobs: f.jobs, Run: filter, Timeout: f.timeout, Cap: f.subTimeout, BinDir: progs.bin, Published: progs.published,
		Scratch: scratch, Limits: f.limits, Stop: anyStop, SandboxUsers: f.boxed, NoBox: f.noBox, Unsafe: f.unsafe,
		OnOutcome: func(o grade.Outcome) {
			events.Case(subj.Name, o)
			live.outcome(o)
		},
		OnAlone: func(o grade.Outcome) { events.Alone(subj.Name, o) }}
	if f.keepDir != "" {
		subjDir := ""
		if len(dirs) > 0 {
			subjDir = dirs[0]
		}
		opt.Keep, opt.Rerun = keepOptions(g, f, subjDir)
	}
	outs := grade.Run(g, cases, subj, opt)
	live.finish()
	rep := grade.NewReport(g, subj.Name, started, built, outs)
	rep.Notes = append(append(append([]string(nil), subj.Notes...), notes...), rep.Notes...)
	rep.Isolation = f.isolation
	rep.Gauntlet, rep.Suite = graderID(), grade.SuiteDigest(selectCases(cases, filter))
	if want := g.CaseRuns(selectCases(cases, filter), subj); len(outs) == want {
		events.Report(subj.Name, rep)
	}
	rep.WriteSummary(stdout, f.verbose)
	if want := g.CaseRuns(selectCases(cases, filter), subj); len(outs) < want && live.stopped {
		fmt.Fprintf(stdout, "STOPPED at the first failure (-failfast) after %d of %d case runs: no report file was written\n", len(outs), want)
		return 1
	} else if len(outs) < want {
		// Interrupted: what ran is shown, but a partial report is never written, so that
		// it cannot be mistaken for a grade.
		fmt.Fprintf(stdout, "INTERRUPTED after %d of %d case runs: the marks above cover only those; no report file was written\n", len(outs), want)
		return 2
	}
	if err := writeReports(g, rep, f); err != nil {
		fmt.Fprintf(stderr, "gauntlet grade: %v\n", err)
		return 2
	}
	switch {
	case len(rep.Harness) > 0:
		return 2
	case rep.Failed():
		return 1
	}
	return 0
}

// interruptible turns the first SIGINT or SIGTERM into a closed stop channel (start no more
// cases, finish the running ones) and a second one into an immediate exit 2, after removing
// the scratch folder (the running programs die with the grader: the sandbox gives them a
// parent-death signal). Call the returned function when the run is over.
func interruptible(scratch string, stderr io.Writer) (<-chan struct{}, func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	stop, quit := make(chan struct{}), make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			fmt.Fprintf(stderr, "gauntlet grade: %v: starting no more cases; waiting for the running ones (again to stop at once)\n", sig)
			close(stop)
		case <-quit:
			return
		}
		select {
		case <-sigs:
			fmt.Fprintf(stderr, "gauntlet grade: stopped\n")
			openPrograms(scratch)
			sandbox.RemoveTree(scratch)
			os.Exit(2)
		case <-quit:
		}
	}()
	return stop, func() { signal.Stop(sigs); close(quit) }
}

// startLine is the grade's first line: the game, what is graded, and the case runs ahead.
func startLine(game string, dirs []string, cases, runs int, f gradeFlags) string {
	build := "built with make first"
	if f.noBuild {
		build = "taken as they are, without make"
	}
	var what string
	switch {
	case len(dirs) == 0:
		what = "the built-in reference programs"
	case len(dirs) == 1 && f.outDir == "":
		what = dirs[0] + " (" + build + ")"
	default:
		what = fmt.Sprintf("%d submissions (each %s)", len(dirs), build)
		return fmt.Sprintf("gauntlet grade %s: grading %s: %s each (%s), -j %d", game, what, plural(runs, "case run"), plural(cases, "case"), f.jobs)
	}
	return fmt.Sprintf("gauntlet grade %s: grading %s: %s (%s), -j %d", game, what, plural(runs, "case run"), plural(cases, "case"), f.jobs)
}

// plural is "1 case" or "N cases".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// caseRuns counts the case runs (cases times their pairings) of a selection.
func caseRuns(g grade.Game, cases []grade.Case) int {
	n := 0
	for _, c := range cases {
		n += len(g.Pairings(c))
	}
	return n
}

// buildSubject builds a submission and maps the spec's program names to what it produced.
func buildSubject(g grade.Game, dir, scratch string, f gradeFlags) (grade.Subject, *build.Result, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return grade.Subject{}, nil, fmt.Errorf("%s is not a folder", dir)
	}
	var names []string
	for _, p := range g.Programs {
		names = append(names, p.Name)
	}
	res, err := build.Build(dir, scratch, names, build.Options{NoBuild: f.noBuild, Boxed: f.boxed, NoBox: f.noBox,
		Keep: filepath.SplitList(os.Getenv(scriptcmds.BoxKeepVar)), Hide: f.hide, Paths: f.progs})
	if err != nil {
		return grade.Subject{}, nil, err
	}
	abs, _ := filepath.Abs(dir)
	subj := grade.Subject{Name: abs, Programs: map[string]string{}}
	for _, name := range slices.Sorted(maps.Keys(f.progs)) {
		if f.boxed {
			// The boxed build published the -prog programs itself.
			if p := res.Programs[name]; res.OK && p != filepath.Join(res.Dir, "src", f.progs[name]) {
				subj.Notes = append(subj.Notes, fmt.Sprintf("-prog %s=%s: no executable file there after the build, so %s was looked for by its own name", name, f.progs[name], name))
			}
			continue
		}
		rel := f.progs[name]
		p := filepath.Join(res.Dir, rel)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			res.Programs[name] = p
			res.Missing = remove(res.Missing, name)
		} else if res.OK {
			subj.Notes = append(subj.Notes, fmt.Sprintf("-prog %s=%s: no executable file there after the build, so %s was looked for by its own name", name, rel, name))
		}
	}
	if res.OK || res.ByProgram {
		// After a failed make, what each program's own make built is graded (build.Result).
		subj.Programs = res.Programs
	}
	return subj, res, nil
}

func remove(list []string, s string) []string {
	var out []string
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

// executable finds the gauntlet binary that the program links point at (tests point it at
// a built gauntlet: a test binary cannot run as the programs under every build mode).
var executable = os.Executable

// boxDecision decides whether the grade runs builds and cases in boxes (f.boxed), and
// returns what the user must know about it: a root grader boxes everything, and refuses to
// grade a submission where the machine cannot give it a box, unless -unsafe; a grader that
// is not root cannot box anything, and says so (the subject then runs as the grader's user
// and could read the expected outputs: fine for a student checking their own work, not for
// marks).
func boxDecision(f *gradeFlags, submissions bool) (notes []string, err error) {
	if os.Geteuid() != 0 {
		// Not root: rootless boxes where the kernel lets this user make user namespaces.
		if problem := grade.BoxProblem(); problem == nil {
			f.boxed, f.isolation = true, "rootless box"
			if submissions {
				totals := "with case totals (your cgroups are delegated to you)"
				if problem := totalsProblem(); problem != nil {
					totals = fmt.Sprintf("without case totals (%v: each process has its limits)", problem)
				}
				notes = append(notes, "not root: each program runs as you in a rootless box (its own root, processes and network, the expected outputs out of its reach), "+totals+", and without a private folder size limit (docs/security.md)")
			}
			return notes, nil
		} else {
			// Where the kernel refuses user namespaces, as before: unboxed, said first.
			f.isolation = "none: not root, the programs run as the grader's user"
			if submissions {
				notes = append(notes, fmt.Sprintf("not root and no rootless box here (%v): the submission runs as you, without a box, and could read the expected outputs; grade as root for marks (docs/security.md)", problem))
			}
			return notes, nil
		}
	}
	if problem := grade.BoxProblem(); problem != nil {
		// Below the box, not nothing: a root grader in a container that refuses namespaces
		// can still run every program as a sandbox user with its limits.
		if grade.UsersProblem() == nil {
			f.boxed, f.noBox = true, true
			f.isolation = "sandbox users without namespaces"
			return []string{fmt.Sprintf("no namespaces here (%v): every program runs as a sandbox user of its own with its limits, the expected outputs in folders only the grader opens, but without the box (no root of its own, private /tmp, network or case totals); docs/security.md", problem)}, nil
		}
		if !f.unsafe {
			return nil, fmt.Errorf("cannot box the submission on this machine (%v); refusing to grade (-unsafe grades without the box, never for marks)", problem)
		}
		f.isolation = "none: -unsafe, the programs run as the grader's user"
		return []string{fmt.Sprintf("-unsafe: graded without the box (%v): the submission could read the expected outputs", problem)}, nil
	}
	f.boxed, f.isolation = true, "box"
	if problem := totalsProblem(); problem != nil {
		notes = append(notes, fmt.Sprintf("no case totals (%v): each process has its limits, but a case has no memory and process totals", problem))
	}
	return notes, nil
}

// totalsProblem is grade.TotalsProblem (a test's stand-in for a machine without totals).
var totalsProblem = grade.TotalsProblem

// programFolders are the reference and mock programs of a grade, in two kinds of folder
// (see programLinks).
type programFolders struct {
	// bin, the grader's own (mode 0700), holds this binary and a hard link to it named
	// after every program: the script's PATH, where the grader finds the programs it
	// starts (judges as itself, reference programs through the sandbox, which opens the
	// file before it drops to the case's user).
	bin string
	// published maps every program to the path sandbox users run it by, when a subject's
	// hub or runner starts it or when it is the built-in subject: a hard link named after
	// it, alone in a folder of its own whose name is drawn at random (grade.Options).
	published map[string]string
}

// programLinks makes the grade's program folders. Every program is a hard link to a copy
// of this binary, which runs as the program its file is named after (programs.Called), so
// that a subject handed one reference program (a hub handed reference players) can run
// that program and no other: it cannot rename the file, it cannot find the other folders,
// and the file named gauntlet, which runs as anything it is called, is in a folder only
// the grader may enter. The copy (a hard link when it can be) is there for the sandbox
// users: this binary may live where they cannot reach it, such as root's home or go run's
// build folder.
func programLinks(scratch string) (programFolders, error) {
	pf := programFolders{bin: filepath.Join(scratch, "bin"), published: map[string]string{}}
	self, err := executable()
	if err != nil {
		return pf, err
	}
	if err := os.Mkdir(pf.bin, 0o700); err != nil {
		return pf, err
	}
	own := filepath.Join(pf.bin, "gauntlet")
	if err := os.Link(self, own); err != nil {
		if err := execfile.CopyExecuteOnly(self, own); err != nil {
			return pf, err
		}
	}
	if st, err := os.Stat(own); err != nil || st.Mode().Perm()&0o777 != 0o711 || sandbox.Rootless() {
		// A hard link shares the original's mode: copy when others may read it or may not
		// run it. Others may only run it: it holds every suite, and a subject that could
		// read it could read the expected outputs.
		os.Remove(own)
		if err := execfile.CopyExecuteOnly(self, own); err != nil {
			return pf, err
		}
	}
	if sandbox.Rootless() {
		// Rootless, a subject has the grader's user, the copy's owner: the owner may only
		// run it too (the boxes bind it read-only, so no subject can change that; the
		// exec role reads it with a capability of its box's user namespace).
		if err := os.Chmod(own, 0o111); err != nil {
			return pf, err
		}
	}
	pub := filepath.Join(scratch, "programs")
	if err := os.Mkdir(pub, 0o711); err != nil {
		return pf, err
	}
	for _, p := range programs.All() {
		if err := os.Link(own, filepath.Join(pf.bin, p.Name)); err != nil {
			return pf, err
		}
		dir, err := os.MkdirTemp(pub, "")
		if err != nil {
			return pf, err
		}
		if err := os.Chmod(dir, 0o711); err != nil {
			return pf, err
		}
		pf.published[p.Name] = filepath.Join(dir, p.Name)
		if err := os.Link(own, pf.published[p.Name]); err != nil {
			return pf, err
		}
	}
	if sandbox.Rootless() {
		// Rootless, a subject has the grader's user, the folders' owner: the owner may
		// only search them too, or a subject handed one program could list the folder of
		// all of them and run any (the boxes bind them read-only, so no subject can change
		// that). openPrograms gives the grader back the right to list them, to remove them.
		for _, p := range pf.published {
			if err := os.Chmod(filepath.Dir(p), 0o111); err != nil {
				return pf, err
			}
		}
		if err := os.Chmod(pub, 0o111); err != nil {
			return pf, err
		}
	}
	// The programs are this binary: they go on in the sandbox's process instead of
	// starting it again (a copy is not the file /proc/self/exe names).
	sandbox.SetSelfCopy(own)
	return pf, nil
}

// openPrograms lets the grader list the folders of the published programs in scratch
// again (programLinks made them search-only when it is not root), so that the scratch
// folder can be removed.
func openPrograms(scratch string) {
	pub := filepath.Join(scratch, "programs")
	os.Chmod(pub, 0o711)
	if ents, err := os.ReadDir(pub); err == nil {
		for _, e := range ents {
			os.Chmod(filepath.Join(pub, e.Name()), 0o711)
		}
	}
}

func explain(w io.Writer, g grade.Game, cases []grade.Case, filter *regexp.Regexp) {
	for _, c := range cases {
		if filter != nil && !filter.MatchString(c.ID) {
			continue
		}
		var pairings []string
		for _, p := range g.Pairings(c) {
			pairings = append(pairings, string(p))
		}
		fmt.Fprintf(w, "=== %s\n%s\nsection: %s\ncategory: %s\npairings: %s (the first is marked)\n",
			c.ID, c.Title, c.Section, c.Category, strings.Join(pairings, ", "))
		if c.Requirement != "" {
			fmt.Fprintf(w, "requirement: %s\n", c.Requirement)
		}
		if c.Accept != "" {
			fmt.Fprintf(w, "also accepted: %s\n", c.Accept)
		}
		fmt.Fprintf(w, "script:\n%s\n", indentText(string(c.Script)))
	}
}

func indentText(s string) string {
	s = strings.TrimRight(s, "\n")
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}

// selectCases keeps the cases whose ID matches filter (all of them when it is nil).
func selectCases(cases []grade.Case, filter *regexp.Regexp) []grade.Case {
	var out []grade.Case
	for _, c := range cases {
		if filter == nil || filter.MatchString(c.ID) {
			out = append(out, c)
		}
	}
	return out
}

// writeReports writes the machine-readable reports the flags ask for, for one subject.
func writeReports(g grade.Game, rep *grade.Report, f gradeFlags) error {
	if err := writeFile(f.jsonFile, rep.WriteJSON); err != nil {
		return err
	}
	if err := writeFile(f.junitFile, func(w io.Writer) error { return grade.WriteJUnit(w, rep) }); err != nil {
		return err
	}
	if err := writeFile(f.htmlFile, func(w io.Writer) error { return grade.WriteHTML(w, rep) }); err != nil {
		return err
	}
	if err := writeFile(f.gradescope, func(w io.Writer) error { return rep.WriteGradescopeVisible(w, f.gsVisibility) }); err != nil {
		return err
	}
	return writeFile(f.csvFile, func(w io.Writer) error {
		c := grade.NewCohort(g)
		c.Rows = []grade.CohortRow{{Name: rowName(rep.Subject), State: grade.Graded, Report: rep}}
		return c.WriteCSV(w)
	})
}

// rowName is a single subject's name in a one-row table: its folder's base name.
func rowName(subject string) string {
	if !filepath.IsAbs(subject) {
		return "reference"
	}
	return filepath.Base(subject)
}

// writeFile creates path and writes it with fn; an empty path writes nothing.
// keepOptions are -keep's folder (absolute) and the command line its rerun scripts start
// with: this binary, grade, the game, the flags that change how a case runs, and the
// submission's folder (none for the built-in reference).
func keepOptions(g grade.Game, f gradeFlags, dir string) (string, []string) {
	keep, _ := filepath.Abs(f.keepDir)
	exe, err := executable()
	if err != nil {
		exe = "gauntlet"
	}
	cmd := []string{exe, "grade", g.Name}
	if f.timeout != 0 {
		cmd = append(cmd, "-timeout", f.timeout.String())
	}
	if f.noBuild {
		cmd = append(cmd, "-no-build")
	}
	if f.unsafe {
		cmd = append(cmd, "-unsafe")
	}
	for _, name := range slices.Sorted(maps.Keys(f.progs)) {
		cmd = append(cmd, "-prog", name+"="+f.progs[name])
	}
	if dir != "" {
		abs, _ := filepath.Abs(dir)
		cmd = append(cmd, abs)
	}
	return keep, cmd
}

// gameCPUs says each game's CPU time limit, "10s, stratego 1002s": the sandbox's default,
// then the games whose protocol sets another (grade.Game.CPU).
func gameCPUs() string {
	out := []string{fmt.Sprintf("%.0fs", sandbox.DefaultLimits().CPU.Seconds())}
	for _, name := range programs.GradeGames() {
		if g, ok := programs.GradeGame(name); ok && g.CPU > 0 {
			out = append(out, fmt.Sprintf("%s %.0fs", name, g.CPU.Seconds()))
		}
	}
	return strings.Join(out, ", ")
}

// checkValues refuses the flag values no grade can use, each with a message naming the
// flag: a -j below 1, a -timeout that is not a positive duration, and a limit given as 0
// (which would silently mean the default; leave the flag out for that).
func checkValues(fs *flag.FlagSet, f gradeFlags) error {
	if f.jobs <= 0 {
		return fmt.Errorf("-j %d: want at least 1", f.jobs)
	}
	var err error
	fs.Visit(func(fl *flag.Flag) {
		if err != nil {
			return
		}
		v := fl.Value.String()
		switch fl.Name {
		case "timeout":
			if f.timeout <= 0 {
				err = fmt.Errorf("-timeout %v: want a positive duration such as 5s (leave it out for the game's default)", f.timeout)
			}
		case "submission-timeout":
			if f.subTimeout <= 0 {
				err = fmt.Errorf("-submission-timeout %v: want a positive duration such as 10m (leave it out for no cap)", f.subTimeout)
			}
		case "cpu", "procs", "nofile", "mem", "fsize", "case-mem", "case-disk":
			if (v == "0" || v == "0s") && fl.Name == "cpu" {
				err = fmt.Errorf("-cpu 0: want more than 0 (leave it out for the game's default, %s)", gameCPUs())
			} else if v == "0" || v == "0s" {
				err = fmt.Errorf("-%s 0: want more than 0 (leave it out for the default, %s)", fl.Name, fl.DefValue)
			}
		}
	})
	if err != nil {
		return err
	}
	if err := f.limits.Validate(); err != nil {
		return err
	}
	return nil
}

// checkOutputs checks every report path (checkOutput) and makes the -out and -keep folders
// (checkOutDir), naming the flag of the first that fails.
func checkOutputs(f gradeFlags) error {
	for _, o := range []struct{ flag, path string }{{"json", f.jsonFile}, {"junit", f.junitFile},
		{"html", f.htmlFile}, {"gradescope", f.gradescope}, {"csv", f.csvFile}, {"events", f.eventsFile},
		{"cpuprofile", f.cpuProfile}} {
		if err := checkOutput(o.path); err != nil {
			return fmt.Errorf("-%s %s: %v", o.flag, o.path, err)
		}
	}
	for _, o := range []struct{ flag, dir string }{{"out", f.outDir}, {"keep", f.keepDir}} {
		if o.dir == "" {
			continue
		}
		if err := checkOutDir(o.dir); err != nil {
			return fmt.Errorf("-%s %s: %v", o.flag, o.dir, err)
		}
	}
	return nil
}

// checkOutput makes sure a report can be written at path before any case runs, so that a
// typo in a folder name does not cost a whole grade: the folder exists, a file can be made
// in it (as writeAtomic will make one), and path is not a folder. "" and "-" (stdout) pass.
func checkOutput(path string) error {
	if path == "" || path == "-" {
		return nil
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("is a folder")
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("no folder %s to write it in", dir)
	}
	return probeWritable(dir)
}

// checkOutDir makes sure -out's folder exists (it is made if missing) and can be written.
func checkOutDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return probeWritable(dir)
}

// probeWritable makes and removes a file in dir.
func probeWritable(dir string) error {
	tmp, err := os.CreateTemp(dir, ".gauntlet-write-check-*")
	if err != nil {
		return fmt.Errorf("cannot write in %s: %w", dir, errors.Unwrap(err))
	}
	tmp.Close()
	return os.Remove(tmp.Name())
}

func writeFile(path string, fn func(io.Writer) error) error {
	if path == "" {
		return nil
	}
	if path == "-" {
		return fn(reportStdout)
	}
	// Through a new file renamed into place: a link planted at path is replaced, never
	// written through, and a reader never sees half a report.
	return cohort.WriteAtomic(path, fn)
}

// loadSuite reads the game's built-in suite, or, with -suite, the cases of a folder or of
// one case file: staff add cases, and a fuzzer's regression file runs as it is written,
// without rebuilding gauntlet.
func loadSuite(g grade.Game, path string) ([]grade.Case, error) {
	if path == "" {
		if suite, ok := programs.Suite(g.Name); ok {
			return grade.LoadCases(suite, ".", g.ProgramVars())
		}
		return grade.LoadCases(testscripts.FS, g.Name, g.ProgramVars())
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		cases, err := grade.LoadCases(os.DirFS(path), ".", g.ProgramVars())
		if err == nil && len(cases) == 0 {
			err = fmt.Errorf("no .txtar case in the folder")
		}
		return cases, err
	}
	if !strings.HasSuffix(path, ".txtar") {
		return nil, fmt.Errorf("a case file's name ends in .txtar")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c, err := grade.ParseCase(g.Name, strings.TrimSuffix(filepath.Base(path), ".txtar"), data, g.ProgramVars())
	if err != nil {
		return nil, err
	}
	return []grade.Case{c}, nil
}

// reportStdout is where a report named "-" goes: the command's stdout.
var reportStdout io.Writer = os.Stdout

// parseInterspersed parses flags wherever they stand among the positional arguments (a
// folder, then -json FILE, as gh and kubectl allow), and returns the positional ones; "--"
// ends the flags.
func parseInterspersed(fs *flag.FlagSet, args []string, stderr io.Writer) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args, stderr); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// cohortUsage checks the flags that make no sense for a cohort.
func cohortUsage(dirs []string, f gradeFlags) error {
	switch {
	case len(dirs) == 0:
		return errors.New("-out needs the submissions' folders (with no DIR the built-in reference is graded)")
	case f.jsonFile != "":
		return errors.New("-json writes one subject's report: for a cohort use -out DIR (one NAME.json per submission)")
	case f.gradescope != "":
		return errors.New("-gradescope is for one submission (Gradescope runs one autograder per student)")
	case f.keepDir != "":
		return errors.New("-keep is for one submission: grade the one whose cases you want to replay")
	case f.failfast:
		return errors.New("-failfast is for one submission: a cohort grades every submission to the end")
	}
	return nil
}
