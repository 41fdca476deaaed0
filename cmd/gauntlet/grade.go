package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"gauntlet/harness/build"
	"gauntlet/harness/grade"
	"gauntlet/programs"
	"gauntlet/testscripts"
)

const gradeUsage = `usage: gauntlet grade GAME [flags] [DIR...]

Grades the submission in DIR on GAME's conformance suite: copies DIR to a scratch folder,
runs make there, finds the programs the spec names, runs every case (in the pairings that
tell whether the hub or the players are wrong), and prints a report with marks by the spec's
categories. With no DIR it grades the built-in reference programs. With several DIRs it
grades each in turn and prints a cohort table.

Exit status: 0 when every case passes, 1 when any fails, 2 on a usage or harness error.

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
	jobs       int
	run        string
	timeout    time.Duration
	explain    bool
	noBuild    bool
	verbose    bool
	jsonFile   string
	junitFile  string
	gradescope string
	csvFile    string
	progs      progFlags
}

func gradeCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gauntlet grade", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f gradeFlags
	f.progs = progFlags{}
	fs.IntVar(&f.jobs, "j", 2, "cases run at once")
	fs.StringVar(&f.run, "run", "", "only the cases whose id matches this regular expression")
	fs.DurationVar(&f.timeout, "timeout", 0, "deadline of each program run in a case (default: the game's)")
	fs.BoolVar(&f.explain, "explain", false, "print what each case runs and checks, without running it")
	fs.BoolVar(&f.noBuild, "no-build", false, "use the programs in DIR as they are, without make")
	fs.BoolVar(&f.verbose, "v", false, "show the full log of every failed case")
	fs.StringVar(&f.jsonFile, "json", "", "write the report as JSON to this file (docs/report-format.md)")
	fs.StringVar(&f.junitFile, "junit", "", "write the report as JUnit XML to this file")
	fs.StringVar(&f.gradescope, "gradescope", "", "write a Gradescope results.json to this file")
	fs.StringVar(&f.csvFile, "csv", "", "with several DIRs: write the cohort table as CSV to this file")
	fs.Var(f.progs, "prog", "NAME=PATH: use PATH (relative to DIR) as the spec's program NAME (repeatable)")
	fs.Usage = func() {
		fmt.Fprint(stderr, gradeUsage)
		fs.PrintDefaults()
		fmt.Fprintf(stderr, "\nGames: %s\n", strings.Join(programs.GradeGames(), ", "))
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fs.Usage()
		return 2
	}
	g, ok := programs.GradeGame(args[0])
	if !ok {
		fmt.Fprintf(stderr, "gauntlet grade: unknown game %q (games: %s)\n", args[0], strings.Join(programs.GradeGames(), ", "))
		return 2
	}
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	var filter *regexp.Regexp
	if f.run != "" {
		re, err := regexp.Compile(f.run)
		if err != nil {
			fmt.Fprintf(stderr, "gauntlet grade: -run: %v\n", err)
			return 2
		}
		filter = re
	}
	cases, err := grade.LoadCases(testscripts.FS, g.Name, g.ProgramVars())
	if err != nil {
		fmt.Fprintf(stderr, "gauntlet grade: HARNESS-ERROR: %v\n", err)
		return 2
	}
	if unknown := grade.UnknownCategories(g, cases); len(unknown) > 0 {
		fmt.Fprintf(stderr, "gauntlet grade: HARNESS-ERROR: the suite uses categories the game does not define: %s\n", strings.Join(unknown, ", "))
		return 2
	}
	if f.explain {
		explain(stdout, g, cases, filter)
		return 0
	}
	dirs := fs.Args()
	if len(dirs) > 1 {
		fmt.Fprintln(stderr, "gauntlet grade: grading several DIRs at once is not built yet; grade them one at a time")
		return 2
	}
	scratch, err := os.MkdirTemp("", "gauntlet-grade-")
	if err != nil {
		fmt.Fprintf(stderr, "gauntlet grade: HARNESS-ERROR: %v\n", err)
		return 2
	}
	defer os.RemoveAll(scratch)
	bin, err := programLinks(scratch)
	if err != nil {
		fmt.Fprintf(stderr, "gauntlet grade: HARNESS-ERROR: %v\n", err)
		return 2
	}
	started := time.Now()
	var subj grade.Subject
	var built *build.Result
	if len(dirs) == 0 {
		// The built-in subject: the reference programs themselves.
		subj = grade.Subject{Name: "built-in reference programs", Programs: map[string]string{}}
		for _, p := range g.Programs {
			subj.Programs[p.Name] = filepath.Join(bin, p.Name)
		}
	} else {
		subj, built, err = buildSubject(g, dirs[0], scratch, f)
		if err != nil {
			fmt.Fprintf(stderr, "gauntlet grade: HARNESS-ERROR: %v\n", err)
			return 2
		}
	}
	outs := grade.Run(g, cases, subj, grade.Options{Jobs: f.jobs, Run: filter, Timeout: f.timeout, BinDir: bin, Scratch: scratch})
	rep := grade.NewReport(g, subj.Name, started, built, outs)
	rep.WriteSummary(stdout, f.verbose)
	if err := writeReports(rep, f); err != nil {
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

// buildSubject builds a submission and maps the spec's program names to what it produced.
func buildSubject(g grade.Game, dir, scratch string, f gradeFlags) (grade.Subject, *build.Result, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return grade.Subject{}, nil, fmt.Errorf("%s is not a folder", dir)
	}
	var names []string
	for _, p := range g.Programs {
		names = append(names, p.Name)
	}
	res, err := build.Build(dir, scratch, names, build.Options{NoBuild: f.noBuild})
	if err != nil {
		return grade.Subject{}, nil, err
	}
	for name, rel := range f.progs {
		p := filepath.Join(res.Dir, rel)
		if st, err := os.Stat(p); err == nil && st.Mode()&0o111 != 0 {
			res.Programs[name] = p
			res.Missing = remove(res.Missing, name)
		}
	}
	abs, _ := filepath.Abs(dir)
	subj := grade.Subject{Name: abs, Programs: map[string]string{}}
	if res.OK {
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

// programLinks makes a folder of links named after every reference and mock program, each
// pointing at this binary, which runs as the program it is called by.
func programLinks(scratch string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(scratch, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		return "", err
	}
	for _, p := range programs.All() {
		if err := os.Symlink(self, filepath.Join(bin, p.Name)); err != nil {
			return "", err
		}
	}
	return bin, nil
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

// writeReports writes the machine-readable reports the flags ask for.
func writeReports(rep *grade.Report, f gradeFlags) error {
	write := func(path string, fn func(io.Writer) error) error {
		if path == "" {
			return nil
		}
		out, err := os.Create(path)
		if err != nil {
			return err
		}
		if err := fn(out); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	}
	if err := write(f.jsonFile, rep.WriteJSON); err != nil {
		return err
	}
	if f.junitFile != "" || f.gradescope != "" {
		return fmt.Errorf("-junit and -gradescope are not built yet")
	}
	return nil
}
