package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"time"

	"gauntlet/fuzz/blackbox"
	"gauntlet/fuzz/judgerun"
	"gauntlet/fuzz/livefuzz"
	"gauntlet/fuzz/pipegame"
	"gauntlet/fuzz/record"
	"gauntlet/harness/box/sandbox"
	"gauntlet/harness/grading/term"
	"gauntlet/programs"
	"gauntlet/programs/standalone"
)

const fuzzUsage = `usage: gauntlet fuzz GAME -role hub|player [flags] PROGRAM...

Fuzzes PROGRAM against the reference program of the same role: both get the same fuzzed
input, and any difference in exit status, stdout bytes or stderr bytes is a failure. Each
distinct failure (verdict kind, exit statuses, the kind of line where the outputs part and,
when they part, the rule of the line the reference refused) is kept once, minimised, and
written under -out as a .txtar case of the game's suite that passes on the reference and
fails on PROGRAM (run it with 'gauntlet grade GAME -suite FILE DIR'; copy it into
testscripts/GAME/ to make it part of the built-in suite).

  -role player    PROGRAM... are players. Each case is a game the engine plays, seen from
                  one seat, mutated at one or more points (see -mutate) and played to the
                  end against PROGRAM and against the reference player (-ref). Where
                  a case sends no signal, the reference plays inside the fuzzer while it
                  looks for a difference; a difference is confirmed, and its regression
                  file written, with the reference as a process.
  -role hub       PROGRAM is a hub. Each case is a game (input files, arguments, seats)
                  whose mock players carry random faults (see -mutate); the reference hub
                  gets the same game and the same faults.

Flags (before the programs):
  -role hub|player   which side PROGRAM plays (required)
  -ref NAME          the reference player to compare with (default: PROGRAM's file name,
                     when it is one of GAME's players)
  -seed N            seed of the cases (default: from the clock; printed). The same seed
                     gives the same cases, in the same order
  -runs N            stop after N cases
  -time D            stop after D (default 1m when -runs is not given; a failure found
                     is still minimised after that)
  -out DIR           where the regression files and summary.txt go (default fuzz-out)
  -mutate LIST       comma-separated kinds to use (default all):
                       player: %s
                       hub:    %s
  -step-timeout D    longest wait for one reply (default 2s)
  -timeout D         longest wait for a hub to end (default 10s)
  -min-tries N       cases the minimiser may run per failure (default 300; 0: no minimising).
                     It tries up to -j at once and counts them as if one at a time: those
                     run beside the first it keeps do not count
  -min-time D        time the minimiser may take per failure (default 1m)
  -no-verify         do not run each regression file through the suite runner (by default
                     it must pass on the reference and fail on PROGRAM)
  -j N               busy cases played at once (default: twice the number of CPUs, as a
                     case mostly waits on its programs); cases that wait on purpose (a
                     pause, a signal, a mock player that sleeps or hangs) play beside
                     them, up to 4N. The cases are taken in order, so with -runs the
                     findings do not depend on N

Progress is shown when stdout is a terminal. SIGINT (Ctrl-C) ends the run early, keeping what
it found. Findings are grouped by the rule of the spec they break (the reference's exit
status's row of the exit table, or the kind of line it wrote where the outputs part): one
entry per rule, with how many runs broke it and its smallest regression file. Exit status:
0 when nothing failed, 10 + N when N rules were broken (at most 99), 2 on a usage or
harness error. Before its first case, a run plays one unmutated case with each reference, as
the subject's cases will be played; if that does not end normally, the harness cannot run
the programs as it means to, and the run stops with status 2 rather than blame PROGRAM.
PROGRAM then plays that case too: a note says so if it exits 126 or 127 (a program it runs
that cannot be run; in the box, /tmp, /var/tmp and /dev/shm are private).
As root, where the machine allows it, every program (PROGRAM, the references, and PROGRAM
again when a regression file is verified) runs as a sandbox user in a box, as in a grade.
Games: %s.

Games whose programs choose their own moves are fuzzed against the game's judge instead:
%s; see 'gauntlet fuzz GAME -help'.
`

func fuzzUsageText() string {
	var games []string
	for _, name := range pipegame.Games() {
		g, _ := pipegame.Lookup(name)
		games = append(games, fmt.Sprintf("%s (hub %s; players %s)", name, g.Hub(), strings.Join(g.Players(), ", ")))
	}
	var judged []string
	for _, name := range judgerun.Games() {
		f, _ := judgerun.Lookup(name)
		judged = append(judged, f.About)
	}
	judged = append(judged, strings.Join(livefuzz.Games(), ", ")+" (random games judged live)")
	return fmt.Sprintf(fuzzUsage, strings.Join(blackbox.PlayerMutations, ","), strings.Join(blackbox.HubFaults, ","),
		strings.Join(games, "; "), strings.Join(judged, ", "))
}

// fuzzFlagValues are the flags of `gauntlet fuzz` for the differential games.
type fuzzFlagValues struct {
	role, ref, out, mutate      *string
	seed                        *uint64
	runs, minTries, jobs        *int
	limit, stepTimeout, timeout *time.Duration
	minTime                     *time.Duration
	noVerify, help              *bool
}

// fuzzFlags are the flags of `gauntlet fuzz` for the differential games; its help
// (fuzzUsage) is written by hand, and a test checks it names every one.
func fuzzFlags() (*flag.FlagSet, fuzzFlagValues) {
	fs := flag.NewFlagSet("gauntlet fuzz", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var v fuzzFlagValues
	v.role = fs.String("role", "", "")
	v.ref = fs.String("ref", "", "")
	v.seed = fs.Uint64("seed", 0, "")
	v.runs = fs.Int("runs", 0, "")
	v.limit = fs.Duration("time", 0, "")
	v.out = fs.String("out", "fuzz-out", "")
	v.mutate = fs.String("mutate", "", "")
	v.stepTimeout = fs.Duration("step-timeout", 2*time.Second, "")
	v.timeout = fs.Duration("timeout", 10*time.Second, "")
	v.minTries = fs.Int("min-tries", 300, "")
	v.minTime = fs.Duration("min-time", time.Minute, "")
	v.noVerify = fs.Bool("no-verify", false, "")
	v.jobs = fs.Int("j", 2*runtime.NumCPU(), "")
	v.help = fs.Bool("help", false, "")
	fs.BoolVar(v.help, "h", false, "")
	return fs, v
}

// fuzzCmd is `gauntlet fuzz`.
func fuzzCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		fmt.Fprint(stdout, fuzzUsageText())
		return 0
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "gauntlet fuzz: "+format+"\n", a...)
		fmt.Fprint(stderr, "run 'gauntlet fuzz -help' for the flags\n")
		return 2
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return usageErr("name a game first: gauntlet fuzz GAME -role hub|player [flags] PROGRAM...")
	}
	if slices.Contains(judgedGames(), args[0]) {
		return fuzzJudged(args[0], args[1:], stdout, stderr)
	}
	g, ok := pipegame.Lookup(args[0])
	if !ok {
		all := fuzzGames()
		return usageErr("no game %q%s (games: %s)", args[0], didYouMean(args[0], all), strings.Join(all, ", "))
	}
	fs, ff := fuzzFlags()
	role, ref, seed, runs, limit, out, mutate := ff.role, ff.ref, ff.seed, ff.runs, ff.limit, ff.out, ff.mutate
	stepTimeout, timeout, minTries, minTime, noVerify, jobs, help := ff.stepTimeout, ff.timeout, ff.minTries, ff.minTime, ff.noVerify, ff.jobs, ff.help
	if err := fs.Parse(args[1:]); err != nil {
		return usageErr("%v%s", err, flagSuggestion(fs, err))
	}
	if *help {
		fmt.Fprint(stdout, fuzzUsageText())
		return 0
	}
	seedSet := false
	fs.Visit(func(f *flag.Flag) { seedSet = seedSet || f.Name == "seed" })
	if !seedSet {
		*seed = uint64(time.Now().UnixNano())
	}
	progs := fs.Args()
	if len(progs) == 0 {
		return usageErr("name the program to fuzz")
	}
	for _, p := range progs {
		if strings.HasPrefix(p, "-") {
			return usageErr("flags go before the programs: %q", p)
		}
	}
	if *jobs < 1 {
		return usageErr("-j must be at least 1")
	}
	if *runs < 0 || *limit < 0 || *minTries < 0 || *minTime < 0 {
		return usageErr("-runs, -time, -min-tries and -min-time cannot be negative")
	}
	if *stepTimeout <= 0 {
		return usageErr("-step-timeout %v: want a positive duration", *stepTimeout)
	}
	if *timeout <= 0 {
		return usageErr("-timeout %v: want a positive duration", *timeout)
	}
	if *runs == 0 && *limit == 0 {
		*limit = time.Minute
	}
	table, _ := programs.GradeGame(g.Name())
	opt := blackbox.Options{
		Game: g, Vars: table.VarOf, Role: blackbox.Role(*role), Seed: *seed, Runs: *runs, Time: *limit, Out: *out,
		StepTimeout: *stepTimeout, RunTimeout: *timeout, Jobs: *jobs,
		Minimise: blackbox.Budget{Tries: *minTries, Time: *minTime},
		Verify:   !*noVerify,
		Log:      stdout,
		// The reference player plays in process where the campaign only looks for a
		// difference: a process start saved per case.
		InProcess: inProcessPlayer,
	}
	if *mutate != "" {
		opt.Kinds = strings.Split(*mutate, ",")
	}
	switch opt.Role {
	case blackbox.RoleHub:
		if len(progs) != 1 {
			return usageErr("fuzz one hub at a time")
		}
		if *ref != "" && *ref != g.Hub() {
			return usageErr("the reference hub of %s is %s", g.Name(), g.Hub())
		}
		opt.Subjects = []blackbox.Subject{{Path: progs[0], Ref: g.Hub()}}
	case blackbox.RolePlayer:
		for _, p := range progs {
			r := *ref
			if r == "" {
				r = filepath.Base(p)
			}
			if !slices.Contains(g.Players(), r) {
				return usageErr("%s is not a player of %s: give -ref NAME (one of %s)", r, g.Name(), strings.Join(g.Players(), ", "))
			}
			opt.Subjects = append(opt.Subjects, blackbox.Subject{Path: p, Ref: r})
		}
	default:
		return usageErr("-role must be hub or player")
	}
	for _, s := range opt.Subjects {
		if fi, err := os.Stat(s.Path); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return usageErr("%s is not an executable program", s.Path)
		}
	}
	all := blackbox.PlayerMutations
	if opt.Role == blackbox.RoleHub {
		all = blackbox.HubFaults
	}
	for _, k := range opt.Kinds {
		if !slices.Contains(all, k) {
			return usageErr("no %s mutation %q (known: %s)", opt.Role, k, strings.Join(all, ","))
		}
	}
	// The references run as separate processes: hard links named after them to a copy of
	// this binary, which runs as the program it is called by, in the folders a grade makes
	// (programLinks): one only the fuzzer may enter, and the mock player where a hub run as
	// a sandbox user can reach it. Links to this binary where it lies would leave the boxed
	// programs none: its folder may be hidden, or closed to them.
	scratch, _, err := sandbox.MakeScratch("", "gauntlet-fuzz-programs-")
	if err != nil {
		fmt.Fprintf(stderr, "gauntlet fuzz: %v\n", err)
		return 2
	}
	defer os.RemoveAll(scratch)
	pf, err := programLinks(scratch)
	defer openPrograms(scratch) // (before the scratch folder's removal)
	if err != nil {
		fmt.Fprintf(stderr, "gauntlet fuzz: %v\n", err)
		return 2
	}
	opt.RefDir, opt.Published, opt.Keep = pf.bin, pf.published, []string{scratch}
	opt.Replay = func(file string, s blackbox.Subject) string { return replayCommand(file, s.Path, s.Ref) }
	if term.IsTerminal(stdout) {
		opt.Progress = stdout
	}
	// SIGINT or SIGTERM end the run as if its time were up: what was found is still written.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	stop := make(chan struct{})
	go func() {
		if _, ok := <-sigs; ok {
			close(stop)
		}
	}()
	opt.Stop = stop
	fmt.Fprintf(stdout, "gauntlet fuzz %s -role %s -seed %d: fuzzing %s\n", g.Name(), opt.Role, *seed, strings.Join(progs, " "))
	debug.SetGCPercent(blackbox.GCPercent)
	sum, err := blackbox.Run(opt)
	if err != nil {
		fmt.Fprintf(stderr, "gauntlet fuzz: %v\n", err)
		return 2
	}
	fmt.Fprintf(stdout, "%d runs in %s (%.1f runs/s): %d rules broken (%d failures, %d duplicates), %d unconfirmed, %d skipped\n",
		sum.Runs, sum.Elapsed.Round(time.Millisecond), sum.Rate(), len(sum.Groups), len(sum.Findings), sum.Duplicates, sum.Unconfirmed, sum.Skipped)
	if n := sum.TimeoutNote(); n != "" {
		fmt.Fprintf(stdout, "note: %s\n", n)
	}
	if len(sum.Groups) == 0 {
		return 0
	}
	blackbox.WriteGroups(stdout, sum)
	fmt.Fprintf(stdout, "\nfindings: %s\n", filepath.Join(*out, "summary.txt"))
	return fuzzExitRules(len(sum.Groups))
}

// replayCommand is the command line that runs regression file against the program at
// prog, the subject fuzzed as the game's program(s) named refs: gauntlet run with the
// program's folder taken as it is (-no-build: make there would build, or remove, the
// program fuzzed), the program named as the spec names it (-prog) when its file
// is named otherwise. Paths are made absolute and quoted for a POSIX shell when they need
// it, so that it runs as printed from any folder.
func replayCommand(file, prog string, refs ...string) string {
	abs := func(p string) string {
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return p
	}
	args := []string{"gauntlet", "run", abs(file), "-no-build"}
	for _, ref := range refs {
		if base := filepath.Base(prog); base != ref {
			args = append(args, "-prog", ref+"="+base)
		}
	}
	args = append(args, filepath.Dir(abs(prog)))
	for i, a := range args {
		args[i] = shellQuote(a)
	}
	return strings.Join(args, " ")
}

// shellQuote quotes s for a POSIX shell when it holds anything but letters, digits and
// -_./=+:,@%.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=+:,@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// fuzzExitRules is the exit status of a fuzzing run that broke n rules: 10 + n, at most 99,
// so that the status says how many (0 is none, 2 a usage or harness error).
func fuzzExitRules(n int) int { return min(10+n, 99) }

// inProcessPlayer is the in-process form of the reference player named name.
func inProcessPlayer(name string) (record.Func, bool) { return standalone.Player(name) }
