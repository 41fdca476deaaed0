package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"gauntlet/harness/box/sandbox"
	"gauntlet/harness/grading/tournament"
	"gauntlet/programs"
)

// tournamentUsage is the usage of `gauntlet tournament`: a usage line for each game with
// tournaments (programs.Tournament), then tournamentAbout.
func tournamentUsage() string {
	var b strings.Builder
	for i, g := range programs.TournamentGames() {
		t, _ := programs.TournamentOf(g)
		lead := "       "
		if i == 0 {
			lead = "usage: "
		}
		fmt.Fprintf(&b, "%sgauntlet tournament %s %s\n", lead, g, t.Usage)
	}
	return b.String() + "\n" + tournamentAbout
}

// tournamentGamesWith names the games with tournaments whose Tournament has (a flag the
// games have, for the flags' help).
func tournamentGamesWith(has func(programs.Tournament) bool) string {
	var names []string
	for _, g := range programs.TournamentGames() {
		if t, _ := programs.TournamentOf(g); has(t) {
			names = append(names, g)
		}
	}
	return strings.Join(names, ", ")
}

const tournamentAbout = `Plays a round robin between the programs: every ordered pair (so each plays both seats or
colours against each other) for -rounds rounds, -j games at once, through the reference
manager (stratego) or match runner (referee, judged by the REFEREE program). Prints a line
per game, then the table: games, wins, draws, illegal ends, points (stratego: the 2012
competition's scoring; referee: the referee's scores, or 1 to the opponent of a player
that broke the game), and an Elo estimate against the field with its 95% error. With -save
FILE, each result is written there as it comes, and a tournament run again with the same
FILE plays only the games not yet in it (Ctrl-C stops starting games).

As root, every program of a game runs as a sandbox user of its own in a box, as a graded
submission does: it cannot touch its opponent, the other programs or the results, and what
it leaves running is killed when its game ends. Not root, the programs run as you (a note
on stderr says so): not for prizes. Root on a machine without boxes refuses to play unless
-unsafe.

Flags:
`

func tournamentCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gauntlet tournament", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rounds := fs.Int("rounds", 1, "games each ordered pair plays")
	jobs := fs.Int("j", 2, "games at once")
	save := fs.String("save", "", "append each result to `FILE` (JSON lines) and resume from it")
	jsonFile := fs.String("json", "", "write the table and every result as JSON to `FILE`")
	csvFile := fs.String("csv", "", "write the table as CSV to `FILE`")
	timeout := fs.String("T", "2s", "each AI's time for each line it owes")
	turns := fs.String("m", "5000", "turn limit of each game ("+tournamentGamesWith(func(t programs.Tournament) bool { return t.Turns })+")")
	refereeProg := fs.String("referee", "", "the referee `PROGRAM` ("+tournamentGamesWith(func(t programs.Tournament) bool { return t.Referee })+")")
	unsafe := fs.Bool("unsafe", false, "as root where the machine cannot box the programs, run them unboxed as root (never for prizes)")
	fs.Usage = func() { fmt.Fprint(stderr, tournamentUsage()); fs.PrintDefaults() }
	if wantsHelp(args) {
		fs.SetOutput(stdout)
		fmt.Fprint(stdout, tournamentUsage())
		fs.PrintDefaults()
		return 0
	}
	var game programs.Tournament
	if len(args) > 0 {
		game, _ = programs.TournamentOf(args[0])
	}
	if game.Match == nil {
		fmt.Fprintf(stderr, "gauntlet tournament: the games with tournaments are %s\n", strings.Join(programs.TournamentGames(), ", "))
		fs.Usage()
		return 2
	}
	if err := parseFlags(fs, args[1:], stderr); err != nil {
		return 2
	}
	if *rounds <= 0 || *jobs <= 0 || fs.NArg() < 2 {
		fmt.Fprint(stderr, "gauntlet tournament: want -rounds and -j of at least 1, and at least two AIs\n")
		return 2
	}
	if d, err := time.ParseDuration(*timeout); err != nil || d <= 0 {
		fmt.Fprintf(stderr, "gauntlet tournament: -T %s: want a positive duration such as 2s\n", *timeout)
		return 2
	}
	if n, err := strconv.Atoi(*turns); err != nil || n <= 0 {
		fmt.Fprintf(stderr, "gauntlet tournament: -m %s: want a positive number of turns\n", *turns)
		return 2
	}
	// The files written at the end are checked now, so that a typo does not cost a
	// tournament; -save's folder must exist (the file is made or read).
	for _, o := range []struct{ flag, path string }{{"json", *jsonFile}, {"csv", *csvFile}} {
		if err := checkOutput(o.path); err != nil {
			fmt.Fprintf(stderr, "gauntlet tournament: -%s %s: %v\n", o.flag, o.path, err)
			return 2
		}
	}
	if *save != "" {
		if st, err := os.Stat(filepath.Dir(*save)); err != nil || !st.IsDir() {
			fmt.Fprintf(stderr, "gauntlet tournament: -save %s: no folder %s to keep it in\n", *save, filepath.Dir(*save))
			return 2
		} else if st, err := os.Stat(*save); err == nil && st.IsDir() {
			fmt.Fprintf(stderr, "gauntlet tournament: -save %s: is a folder\n", *save)
			return 2
		}
	}
	var ais []string
	for _, a := range fs.Args() {
		abs, err := filepath.Abs(a)
		if err != nil {
			fmt.Fprintf(stderr, "gauntlet tournament: %v\n", err)
			return 2
		}
		if st, err := os.Stat(abs); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			fmt.Fprintf(stderr, "gauntlet tournament: %s is not a program\n", a)
			return 2
		}
		ais = append(ais, abs)
	}
	stop := make(chan struct{})
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		if _, ok := <-sigs; ok {
			fmt.Fprintln(stderr, "gauntlet tournament: stopping the games that run and starting no more")
			close(stop)
		}
	}()
	progs, ref := ais, ""
	if game.Referee {
		if *refereeProg == "" {
			fmt.Fprintf(stderr, "gauntlet tournament: %s: name the referee with -referee PROGRAM\n", args[0])
			return 2
		}
		var err error
		if ref, err = filepath.Abs(*refereeProg); err != nil {
			fmt.Fprintf(stderr, "gauntlet tournament: %v\n", err)
			return 2
		}
		progs = append([]string{ref}, ais...)
	}
	boxes, err := tournamentBoxes(progs, programCPU(args[0], *turns, *timeout), *unsafe, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "gauntlet tournament: %v\n", err)
		return 2
	}
	defer boxes.Close()
	match := game.Match(boxes, stop, ref, *timeout, *turns)
	results, err := tournament.Run(ais, match,
		tournament.Options{Rounds: *rounds, Jobs: *jobs, Save: *save, Progress: stdout, Stop: stop})
	table := tournament.Table(results)
	fmt.Fprintln(stdout)
	tournament.WriteTable(stdout, table)
	if *csvFile != "" {
		if werr := writeFile(*csvFile, func(w io.Writer) error { return tournament.WriteCSV(w, table) }); werr != nil {
			fmt.Fprintf(stderr, "gauntlet tournament: %v\n", werr)
			return 2
		}
	}
	if *jsonFile != "" {
		if werr := writeFile(*jsonFile, func(w io.Writer) error {
			e := json.NewEncoder(w)
			e.SetIndent("", "  ")
			return e.Encode(map[string]any{"table": table, "games": results})
		}); werr != nil {
			fmt.Fprintf(stderr, "gauntlet tournament: %v\n", werr)
			return 2
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "gauntlet tournament: %v\n", err)
		return 2
	}
	select {
	case <-stop:
		fmt.Fprintln(stdout, "STOPPED: the table covers the games played; run again with the same -save to finish")
		return 2
	default:
	}
	return 0
}

// tournamentBoxes decides how a tournament runs its programs, as a grade decides for a
// submission (boxDecision): as root, each as a sandbox user of its own in a box
// (tournament.Boxes), and a refusal where the machine cannot give boxes unless unsafe;
// not root, in rootless boxes (each program the user's own, in a box holding only its own
// folder), or, where the kernel refuses user namespaces, as the user, with a note on
// stderr (a bot could then harm its opponent: fine for trying one's own bots, not for
// prizes). A nil *Boxes runs them unboxed.
func tournamentBoxes(progs []string, cpu time.Duration, unsafe bool, stderr io.Writer) (*tournament.Boxes, error) {
	if os.Geteuid() != 0 {
		if err := sandbox.RootlessProblem(); err != nil {
			fmt.Fprintf(stderr, "note: not root and no rootless box here (%v): the programs run as you, without boxes, and one could harm another or the results; run as root for prizes (docs/security.md)\n", err)
			return nil, nil
		}
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	boxes, err := tournament.NewBoxes(progs, cwd, sandbox.Limits{CPU: cpu})
	if err != nil {
		if !unsafe {
			return nil, fmt.Errorf("cannot box the programs on this machine (%v); refusing to play (-unsafe runs them unboxed, as root: never for prizes)", err)
		}
		fmt.Fprintf(stderr, "note: -unsafe: the programs run unboxed, as root (%v)\n", err)
		return nil, nil
	}
	return boxes, nil
}

// programCPU is the CPU time each program of a tournament game may use: the game's
// Tournament.CPU of its turn limit and time per move, or an hour for a game whose length
// its hub does not bound (no CPU), and where a flag does not parse (the manager then
// refuses the flag itself).
func programCPU(game, turns, perMove string) time.Duration {
	const fallback = time.Hour
	t, _ := programs.TournamentOf(game)
	if t.CPU == nil {
		return fallback
	}
	n, err1 := strconv.Atoi(turns)
	d, err2 := time.ParseDuration(perMove)
	if err1 != nil || err2 != nil || n <= 0 || d <= 0 {
		return fallback
	}
	return t.CPU(d, n)
}
