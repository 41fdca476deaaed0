package grade

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
)

// GradescopeOutputLimit bounds the text of one Gradescope test (a case's log can be long;
// Gradescope pages become unusable, and its results file has a size limit). Longer texts
// keep their start and their end, where the failure is.
const GradescopeOutputLimit = 32 << 10

// The Gradescope autograder results format (results/results.json), as far as it is used.
type (
	gsResults struct {
		Score         float64  `json:"score"`
		ExecutionTime int      `json:"execution_time"`
		Output        string   `json:"output"`
		OutputFormat  string   `json:"output_format"`
		Visibility    string   `json:"visibility"`
		Tests         []gsTest `json:"tests"`
	}
	gsTest struct {
		Name       string  `json:"name"`
		Score      float64 `json:"score"`
		MaxScore   float64 `json:"max_score"`
		Status     string  `json:"status"`
		Output     string  `json:"output"`
		Visibility string  `json:"visibility"`
	}
)

// A case the grader could not grade (HARNESS-ERROR) is a Gradescope test of its own, named
// after GradescopeHarnessTest and always visible, whose output starts with
// GradescopeHarnessText: it is worth nothing, and a marked one leaves the grade incomplete
// (score 0 and a first test saying so, until the submission is graded again), never a mark
// over the other cases.
const (
	GradescopeHarnessTest = "HARNESS-ERROR, the course staff's problem, not yours"
	GradescopeHarnessText = "The grader could not grade this case: the fault is in the grader or its machine, not in your submission. The case was run again and failed again the same way; while a marked case is not graded, your grade is incomplete: the score here is not your mark, and your course staff must look at it and grade your submission again.\n\n"
)

// GradescopeUnmarkedText starts the output of a Gradescope test whose cases all failed in
// pairings that are not marked: it is shown as passed, worth nothing, named "[not marked]".
const GradescopeUnmarkedText = "Not marked: this pairing costs you no marks. It runs your program with programs of yours in other roles (or the reference's in the role marked), to tell which of your programs is wrong; the marked pairing of the same case is a test of its own when it failed.\n\n"

// unmarkedOnly says whether every case run of a group failed in a pairing that is not
// marked (none of them a HARNESS-ERROR, which is always shown as the grader's).
func unmarkedOnly(cases []CaseReport) bool {
	for _, c := range cases {
		if c.Counted || c.Verdict == HarnessError {
			return false
		}
	}
	return true
}

// WriteGradescope writes the report as a Gradescope autograder results.json
// (docs/report-format.md has the mapping): the score is the report's marks; there is one
// test per marking category worth its marks; then, worth nothing (score 0 of 0) so that
// they only explain, one test for the build when it failed or did not make every program, and one per case and pairing
// that did not simply pass, carrying what was checked, what happened and the log. The
// top-level output is the terminal summary (output_format "text"). Every test, and the
// results as a whole, have the visibility given (Gradescope's: visible, hidden,
// after_due_date or after_published).
func (r *Report) WriteGradescope(w io.Writer) error { return r.WriteGradescopeVisible(w, "visible") }

// GradescopeVisibilities are the visibilities Gradescope knows.
var GradescopeVisibilities = []string{"visible", "hidden", "after_due_date", "after_published"}

// WriteGradescopeVisible is WriteGradescope with the given visibility.
func (r *Report) WriteGradescopeVisible(w io.Writer, visibility string) error {
	var summary bytes.Buffer
	r.WriteSummary(&summary, false)
	// An incomplete grade has no mark (Report.Incomplete): Gradescope needs a score, and
	// gets 0 with a test that says why, never a mark over fewer cases.
	score, complete := r.Total()
	res := gsResults{Score: score, ExecutionTime: int(math.Ceil(r.Seconds)), Output: summary.String(),
		OutputFormat: "text", Visibility: visibility, Tests: []gsTest{}}
	if !complete {
		res.Tests = append(res.Tests, gsTest{Name: "INCOMPLETE: not a grade", Status: "failed", Visibility: "visible",
			Output: "a marked case was not judged (HARNESS-ERROR: the grader's own failure, which persisted when the case ran again alone); the score is 0 until the submission is graded again"})
	}
	for _, c := range r.Categories {
		t := gsTest{Name: c.Name, Score: c.Marks, MaxScore: c.MaxMarks, Status: "failed", Visibility: "visible"}
		switch {
		case c.Unjudged > 0:
			t.Score = 0
			t.Output = fmt.Sprintf("%d of %d cases not judged (HARNESS-ERROR): no mark", c.Unjudged, c.Cases)
		case c.Cases == 0:
			t.Output = "no case of this category was run: its marks count as 0"
		case c.Passed == c.Cases:
			t.Status = "passed"
			fallthrough
		default:
			t.Output = fmt.Sprintf("%d of %d cases passed: %.2f of %g marks", c.Passed, c.Cases, c.Marks, c.MaxMarks)
		}
		res.Tests = append(res.Tests, t)
	}
	if b := r.Build; b != nil && (!b.OK || len(b.Missing) > 0) {
		res.Tests = append(res.Tests, gsTest{Name: "build", Status: "failed", Visibility: "visible",
			Output: clip(buildText(b), GradescopeOutputLimit)})
	}
	// One test per kind of failure (the same verdict and account), and per accepted
	// alternative: a missing program is one test, not one per case it cost.
	progs := r.categoryPrograms()
	for _, cases := range groupCases(r.Cases, func(c CaseReport) bool { return c.Verdict != Pass }) {
		c := cases[0]
		t := gsTest{Name: failureName(c, progs[c.Category], len(cases)), Status: "failed", Visibility: "visible"}
		var names strings.Builder
		if len(cases) > 1 {
			names.WriteString("cases:")
			for _, x := range cases {
				names.WriteString(" " + x.Name())
			}
			names.WriteString("\nthe first of them:\n")
		}
		if c.Verdict == HarnessError {
			// The grader's fault: shown whatever the visibility chosen, so that the student
			// learns at once that these cases were not graded and whose problem they are.
			t.Name = GradescopeHarnessTest + ": " + c.Name()
			if len(cases) > 1 {
				t.Name = fmt.Sprintf("%s: %s (%d cases)", GradescopeHarnessTest, c.Detail, len(cases))
			}
			t.Visibility = "visible"
			t.Output = clip(GradescopeHarnessText+names.String()+caseText(c), GradescopeOutputLimit)
			res.Tests = append(res.Tests, t)
			continue
		}
		if unmarkedOnly(cases) {
			// A pairing that costs no marks (it tells which program is wrong) is never a
			// red failure: a student with full marks would see one.
			t.Name = "[not marked] " + t.Name
			t.Status = "passed"
			t.Output = clip(GradescopeUnmarkedText+names.String()+caseText(c), GradescopeOutputLimit)
		} else if c.Verdict == PassLenient {
			t.Status = "passed"
			t.Output = names.String() + fmt.Sprintf("PASS-LENIENT %s\nrequirement: %s [%s]\npassed on an allowed alternative: %s\n",
				c.Name(), c.Title, c.Section, c.Detail)
		} else {
			t.Output = clip(names.String()+caseText(c), GradescopeOutputLimit)
		}
		res.Tests = append(res.Tests, t)
	}
	for i := range res.Tests {
		if !strings.HasPrefix(res.Tests[i].Name, GradescopeHarnessTest+":") {
			res.Tests[i].Visibility = visibility
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}

// failureName names a kind of failure for people (a Gradescope test): its verdict, the
// program and category of its first case, that case's requirement sentence (its title) and
// the case, with how many more share the cause: "[WRONG-EXIT] EAIT, players/arguments: EAIT
// with an ID ... (player_args_id_eait and 2 more)". A missing program, which costs cases of
// every category, is named by itself: "BUILD-FAIL: program not built: EAIT (9 cases)".
func failureName(c CaseReport, prog string, n int) string {
	if c.Verdict == BuildFail && n > 1 {
		return fmt.Sprintf("%s: %s (%d cases)", c.Verdict, c.Detail, n)
	}
	where := c.Category
	if prog != "" {
		where = prog + ", " + where
	}
	name := fmt.Sprintf("[%s] %s: %s (%s", c.Verdict, where, c.Title, c.Name())
	if n > 1 {
		name += fmt.Sprintf(" and %d more", n-1)
	}
	return name + ")"
}

// categoryPrograms maps each marking category of the report to the program it marks.
func (r *Report) categoryPrograms() map[string]string {
	m := map[string]string{}
	for _, c := range r.Categories {
		m[c.Name] = c.Program
	}
	return m
}

// clip shortens s to about n bytes, keeping its start and its end, on line boundaries when
// it can, and saying how much was left out.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head, tail := s[:n/2], s[len(s)-n/2:]
	if i := strings.LastIndexByte(head, '\n'); i > 0 {
		head = head[:i+1]
	}
	if i := strings.IndexByte(tail, '\n'); i >= 0 && i < len(tail)-1 {
		tail = tail[i+1:]
	}
	return fmt.Sprintf("%s[... %d bytes left out ...]\n%s", head, len(s)-len(head)-len(tail), tail)
}
