package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"gauntlet/harness/box/execfile"
	"gauntlet/harness/grading/grade"
	"gauntlet/harness/grading/mutants"
)

const adequacyUsage = `usage: gauntlet adequacy GAME [-suite DIR] [-run REGEXP] [-j N]

Runs a suite against GAME's mutant library (docs/mutants.md): each mutant, one
single-behaviour bug in one reference program, is built from the gauntlet source (go build
-overlay; run it from the source folder, with the go command) and graded alone, as a
submission of that one program, on the cases where that program takes part in the marked
run. It prints the kill matrix (mutant x marking category: the marked cases each mutant
fails), the survivors with the reason each survives, and the largest blast radius (marks a
bug costs outside its own category). Course staff who write cases of their own (-suite) see
what they catch.

Exit status: 0 when every mutant is killed (but those that must survive: the accepted
alternatives, with PASS-LENIENT, and the equivalent ones) and none costs marks outside its
categories and known spread; 1 otherwise; 2 on a usage or harness error.

Flags:
`

func adequacyCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gauntlet adequacy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	suite := fs.String("suite", "", "grade with the cases of `DIR` instead of the built-in suite")
	run := fs.String("run", "", "only the mutants whose name matches this regular expression")
	jobs := fs.Int("j", 4, "cases run at once in each mutant's grade")
	usageTo := func(w io.Writer) {
		fmt.Fprint(w, adequacyUsage)
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(stderr)
		fmt.Fprintf(w, "\nGames: %s\n", strings.Join(mutants.Games(), ", "))
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
	game := args[0]
	if err := parseFlags(fs, args[1:], stderr); err != nil {
		return 2
	}
	lib := mutants.Library(game)
	switch {
	case lib == nil:
		fmt.Fprintf(stderr, "gauntlet adequacy: no mutant library for %q%s (games: %s)\n", game, didYouMean(game, mutants.Games()), strings.Join(mutants.Games(), ", "))
		fs.Usage()
		return 2
	case fs.NArg() != 0:
		fmt.Fprintf(stderr, "gauntlet adequacy: unexpected argument %q (adequacy takes the game and flags only)\n", fs.Arg(0))
		fs.Usage()
		return 2
	case *jobs < 1:
		fmt.Fprintf(stderr, "gauntlet adequacy: -j %d: want at least 1\n", *jobs)
		fs.Usage()
		return 2
	}
	if *run != "" {
		re, err := regexp.Compile(*run)
		if err != nil {
			fmt.Fprintf(stderr, "gauntlet adequacy: -run: %v\n", err)
			return 2
		}
		var keep []mutants.Mutant
		for _, m := range lib {
			if re.MatchString(m.Name) {
				keep = append(keep, m)
			}
		}
		if lib = keep; len(lib) == 0 {
			fmt.Fprintf(stderr, "gauntlet adequacy: -run %q matches no mutant\n", *run)
			return 2
		}
	}
	if *suite != "" {
		abs, err := filepath.Abs(*suite)
		if err == nil {
			var st os.FileInfo
			if st, err = os.Stat(abs); err == nil && !st.IsDir() {
				err = fmt.Errorf("not a folder of .txtar cases")
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "gauntlet adequacy: -suite %s: %v\n", *suite, err)
			return 2
		}
		*suite = abs
	}
	root, err := mutants.ModuleRoot(".")
	if err != nil {
		fmt.Fprintf(stderr, "gauntlet adequacy: %v\n", err)
		return 2
	}
	self, err := executable()
	if err != nil {
		fmt.Fprintf(stderr, "gauntlet adequacy: %v\n", err)
		return 2
	}
	scratch, err := os.MkdirTemp("", "gauntlet-adequacy-")
	if err != nil {
		fmt.Fprintf(stderr, "gauntlet adequacy: %v\n", err)
		return 2
	}
	defer os.RemoveAll(scratch)
	var outs []mutants.Outcome
	bad := false
	for i, m := range lib {
		o, err := gradeMutant(self, root, scratch, game, m, *suite, *jobs)
		if err != nil {
			fmt.Fprintf(stderr, "gauntlet adequacy: %s: %v\n", m.Name, err)
			return 2
		}
		outs = append(outs, o)
		state := "killed"
		if !o.Killed() {
			state = "survived"
		}
		fmt.Fprintf(stderr, "[%d/%d] %s: %s\n", i+1, len(lib), m.Name, state)
		for _, p := range o.Problems() {
			bad = true
			fmt.Fprintf(stderr, "  problem: %s\n", p)
		}
	}
	fmt.Fprint(stdout, mutants.Matrix(game, outs))
	if bad {
		return 1
	}
	return 0
}

// gradeMutant builds m, grades a submission made of it alone with this binary's grade
// command, and judges the report.
func gradeMutant(self, root, scratch, game string, m mutants.Mutant, suite string, jobs int) (mutants.Outcome, error) {
	dir, err := os.MkdirTemp(scratch, m.Name+"-")
	if err != nil {
		return mutants.Outcome{}, err
	}
	defer os.RemoveAll(dir)
	build, sub := filepath.Join(dir, "build"), filepath.Join(dir, "submission")
	for _, d := range []string{build, sub} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return mutants.Outcome{}, err
		}
	}
	bin, err := mutants.Build(m, root, build)
	if err != nil {
		return mutants.Outcome{}, err
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		return mutants.Outcome{}, err
	}
	if err := execfile.Write(filepath.Join(sub, m.Prog), data, 0o755); err != nil {
		return mutants.Outcome{}, err
	}
	// The submission's folder must be reachable by the sandbox users of a root grader.
	for _, d := range []string{scratch, dir, sub} {
		os.Chmod(d, 0o755)
	}
	report := filepath.Join(dir, "report.json")
	args := []string{"grade", game, "-no-build", "-j", strconv.Itoa(jobs), "-run", mutants.Filter(game, m.Prog), "-json", report}
	if suite != "" {
		args = append(args, "-suite", suite)
	}
	cmd := exec.Command(self, append(args, sub)...)
	out, _ := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 0 && code != 1 {
		return mutants.Outcome{}, fmt.Errorf("grade exited %d:\n%s", code, out)
	}
	js, err := os.ReadFile(report)
	if err != nil {
		return mutants.Outcome{}, fmt.Errorf("no report: %v\n%s", err, out)
	}
	var rep grade.Report
	if err := json.Unmarshal(js, &rep); err != nil {
		return mutants.Outcome{}, err
	}
	return mutants.Judge(m, &rep), nil
}
