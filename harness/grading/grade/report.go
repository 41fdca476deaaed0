package grade

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"gauntlet/harness/grading/build"
)

// ReportVersion is the version of the JSON report format (docs/report-format.md). It
// changes whenever a field changes meaning or is removed; adding a field does not.
const ReportVersion = 2

// Report is the whole account of grading one subject on one game.
type Report struct {
	Version    int              `json:"version"`
	Game       string           `json:"game"`
	Subject    string           `json:"subject"`
	Started    time.Time        `json:"started"`
	Seconds    float64          `json:"seconds"`
	Build      *BuildReport     `json:"build,omitempty"`
	Categories []CategoryReport `json:"categories"`
	// Marks is the grade: nil (null) when the grade is Incomplete, never a mark over fewer
	// cases.
	Marks    *float64 `json:"marks"`
	MaxMarks float64  `json:"max_marks"`
	// Incomplete: a marked case run is a HARNESS-ERROR (the harness's own failure, which
	// persisted when the case ran again alone), so the grade has no mark (Marks is nil):
	// grade the submission again.
	Incomplete bool            `json:"incomplete,omitempty"`
	Counts     map[Verdict]int `json:"counts"`
	Cases      []CaseReport    `json:"cases"`
	Harness    []string        `json:"harness_errors,omitempty"`
	// Notes say how the grading ran where a reader should know it, such as programs that
	// ran as a root grader's own user rather than as sandbox users (grading with -unsafe, or as a user other than root).
	Notes []string `json:"notes,omitempty"`
	// Isolation names the level of isolation the subject's programs ran at: "box",
	// "sandbox users without namespaces", or "none: ..." (not root, or -unsafe).
	Isolation string `json:"isolation,omitempty"`
	// Gauntlet names the grader that made the report (version and source revision), and
	// Suite the cases it ran (SuiteDigest): gauntlet merge puts together only reports
	// that agree on both, so that every row of a cohort was graded the same way.
	Gauntlet string `json:"gauntlet,omitempty"`
	Suite    string `json:"suite,omitempty"`
}

// BuildReport is the build step's part of a report.
type BuildReport struct {
	OK       bool     `json:"ok"`
	Problem  string   `json:"problem,omitempty"`
	Warnings int      `json:"warnings"`
	Missing  []string `json:"missing,omitempty"`
	// Removed are the files taken out of the copy before make, so that the programs are
	// built from the sources (build.Result.Removed).
	Removed []string `json:"removed,omitempty"`
	Log     string   `json:"log,omitempty"`
	Seconds float64  `json:"seconds"`
}

// CategoryReport is one marking category's result.
type CategoryReport struct {
	Name    string `json:"name"`
	Program string `json:"program"`
	Cases   int    `json:"cases"`
	Passed  int    `json:"passed"`
	// Unjudged are the marked case runs that are HARNESS-ERROR: Marks is then only a lower
	// bound (each counted as lost), and the grade is incomplete.
	Unjudged int     `json:"unjudged,omitempty"`
	Marks    float64 `json:"marks"`
	MaxMarks float64 `json:"max_marks"`
}

// CaseReport is one case in one pairing.
type CaseReport struct {
	ID          string `json:"id"`
	Pairing     string `json:"pairing"`
	Counted     bool   `json:"counted"`
	Section     string `json:"section"`
	Category    string `json:"category"`
	Title       string `json:"title"`
	Requirement string `json:"requirement,omitempty"`
	Accept      string `json:"accept,omitempty"`
	// Unmarked says why the case earns no marks (Case.Unmarked): the spec does not fix
	// what it checks. Such a case's runs are all not counted.
	Unmarked string `json:"unmarked,omitempty"`
	// Part is the part of its category the case belongs to (Case.Part), and Weight the
	// share of the category's marks this run carries (CaseWeights; 0 when not counted).
	Part   string  `json:"part,omitempty"`
	Weight float64 `json:"weight"`
	// ChargedIn names the case a failure of this run is already charged in (ChargedIn):
	// the run is then not counted in its category. Empty for every other run.
	ChargedIn  string   `json:"charged_in,omitempty"`
	Verdict    Verdict  `json:"verdict"`
	Detail     string   `json:"detail,omitempty"`
	Lenient    []string `json:"lenient,omitempty"`
	Divergence string   `json:"divergence,omitempty"` // up to the first divergence, marked (failures only)
	// Conversation: a hub's messages to the mock players and their answers (failures only).
	Conversation string  `json:"conversation,omitempty"`
	Alone        string  `json:"alone,omitempty"` // a wall-time verdict run again alone: what came of it
	Seconds      float64 `json:"seconds"`
	Log          string  `json:"log,omitempty"` // the full case log, for failures only
}

// report is the outcome as the JSON report gives it (the log for failures only).
func (o Outcome) report() CaseReport {
	c := CaseReport{ID: o.Case.ID, Part: o.Case.Part, Pairing: string(o.Pairing), Counted: o.Counted, Section: o.Case.Section,
		Category: o.Case.Category, Title: o.Case.Title, Requirement: o.Case.Requirement, Accept: o.Case.Accept, Unmarked: o.Case.Unmarked,
		Verdict: o.Verdict, Detail: o.Detail, Lenient: o.Lenient, Divergence: o.Divergence,
		Conversation: o.Conversation, Alone: o.Alone, Seconds: o.Duration.Seconds()}
	if !o.Verdict.Passed() {
		c.Log = o.Log
	}
	return c
}

// Name is the case's name in reports: its ID, with the pairing when it has several.
func (c CaseReport) Name() string {
	if c.Pairing == string(Theirs) {
		return c.ID
	}
	return c.ID + "@" + c.Pairing
}

// NewReport assembles the report of a grading run.
func NewReport(g Game, subject string, started time.Time, b *build.Result, outs []Outcome) *Report {
	r := &Report{Version: ReportVersion, Game: g.Name, Subject: subject, Started: started.UTC(),
		Seconds: time.Since(started).Seconds(), Counts: map[Verdict]int{}}
	if b != nil {
		r.Build = &BuildReport{OK: b.OK, Problem: b.Problem, Warnings: b.Warnings, Missing: b.Missing,
			Removed: b.Removed, Seconds: b.Duration.Seconds()}
		if !b.OK {
			r.Build.Log = b.Log
		}
	}
	var unclaimed map[string]bool
	if b != nil {
		unclaimed = g.Unclaimed(b.Programs)
	}
	total := 0.0
	for _, cm := range Marks(g, outs) {
		if unclaimed[cm.Category.Program] {
			continue // the categories of a program the submission need not have built
		}
		r.Categories = append(r.Categories, CategoryReport{Name: cm.Category.Name, Program: cm.Category.Program,
			Cases: cm.Cases, Passed: cm.Passed, Unjudged: cm.Unjudged, Marks: round2(cm.Marks), MaxMarks: cm.Category.Marks})
		total += cm.Marks
		r.MaxMarks += cm.Category.Marks
		r.Incomplete = r.Incomplete || !cm.Complete()
	}
	if !r.Incomplete {
		total = round2(total)
		r.Marks = &total
	}
	weights, charged := CaseWeights(outs), ChargedIn(outs)
	for i, o := range outs {
		c := o.report()
		c.Weight, c.ChargedIn = weights[i], charged[i]
		if o.Verdict == HarnessError {
			r.Harness = append(r.Harness, c.Name()+": "+o.Detail)
		}
		if o.Cleanup != "" {
			r.Notes = append(r.Notes, c.Name()+": the case's folder could not be removed, so what the subject wrote is left on the grader's disk: "+o.Cleanup)
		}
		r.Counts[o.Verdict]++
		r.Cases = append(r.Cases, c)
	}
	return r
}

// SuiteDigest names a selection of cases by their content: "sha256:" and the hex SHA-256
// of every case's id and script, in id order. Another -run, a case added, removed or
// edited, or another -suite gives another digest; the order the cases are given in does
// not count.
func SuiteDigest(cases []Case) string {
	sorted := slices.Clone(cases)
	slices.SortFunc(sorted, func(a, b Case) int { return strings.Compare(a.ID, b.ID) })
	h := sha256.New()
	for _, c := range sorted {
		fmt.Fprintf(h, "%d:%s%d:", len(c.ID), c.ID, len(c.Script))
		h.Write(c.Script)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

func round2(x float64) float64 { return float64(int64(x*100+0.5)) / 100 }

// Total is the grade's mark, and false when the grade is incomplete (no mark).
func (r *Report) Total() (float64, bool) {
	if r.Marks == nil {
		return 0, false
	}
	return *r.Marks, true
}

// MarksText is the category's mark as reports show it: "2.50", or "?" when a marked case
// run of it was not judged (HARNESS-ERROR).
func (c CategoryReport) MarksText() string {
	if c.Unjudged > 0 {
		return "?"
	}
	return fmt.Sprintf("%.2f", c.Marks)
}

// TotalText is the grade's mark as reports show it: "12.50", or "incomplete".
func (r *Report) TotalText() string {
	if m, ok := r.Total(); ok {
		return fmt.Sprintf("%.2f", m)
	}
	return "incomplete"
}

// Failed reports whether any case did not pass (harness errors included).
func (r *Report) Failed() bool {
	for _, c := range r.Cases {
		if !c.Verdict.Passed() {
			return true
		}
	}
	return r.Build != nil && !r.Build.OK
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteSummary writes the report for a person at a terminal: the build, every failed case
// with what was expected and what happened, the marks by category, and the verdict counts.
// verbose adds the full log of each failed case.
func (r *Report) WriteSummary(w io.Writer, verbose bool) {
	fmt.Fprintf(w, "gauntlet grade %s: %s\n", r.Game, r.Subject)
	if r.Build != nil {
		b := r.Build
		switch {
		case !b.OK:
			fmt.Fprintf(w, "build: BUILD-FAIL (%s), %d warning(s)\n%s\n", b.Problem, b.Warnings, indent(b.Log))
		default:
			fmt.Fprintf(w, "build: ok, %d warning(s)", b.Warnings)
			if len(b.Missing) > 0 {
				fmt.Fprintf(w, "; not built: %s", strings.Join(b.Missing, " "))
			}
			fmt.Fprintln(w)
		}
		w.Write([]byte(b.removedText()))
	}
	builds := map[string]int{} // BUILD-FAIL details: one entry each, with a count
	for _, c := range r.Cases {
		if c.Verdict == BuildFail {
			builds[c.Detail]++
		}
	}
	for _, d := range slices.Sorted(maps.Keys(builds)) {
		fmt.Fprintf(w, "\n%s (%d case runs): %s\n", BuildFail, builds[d], d)
	}
	// Failures with the same verdict and the same account are one entry: the first case in
	// full, then the others by name (with -v, every case's log).
	for _, group := range groupCases(r.Cases, func(c CaseReport) bool { return failed(c) && c.Verdict != BuildFail }) {
		c := group[0]
		counted := ""
		switch {
		case c.Unmarked != "":
			counted = " (not marked: the spec does not fix it)"
		case c.ChargedIn != "":
			counted = " (not marked: already charged in " + c.ChargedIn + ")"
		case !c.Counted:
			counted = " (not marked: tells who is wrong)"
		}
		more := ""
		if len(group) > 1 {
			more = fmt.Sprintf(" and %d more case runs the same way", len(group)-1)
		}
		fmt.Fprintf(w, "\n%s %s%s%s\n", c.Verdict, c.Name(), counted, more)
		fmt.Fprintf(w, "  requirement: %s [%s; %s]\n", c.Title, c.Section, c.Category)
		if c.Accept != "" {
			fmt.Fprintf(w, "  also accepted: %s\n", c.Accept)
		}
		if c.Unmarked != "" {
			fmt.Fprintf(w, "  not marked: %s\n", c.Unmarked)
		}
		fmt.Fprintf(w, "  what happened: %s\n", c.Detail)
		if c.Alone != "" {
			fmt.Fprintf(w, "  %s\n", c.Alone)
		}
		if c.Divergence != "" {
			fmt.Fprintf(w, "  %s\n", indent(c.Divergence)[2:])
		}
		if c.Conversation != "" {
			fmt.Fprintf(w, "  %s\n", indent(c.Conversation)[2:])
		}
		if len(group) > 1 {
			names := make([]string, 0, len(group)-1)
			for _, o := range group[1:] {
				names = append(names, o.Name())
			}
			fmt.Fprintf(w, "  the same in: %s\n", strings.Join(names, ", "))
		}
		if verbose {
			for _, o := range group {
				if o.Log != "" {
					fmt.Fprintf(w, "  log of %s:\n%s\n", o.Name(), indent(o.Log))
				}
			}
		}
	}
	fmt.Fprintf(w, "\n%-40s %7s %9s\n", "category", "passed", "marks")
	empty := 0
	for _, c := range r.Categories {
		if c.Cases == 0 {
			empty++
			fmt.Fprintf(w, "%-40s %7s %4s/%-4g (no case run)\n", c.Name, "-", "-", c.MaxMarks)
			continue
		}
		if c.Unjudged > 0 {
			fmt.Fprintf(w, "%-40s %3d/%-3d %4s/%-4g (%d not judged: HARNESS-ERROR)\n", c.Name, c.Passed, c.Cases, "?", c.MaxMarks, c.Unjudged)
			continue
		}
		fmt.Fprintf(w, "%-40s %3d/%-3d %4.2f/%-4g\n", c.Name, c.Passed, c.Cases, c.Marks, c.MaxMarks)
	}
	if m, ok := r.Total(); ok {
		fmt.Fprintf(w, "%-40s %7s %4.2f/%-4g\n", "total", "", m, r.MaxMarks)
	} else {
		fmt.Fprintf(w, "%-40s %7s %4s/%-4g INCOMPLETE: no mark\n", "total", "", "?", r.MaxMarks)
	}
	var keys []string
	for v, n := range r.Counts {
		keys = append(keys, fmt.Sprintf("%s %d", v, n))
	}
	sort.Strings(keys)
	fmt.Fprintf(w, "cases: %s (%.1fs)\n", strings.Join(keys, ", "), r.Seconds)
	if empty > 0 {
		fmt.Fprintf(w, "note: %d categories had no case in this run (filtered out, or none in the suite yet); their marks count as 0\n", empty)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if len(r.Harness) > 0 {
		fmt.Fprintf(w, "HARNESS ERRORS (the grader's own failures, each run again alone and failed again; not the subject's fault):\n")
		for _, h := range r.Harness {
			fmt.Fprintf(w, "  %s\n", h)
		}
	}
	if r.Incomplete {
		fmt.Fprintf(w, "INCOMPLETE: a marked case was not judged (HARNESS-ERROR above): this is not a grade; grade the submission again\n")
	}
}

// removedText says which prebuilt files were removed before make, and which programs the
// submission held only prebuilt (no sources make builds them from); "" when none were.
func (b *BuildReport) removedText() string {
	if len(b.Removed) == 0 {
		return ""
	}
	s := fmt.Sprintf("build: removed before make, so that the programs are built from the sources: %s\n", strings.Join(b.Removed, " "))
	for _, p := range build.NoSources(b.Missing, b.Removed) {
		s += fmt.Sprintf("build: %s: the submission holds a prebuilt %s but no sources that make builds it from\n", p, p)
	}
	return s
}

func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}
