package grade

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteCSV writes the cohort table as CSV for spreadsheets (docs/report-format.md lists
// the columns): a header row, then one row per submission. Marks are plain numbers; a category
// none of whose cases ran (filtered out by -run) has an empty cell. The cells of a row
// without a report (interrupted, harness error) are empty but for its name, state and
// problem.
func (c *Cohort) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := []string{"submission", "subject", "state", "build", "warnings", "missing", "problem"}
	for _, cat := range c.Categories {
		head = append(head, cat.Name)
	}
	head = append(head, "total", "max_marks")
	for _, v := range verdictOrder {
		head = append(head, string(v))
	}
	head = append(head, "seconds")
	if err := cw.Write(head); err != nil {
		return err
	}
	num := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	for _, row := range c.Rows {
		r := row.Report
		rec := make([]string, 0, len(head))
		if r == nil {
			rec = append(rec, row.Name, "", string(row.State), "", "", "", row.Problem)
			for len(rec) < len(head) {
				rec = append(rec, "")
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
			continue
		}
		warnings, missing, problem := "", "", row.Problem
		if b := r.Build; b != nil {
			warnings, missing = fmt.Sprint(b.Warnings), strings.Join(b.Missing, " ")
			if problem == "" {
				problem = b.Problem
			}
		}
		rec = append(rec, row.Name, r.Subject, string(row.State), r.buildState(), warnings, missing, problem)
		for _, cat := range c.Categories {
			if cm, ok := r.categoryMarks(cat.Name); ok && cm.Unjudged > 0 {
				rec = append(rec, "incomplete") // a marked case not judged: no mark
			} else if ok && cm.Cases > 0 {
				rec = append(rec, num(cm.Marks))
			} else {
				rec = append(rec, "") // no case of it ran: nothing earned, nothing lost
			}
		}
		total := "incomplete" // no mark: never one over fewer cases
		if m, ok := r.Total(); ok {
			total = num(m)
		}
		rec = append(rec, total, num(r.MaxMarks))
		for _, v := range verdictOrder {
			rec = append(rec, fmt.Sprint(r.Counts[v]))
		}
		rec = append(rec, strconv.FormatFloat(r.Seconds, 'f', 1, 64))
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
