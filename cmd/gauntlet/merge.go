package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"gauntlet/harness/grading/grade"
	"gauntlet/harness/grading/grade/cohort"
	"gauntlet/programs"
)

const mergeUsage = `usage: gauntlet merge [flags] DIR...

Makes a cohort's reports from the JSON reports that sharded grades (grade -shard K/N -out
DIR) or cohort runs (-out DIR) left in the DIRs: the cohort table on stdout, and the files
the flags name. It reads every NAME.json report and every shard-K-of-N.manifest in each
DIR (not below), and puts the reports together only if the same gauntlet, game and suite
made them all. From the shards' manifests it names each submission that has no report
(and the shard that was to grade it) and each one graded twice. A FILE of - is stdout
(one at most; the table then goes to stderr).

Exit status: 0 when every case of every report passed, 1 when any failed; 2 on a usage
error, a file that is not a report, reports of another gauntlet, game or suite (nothing
is written then), a submission missing or graded twice (the reports are written, with a
row "missing" for each missing one, and the first report of each one graded twice), or a
report with a HARNESS-ERROR.

Flags:
`

// mergeFlags are merge's outputs.
type mergeFlags struct{ csv, html, json, junit string }

func mergeCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gauntlet merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f mergeFlags
	fs.StringVar(&f.csv, "csv", "", "write the cohort table as CSV to `FILE` (docs/report-format.md)")
	fs.StringVar(&f.html, "html", "", "write the cohort as one self-contained HTML page to `FILE`: the sortable table of the submissions, the cohort's dashboard, then each submission's report")
	fs.StringVar(&f.json, "json", "", "write the cohort as JSON to `FILE`: a line per submission and the dashboard's data (docs/report-format.md)")
	fs.StringVar(&f.junit, "junit", "", "write every report as JUnit XML to `FILE` (one testsuite per submission)")
	usageTo := func(w io.Writer) {
		fmt.Fprint(w, mergeUsage)
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(stderr)
	}
	fs.Usage = func() { usageTo(stderr) }
	if wantsHelp(args) {
		usageTo(stdout)
		return 0
	}
	dirs, err := parseInterspersed(fs, args, stderr)
	if err != nil {
		return 2
	}
	if len(dirs) == 0 {
		fmt.Fprint(stderr, "gauntlet merge: name the folders of the reports (each shard's -out)\n")
		fs.Usage()
		return 2
	}
	outs := []struct{ flag, path string }{{"csv", f.csv}, {"html", f.html}, {"json", f.json}, {"junit", f.junit}}
	dashes := 0
	for _, o := range outs {
		if o.path == "-" {
			dashes++
		}
		if err := checkOutput(o.path); err != nil {
			fmt.Fprintf(stderr, "gauntlet merge: -%s %s: %v\n", o.flag, o.path, err)
			return 2
		}
	}
	if dashes > 1 {
		fmt.Fprint(stderr, "gauntlet merge: only one report can go to stdout (-)\n")
		return 2
	}
	reportStdout = stdout
	if dashes == 1 {
		stdout = stderr // the report takes stdout; the table goes to stderr
	}
	seen := map[string]bool{}
	for _, d := range dirs {
		st, err := os.Stat(d)
		switch {
		case err != nil:
			fmt.Fprintf(stderr, "gauntlet merge: %s: no such folder\n", d)
			return 2
		case !st.IsDir():
			fmt.Fprintf(stderr, "gauntlet merge: %s is not a folder\n", d)
			return 2
		}
		if a, _ := filepath.Abs(d); seen[a] {
			fmt.Fprintf(stderr, "gauntlet merge: %s is given twice\n", d)
			return 2
		} else {
			seen[a] = true
		}
	}
	m, err := readShards(dirs)
	if err != nil {
		fmt.Fprintf(stderr, "gauntlet merge: %v\n", err)
		return 2
	}
	if err := m.check(); err != nil {
		fmt.Fprintf(stderr, "gauntlet merge: %v\nnothing written: merge the reports of one grader, game and suite (grade the others again)\n", err)
		return 2
	}
	g, ok := programs.GradeGame(m.game)
	if !ok {
		fmt.Fprintf(stderr, "gauntlet merge: the reports are of the game %q, which this gauntlet does not know\n", m.game)
		return 2
	}
	table, problems := m.cohort(g)
	status := 0
	if len(problems) > 0 {
		status = 2
	}
	var reports []*grade.Report
	for _, row := range table.Rows {
		if r := row.Report; r != nil {
			reports = append(reports, r)
			switch {
			case len(r.Harness) > 0:
				status = 2
			case r.Failed() && status == 0:
				status = 1
			}
		}
	}
	if err := table.WriteTable(stdout); err != nil {
		problems = append(problems, err.Error())
	}
	for _, w := range []struct {
		flag, path string
		fn         func(io.Writer) error
	}{
		{"csv", f.csv, table.WriteCSV},
		{"html", f.html, table.WriteHTML},
		{"json", f.json, table.WriteJSON},
		{"junit", f.junit, func(w io.Writer) error { return grade.WriteJUnit(w, reports...) }},
	} {
		if err := writeFile(w.path, w.fn); err != nil {
			problems = append(problems, fmt.Sprintf("-%s: %v", w.flag, err))
			status = 2
		}
	}
	for _, p := range problems {
		fmt.Fprintf(stderr, "gauntlet merge: %s\n", p)
	}
	for _, row := range table.Rows {
		cohort.HarnessErrors(stderr, "gauntlet merge", row.Name, row.Report)
	}
	fmt.Fprintf(stderr, "gauntlet merge: %d reports from %d folders", len(reports), len(dirs))
	if len(m.manifests) > 0 {
		fmt.Fprintf(stderr, ", %d of the %d shards' manifests", len(m.shardsSeen()), m.parts())
	} else {
		fmt.Fprint(stderr, " (no shard manifest: whether a submission is missing cannot be told)")
	}
	fmt.Fprintln(stderr)
	return status
}

// mergeReport is a report read from a file.
type mergeReport struct {
	name, file string
	report     *grade.Report
}

// mergeManifest is a shard's manifest read from a file.
type mergeManifest struct {
	file string
	k, n int
	m    shardManifest
}

type merging struct {
	reports   []mergeReport // in the order read: the folders as given, each one's files by name
	manifests []mergeManifest
	game      string
}

// readShards reads the reports and manifests of each folder.
func readShards(dirs []string) (*merging, error) {
	m := &merging{}
	for _, d := range dirs {
		entries, err := os.ReadDir(d)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			name, file := e.Name(), filepath.Join(d, e.Name())
			if !e.Type().IsRegular() || strings.HasPrefix(name, ".") {
				continue
			}
			switch {
			case strings.HasSuffix(name, ".json"):
				var r grade.Report
				data, err := os.ReadFile(file)
				if err == nil {
					err = json.Unmarshal(data, &r)
				}
				switch {
				case err != nil:
					return nil, fmt.Errorf("%s is not a report: %v", file, err)
				case r.Version == 0 || r.Game == "" || r.Subject == "" || r.Cases == nil:
					return nil, fmt.Errorf("%s is not a report of a submission (no version, game, subject or cases): only reports belong in the folders merged", file)
				case r.Version != grade.ReportVersion:
					return nil, fmt.Errorf("%s is a report of format version %d; this gauntlet reads version %d", file, r.Version, grade.ReportVersion)
				}
				m.reports = append(m.reports, mergeReport{name: strings.TrimSuffix(name, ".json"), file: file, report: &r})
			case strings.HasSuffix(name, manifestSuffix):
				var mm mergeManifest
				data, err := os.ReadFile(file)
				if err == nil {
					err = json.Unmarshal(data, &mm.m)
				}
				if err == nil {
					var f shardFlag
					if err = f.Set(mm.m.Shard); err == nil {
						mm.k, mm.n = f.k, f.n
					}
				}
				if err != nil {
					return nil, fmt.Errorf("%s is not a shard's manifest: %v", file, err)
				}
				mm.file = file
				m.manifests = append(m.manifests, mm)
			}
		}
	}
	if len(m.reports) == 0 && len(m.manifests) == 0 {
		return nil, fmt.Errorf("no report (NAME.json) and no shard manifest in %s", strings.Join(dirs, ", "))
	}
	return m, nil
}

// check makes sure one grader, one game and one suite made every report and manifest, and
// that the manifests deal out one cohort the same way.
func (m *merging) check() error {
	type origin struct{ gauntlet, game, suite string }
	files := map[origin][]string{}
	var order []origin
	add := func(o origin, file string) {
		if _, ok := files[o]; !ok {
			order = append(order, o)
		}
		files[o] = append(files[o], file)
	}
	for _, r := range m.reports {
		add(origin{r.report.Gauntlet, r.report.Game, r.report.Suite}, r.file)
	}
	for _, mm := range m.manifests {
		add(origin{mm.m.Gauntlet, mm.m.Game, mm.m.Suite}, mm.file)
	}
	if len(order) > 1 {
		var b strings.Builder
		fmt.Fprintf(&b, "the reports were not all made by the same gauntlet, game and suite:")
		for _, o := range order {
			fs := files[o]
			more := ""
			if len(fs) > 1 {
				more = fmt.Sprintf(" and %d more", len(fs)-1)
			}
			fmt.Fprintf(&b, "\n  %s%s: game %s, suite %s, %s", fs[0], more, o.game, orNone(o.suite), orNone(o.gauntlet))
		}
		return fmt.Errorf("%s", b.String())
	}
	m.game = order[0].game
	for _, mm := range m.manifests[min(1, len(m.manifests)):] {
		first := m.manifests[0]
		if mm.n != first.n || !slices.Equal(mm.m.Cohort, first.m.Cohort) {
			return fmt.Errorf("%s and %s deal out different cohorts (other folders, other parts, or the submissions changed between the shards' starts): grade every shard with the same folders, unchanged", first.file, mm.file)
		}
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(not named: an older gauntlet)"
	}
	return s
}

// parts is the number of parts of the manifests' cohort.
func (m *merging) parts() int {
	if len(m.manifests) == 0 {
		return 0
	}
	return m.manifests[0].n
}

// shardsSeen are the parts that left a manifest.
func (m *merging) shardsSeen() map[int]bool {
	seen := map[int]bool{}
	for _, mm := range m.manifests {
		seen[mm.k] = true
	}
	return seen
}

// cohort makes the cohort table: a row per report, in the order of their subjects'
// paths (a shard's order), and a "missing" row for each submission of the manifests'
// cohort without a report. problems say what is missing, graded twice, or not of the
// cohort.
func (m *merging) cohort(g grade.Game) (*grade.Cohort, []string) {
	table := grade.NewCohort(g)
	var problems []string
	byName := map[string]mergeReport{}
	for _, r := range m.reports {
		if first, ok := byName[r.name]; ok {
			same := "with the same marks"
			if a, b := first.report.TotalText(), r.report.TotalText(); a != b {
				same = fmt.Sprintf("with other marks (%s, %s)", a, b)
			}
			problems = append(problems, fmt.Sprintf("%s: graded twice, %s: %s and %s (the first is used)", r.name, same, first.file, r.file))
			continue
		}
		byName[r.name] = r
	}
	type row struct {
		subject string
		r       grade.CohortRow
	}
	var rows []row
	for _, r := range byName {
		rows = append(rows, row{r.report.Subject, grade.CohortRow{Name: r.name, State: grade.Graded, Report: r.report, File: r.file}})
	}
	if len(m.manifests) > 0 {
		seen := m.shardsSeen()
		inCohort := map[string]bool{}
		for _, s := range m.manifests[0].m.Cohort {
			inCohort[s.Name] = true
			if r, ok := byName[s.Name]; ok {
				if r.report.Subject != s.Subject {
					problems = append(problems, fmt.Sprintf("%s: %s is the report of %s, but the shards' cohort has %s under that name", s.Name, r.file, r.report.Subject, s.Subject))
				}
				continue
			}
			why := fmt.Sprintf("no report: shard %d/%d was to grade it", s.Shard, m.parts())
			if !seen[s.Shard] {
				why += fmt.Sprintf(", and left no manifest (%s): did it run, with this -out?", manifestName(s.Shard, m.parts()))
			} else {
				why += " (interrupted, or stopped by a harness error? its log says)"
			}
			problems = append(problems, fmt.Sprintf("%s (%s): missing: %s", s.Name, s.Subject, why))
			rows = append(rows, row{s.Subject, grade.CohortRow{Name: s.Name, State: grade.Missing, Problem: why}})
		}
		for _, r := range byName {
			if !inCohort[r.name] {
				problems = append(problems, fmt.Sprintf("%s: %s is not of the shards' cohort (the report of another run in the same folder?)", r.name, r.file))
			}
		}
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].subject != rows[j].subject {
			return rows[i].subject < rows[j].subject
		}
		return rows[i].r.Name < rows[j].r.Name
	})
	for _, r := range rows {
		table.Rows = append(table.Rows, r.r)
	}
	if len(m.reports) > 0 {
		table.Gauntlet, table.Suite = m.reports[0].report.Gauntlet, m.reports[0].report.Suite
	} else {
		table.Gauntlet, table.Suite = m.manifests[0].m.Gauntlet, m.manifests[0].m.Suite
	}
	sort.Strings(problems)
	return table, problems
}
