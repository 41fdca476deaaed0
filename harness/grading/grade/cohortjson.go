package grade

import (
	"encoding/json"
	"io"
)

// CohortReport is the JSON form of a cohort (gauntlet merge -json): a line per submission
// with its marks, and the cohort's dashboard. Each submission's whole report stays in its
// own file (the row's report). docs/report-format.md describes every field.
type CohortReport struct {
	Version     int           `json:"version"` // ReportVersion
	Game        string        `json:"game"`
	Gauntlet    string        `json:"gauntlet,omitempty"` // the reports' grader (Report.Gauntlet)
	Suite       string        `json:"suite,omitempty"`    // the reports' cases (Report.Suite)
	MaxMarks    float64       `json:"max_marks"`
	Submissions []CohortEntry `json:"submissions"`
	Dashboard   Dashboard     `json:"dashboard"`
}

// CohortEntry is one submission of a CohortReport.
type CohortEntry struct {
	Name       string           `json:"name"`
	Subject    string           `json:"subject,omitempty"`
	State      RowState         `json:"state"`
	Problem    string           `json:"problem,omitempty"`
	Report     string           `json:"report,omitempty"` // the file its report was read from
	Marks      *float64         `json:"marks"`            // null when its grade is incomplete (Report.Marks)
	Incomplete bool             `json:"incomplete,omitempty"`
	MaxMarks   float64          `json:"max_marks"`
	Categories []CategoryReport `json:"categories,omitempty"`
	Counts     map[Verdict]int  `json:"counts,omitempty"`
	Signature  string           `json:"signature,omitempty"` // its FailureSignature's id; "" when nothing failed
}

// WriteJSON writes the cohort as a CohortReport, indented. gauntlet and suite name the
// grader and the cases of its reports.
func (c *Cohort) WriteJSON(w io.Writer) error {
	d := c.Dashboard()
	out := CohortReport{Version: ReportVersion, Game: c.Game, Gauntlet: c.Gauntlet, Suite: c.Suite, MaxMarks: d.MaxMarks,
		Submissions: []CohortEntry{}, Dashboard: d}
	sigOf := map[string]string{}
	for _, s := range d.Signatures {
		for _, n := range s.Students {
			sigOf[n] = s.ID
		}
	}
	for _, row := range c.Rows {
		e := CohortEntry{Name: row.Name, State: row.State, Problem: row.Problem, Report: row.File, Signature: sigOf[row.Name]}
		if r := row.Report; r != nil {
			e.Subject, e.Marks, e.Incomplete, e.MaxMarks, e.Categories, e.Counts = r.Subject, r.Marks, r.Incomplete, r.MaxMarks, r.Categories, r.Counts
		}
		out.Submissions = append(out.Submissions, e)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
