package grade

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"gauntlet/games/contract"
)

// verdictOrder lists every verdict, best first: the column order of cohort tables and the
// order of verdict counts in one-line summaries.
var verdictOrder = []Verdict{Pass, PassLenient, WrongStdout, WrongStderr, WrongExit, Protocol, Crash,
	Timeout, Limit, Hygiene, BuildFail, HarnessError}

// RowState says how far the grading of one submission of a cohort got.
type RowState string

// The row states. Only Graded and Resumed rows carry a report.
const (
	Graded      RowState = "graded"        // graded in this run
	Resumed     RowState = "resumed"       // its report was already in the output folder: not graded again
	Interrupted RowState = "interrupted"   // the run was interrupted before it finished: no marks
	Errored     RowState = "harness-error" // the grader could not grade it (e.g. its folder could not be copied)
	Missing     RowState = "missing"       // gauntlet merge: a shard was to grade it, and no report of it was found
	Elsewhere   RowState = "elsewhere"     // a sharded grade with -steal: another shard took it (its claim), and writes its report
)

// CohortRow is one submission's line in a cohort table.
type CohortRow struct {
	Name    string   // the submission's short name (its folder's base name, made unique)
	State   RowState //
	Report  *Report  // the report (Graded and Resumed rows only)
	Problem string   // Interrupted, Errored and Missing rows: what happened, for people
	File    string   // gauntlet merge: the file its report was read from
}

// Cohort is the side-by-side account of grading several submissions of one game.
type Cohort struct {
	Game       string
	Categories []contract.Category // the game's categories: the marks columns
	Rows       []CohortRow
	// Gauntlet and Suite are those of the rows' reports (Report.Gauntlet, Report.Suite),
	// when known: the JSON form names them.
	Gauntlet, Suite string
}

// NewCohort starts an empty cohort table for game g.
func NewCohort(g Game) *Cohort {
	return &Cohort{Game: g.Name, Categories: g.Categories}
}

// categoryMarks finds the marks the report gives a category (0, false when it has none).
func (r *Report) categoryMarks(name string) (CategoryReport, bool) {
	for _, c := range r.Categories {
		if c.Name == name {
			return c, true
		}
	}
	return CategoryReport{}, false
}

// buildState says how the build went: "ok", "fail", or "" when no build step ran (the
// built-in subject) or there is no report.
func (r *Report) buildState() string {
	switch {
	case r == nil || r.Build == nil:
		return ""
	case r.Build.OK:
		return "ok"
	}
	return "fail"
}

// CountsLine says the non-zero verdict counts in verdict order, e.g. "PASS 630, WRONG-EXIT 2".
func (r *Report) CountsLine() string {
	var parts []string
	for _, v := range verdictOrder {
		if n := r.Counts[v]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", v, n))
		}
	}
	for v, n := range r.Counts { // verdicts from a newer grader, kept rather than dropped
		if !knownVerdict(v) && n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", v, n))
		}
	}
	return strings.Join(parts, ", ")
}

func knownVerdict(v Verdict) bool {
	for _, k := range verdictOrder {
		if k == v {
			return true
		}
	}
	return false
}

// WriteTable writes the cohort as an aligned table for people: one row per submission with
// its state, build, warnings, marks per category (each column headed by the category's
// name and marks), total and verdict counts.
func (c *Cohort) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"submission", "state", "build", "warnings"}
	maxTotal := 0.0
	for _, cat := range c.Categories {
		head = append(head, fmt.Sprintf("%s (%g)", cat.Name, cat.Marks))
		maxTotal += cat.Marks
	}
	head = append(head, fmt.Sprintf("total/%g", maxTotal), "cases")
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, row := range c.Rows {
		cells := []string{row.Name, string(row.State)}
		r := row.Report
		if r == nil {
			cells = append(cells, "-", "-")
			for range c.Categories {
				cells = append(cells, "-")
			}
			cells = append(cells, "-", row.Problem)
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
			continue
		}
		build, warnings := "-", "-"
		if b := r.Build; b != nil {
			warnings = fmt.Sprint(b.Warnings)
			switch {
			case !b.OK:
				build = string(BuildFail)
			case len(b.Missing) > 0:
				build = "ok, missing " + strings.Join(b.Missing, " ")
			default:
				build = "ok"
			}
		}
		cells = append(cells, build, warnings)
		for _, cat := range c.Categories {
			cm, ok := r.categoryMarks(cat.Name)
			if !ok || cm.Cases == 0 {
				cells = append(cells, "-")
				continue
			}
			cells = append(cells, cm.MarksText())
		}
		cells = append(cells, r.TotalText(), r.CountsLine())
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}
