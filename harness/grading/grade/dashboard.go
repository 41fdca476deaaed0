package grade

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"sort"
	"strings"
)

// Dashboard is what a whole cohort's reports say together, for the staff who set the
// assignment: how the marks are spread, which categories the cohort passes, which cases
// most students fail (often a spec ambiguity or a suite bug rather than many students'
// bug), and which students fail in exactly the same way. Only rows with a report count.
// docs/report-format.md describes each field.
type Dashboard struct {
	Graded       int                `json:"graded"`       // rows with a report
	MaxMarks     float64            `json:"max_marks"`    // the game's total
	Distribution []MarkBin          `json:"distribution"` // the totals in ten bins of equal width
	Categories   []CategoryPassRate `json:"categories"`   // in the game's order
	MostFailed   []FailedCase       `json:"most_failed"`  // at most MostFailedShown
	Signatures   []FailureSignature `json:"signatures"`   // students with failures, grouped
}

// MarkBin is one bar of the mark distribution: the reports whose total is in [From, To)
// (the last bin includes To, the full marks).
type MarkBin struct {
	From  float64 `json:"from"`
	To    float64 `json:"to"`
	Count int     `json:"count"`
}

// CategoryPassRate is one category's result over the cohort.
type CategoryPassRate struct {
	Name     string  `json:"name"`
	Marks    float64 `json:"max_marks"`
	Students int     `json:"students"` // reports that ran at least one of its cases
	Full     int     `json:"full"`     // of them, those with all its marks
	Runs     int     `json:"runs"`     // its case runs over the cohort
	Passed   int     `json:"passed"`   // of them, those that passed
	Rate     float64 `json:"rate"`     // Passed / Runs (0 when no run)
}

// FailedCase is a case run failed by several students.
type FailedCase struct {
	Case     string `json:"case"` // CaseReport.Name: the id, with the pairing when not the subject's own
	Title    string `json:"title"`
	Category string `json:"category"`
	// Counted: the case run is the case's marked pairing (CaseReport.Counted); false for a
	// pairing that costs no marks and tells which program is wrong.
	Counted  bool     `json:"counted"`
	Students []string `json:"students"` // the row names, in the cohort's order
}

// FailureSignature is a group of students whose failed case runs are exactly the same
// (the same cases, each with the same verdict).
type FailureSignature struct {
	ID       string   `json:"id"`       // the first 12 hex digits of the SHA-256 of Failures
	Failures []string `json:"failures"` // "VERDICT case", sorted
	Students []string `json:"students"` // the row names, in the cohort's order
}

// MostFailedShown is how many cases the dashboard lists in MostFailed.
const MostFailedShown = 10

// distributionBins is the number of bars of the mark distribution.
const distributionBins = 10

// Dashboard sums up the cohort's reports. A case run that failed with BUILD-FAIL or
// HARNESS-ERROR says nothing about the case (the program was not built; the grader
// failed), so it counts in no case's failures, but it is part of its student's signature.
func (c *Cohort) Dashboard() Dashboard {
	d := Dashboard{}
	for _, cat := range c.Categories {
		d.MaxMarks += cat.Marks
		d.Categories = append(d.Categories, CategoryPassRate{Name: cat.Name, Marks: cat.Marks})
	}
	width := d.MaxMarks / distributionBins
	for i := range distributionBins {
		d.Distribution = append(d.Distribution, MarkBin{From: round2(float64(i) * width), To: round2(float64(i+1) * width)})
	}
	type failure struct {
		title, category string
		counted         bool
		students        []string
	}
	failures := map[string]*failure{}
	sigs := map[string]*FailureSignature{}
	var sigOrder []string
	for _, row := range c.Rows {
		r := row.Report
		if r == nil {
			continue
		}
		d.Graded++
		if m, ok := r.Total(); ok {
			// (An incomplete grade has no mark to place.)
			bin := distributionBins - 1
			if width > 0 && m < d.MaxMarks {
				bin = min(max(int(math.Floor(m/width)), 0), distributionBins-1)
			}
			d.Distribution[bin].Count++
		}
		for i, cat := range c.Categories {
			cm, ok := r.categoryMarks(cat.Name)
			if !ok || cm.Cases == 0 {
				continue
			}
			p := &d.Categories[i]
			p.Students++
			p.Runs += cm.Cases
			p.Passed += cm.Passed
			if cm.Marks >= cm.MaxMarks {
				p.Full++
			}
		}
		var sig []string
		seen := map[string]bool{}
		for _, cr := range r.Cases {
			if cr.Verdict.Passed() {
				continue
			}
			sig = append(sig, string(cr.Verdict)+" "+cr.Name())
			if cr.Verdict == BuildFail || cr.Verdict == HarnessError || seen[cr.Name()] {
				continue
			}
			seen[cr.Name()] = true
			f := failures[cr.Name()]
			if f == nil {
				f = &failure{title: cr.Title, category: cr.Category, counted: cr.Counted}
				failures[cr.Name()] = f
			}
			f.students = append(f.students, row.Name)
		}
		if len(sig) == 0 {
			continue
		}
		sort.Strings(sig)
		key := strings.Join(sig, "\n")
		s := sigs[key]
		if s == nil {
			sum := sha256.Sum256([]byte(key))
			s = &FailureSignature{ID: hex.EncodeToString(sum[:])[:12], Failures: sig}
			sigs[key] = s
			sigOrder = append(sigOrder, key)
		}
		s.Students = append(s.Students, row.Name)
	}
	for i := range d.Categories {
		if p := &d.Categories[i]; p.Runs > 0 {
			p.Rate = math.Round(float64(p.Passed)/float64(p.Runs)*10000) / 10000
		}
	}
	for name, f := range failures {
		d.MostFailed = append(d.MostFailed, FailedCase{Case: name, Title: f.title, Category: f.category, Counted: f.counted, Students: f.students})
	}
	sort.Slice(d.MostFailed, func(i, j int) bool {
		a, b := d.MostFailed[i], d.MostFailed[j]
		if len(a.Students) != len(b.Students) {
			return len(a.Students) > len(b.Students)
		}
		return a.Case < b.Case
	})
	if len(d.MostFailed) > MostFailedShown {
		d.MostFailed = d.MostFailed[:MostFailedShown]
	}
	for _, key := range sigOrder {
		d.Signatures = append(d.Signatures, *sigs[key])
	}
	// The largest groups first; groups of the same size in the order their first student
	// comes in the cohort.
	sort.SliceStable(d.Signatures, func(i, j int) bool {
		return len(d.Signatures[i].Students) > len(d.Signatures[j].Students)
	})
	return d
}
