package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"gauntlet/fuzz/judgerun"
	"gauntlet/fuzz/livefuzz"
	"gauntlet/fuzz/pipegame"
	_ "gauntlet/judges/cluefuzz"    // registers its judged fuzzer
	_ "gauntlet/judges/refereefuzz" // registers its judged fuzzer
	"gauntlet/programs"
)

const fuzzClueUsage = `usage: gauntlet fuzz clue -role client|server [flags] PROGRAM
       gauntlet fuzz stratego|tictactoe|connectfour [flags] PROGRAM
       gauntlet fuzz referee [flags] REFEREE

Fuzzes a Clue client or server over TCP, with the engine's judge as the oracle (a program
may choose its moves, so it is not compared with a reference).

  -role client    each case plays a live game against PROGRAM up to a random point, then
                  sends one message that no state allows (an unknown name, data that does
                  not parse, a message cut by the end of the connection): PROGRAM must exit
                  3 with "Protocol error from server".
  -role server    each case plays a whole game on PROGRAM (started as
                  PROGRAM -seed N -clients 6 -t 1 0) with six mock clients, one of which
                  sends a line the rules refuse in place of one of its answers: PROGRAM must
                  drop that client and play the rest exactly as the protocol says.

For stratego (an AI), tictactoe and connectfour (a referee-protocol player), each case is a
whole game judged live with a random seat, opponent and seed: any legal play passes; a
broken rule, a late reply or a wrong ending is a finding.

For referee, REFEREE is a referee of the referee protocol, of any game: each case probes it
as the match runner would, with a random seed, moves made up and guided by its verdicts
and mutated move lines (a '\r', spaces, an empty line, a long line, bytes that are not
UTF-8), checking every part of the protocol and that the same moves get the same
verdicts; a finding is written as a case of the referee suite in the category of the part
broken (docs/referee.md, "A referee of any game").

Flags (before the program):
  -role client|server   (clue only; required there)
  -seed N         seed of the cases (default: from the clock; printed)
  -runs N         stop after N cases
  -time D         stop after D (default 1m when -runs is not given)
  -out DIR        where each failure is written as a case of the Clue suite (default fuzz-out)

Each kind of failure is kept once. As root, PROGRAM runs as a sandbox user in a box, as in a
grade. Exit status: 0 when nothing failed, 1 when a failure was found, 2 on a usage or
harness error.
`

// judgedFlagValues are the flags of `gauntlet fuzz` for the games fuzzed against their judge.
type judgedFlagValues struct {
	role, out *string
	seed      *uint64
	runs      *int
	limit     *time.Duration
}

// judgedFlags are the flags of `gauntlet fuzz GAME` for the games fuzzed against their
// judge; its help (fuzzClueUsage) is written by hand, and a test checks it names every one.
func judgedFlags(gameName string) (*flag.FlagSet, judgedFlagValues) {
	fs := flag.NewFlagSet("gauntlet fuzz "+gameName, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var v judgedFlagValues
	v.role = fs.String("role", "", "")
	v.seed = fs.Uint64("seed", 0, "")
	v.runs = fs.Int("runs", 0, "")
	v.limit = fs.Duration("time", 0, "")
	v.out = fs.String("out", "fuzz-out", "")
	return fs, v
}

// fuzzJudged is `gauntlet fuzz GAME` for the games fuzzed against their judge.
func fuzzJudged(gameName string, args []string, stdout, stderr io.Writer) int {
	fs, v := judgedFlags(gameName)
	role, seed, runs, limit, out := v.role, v.seed, v.runs, v.limit, v.out
	if wantsHelp(args) {
		fmt.Fprint(stdout, fuzzClueUsage)
		return 0
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "gauntlet fuzz "+gameName+": "+format+"\n%s", append(a, fuzzClueUsage)...)
		return 2
	}
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(stderr, "gauntlet fuzz %s: %v%s\nrun 'gauntlet fuzz %s -help' for the flags\n", gameName, err, flagSuggestion(fs, err), gameName)
		return 2
	}
	own, hasOwn := judgerun.Lookup(gameName)
	if len(own.Roles) > 0 && !slices.Contains(own.Roles, *role) {
		return usageErr("-role must be %s", strings.Join(own.Roles, " or "))
	}
	if len(own.Roles) == 0 && *role != "" {
		return usageErr("-role is for %s only: %s fuzzes the one program that chooses its moves", strings.Join(gamesWithRoles(), ", "), gameName)
	}
	if fs.NArg() != 1 {
		return usageErr("name one program to fuzz, after the flags")
	}
	if *runs < 0 || *limit < 0 {
		return usageErr("-runs and -time cannot be negative")
	}
	// A program that is not there is a usage error, not a finding (the judges fail a
	// program whose file cannot run, as a grade does).
	if fi, err := os.Stat(fs.Arg(0)); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		return usageErr("%s is not an executable program", fs.Arg(0))
	}
	seedSet := false
	fs.Visit(func(f *flag.Flag) { seedSet = seedSet || f.Name == "seed" })
	if !seedSet {
		*seed = uint64(time.Now().UnixNano())
	}
	if *runs == 0 && *limit == 0 {
		*limit = time.Minute
	}
	c := judgerun.Campaign{Program: fs.Arg(0), Seed: *seed, Runs: *runs, Time: *limit, Out: *out, Log: stdout,
		Replay: func(file string) string { return judgedReplay(gameName, file, fs.Arg(0)) }}
	if g, ok := programs.GradeGame(gameName); ok {
		c.CPU = g.CPU // the game's, from its protocol, as in a grade
	}
	var found []judgerun.Finding
	var err error
	if hasOwn {
		found, err = own.Run(*role, c)
	} else {
		found, err = livefuzz.Run(livefuzz.Options{Game: gameName, Campaign: c})
	}
	if err != nil {
		fmt.Fprintf(stderr, "gauntlet fuzz %s: %v\n", gameName, err)
		return 2
	}
	if len(found) > 0 {
		return 1
	}
	return 0
}

// judgedGames lists the games fuzzed against their judge: those with a fuzzer of their own
// (judgerun.Register) and those fuzzed by random live conversations (their registrations'
// Live.Conversation), sorted.
func judgedGames() []string {
	games := append(judgerun.Games(), livefuzz.Games()...)
	slices.Sort(games)
	return slices.Compact(games)
}

// gamesWithRoles lists the judged games whose fuzzer takes -role.
func gamesWithRoles() []string {
	var out []string
	for _, g := range judgerun.Games() {
		if f, _ := judgerun.Lookup(g); len(f.Roles) > 0 {
			out = append(out, g)
		}
	}
	return out
}

// fuzzGames lists every game `gauntlet fuzz` takes: the differential fuzzer's
// (fuzz/blackbox) and the judged ones, sorted.
func fuzzGames() []string {
	games := append(pipegame.Games(), judgedGames()...)
	slices.Sort(games)
	return slices.Compact(games)
}

// judgedReplay is the command that runs a judged fuzzer's finding, the suite case file,
// against the program at prog: replayCommand, the program named by each of the game's
// programs the case names by its variable ($VAR or ${VAR}).
func judgedReplay(game, file, prog string) string {
	var names []string
	text, _ := os.ReadFile(file)
	if g, ok := programs.GradeGame(game); ok {
		for _, p := range g.Programs {
			if strings.Contains(string(text), "$"+p.Var) || strings.Contains(string(text), "${"+p.Var+"}") {
				names = append(names, p.Name)
			}
		}
	}
	return replayCommand(file, prog, names...)
}
