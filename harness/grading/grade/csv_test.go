package grade

import (
	"encoding/csv"
	"strings"
	"testing"
)

func TestCohortCSV(t *testing.T) {
	c := NewCohort(toy)
	good := sampleReport("good")
	good.Subject = `/subs/a "quoted", name`
	c.Rows = []CohortRow{
		{Name: "good", State: Graded, Report: good},
		{Name: "bad", State: Resumed, Report: sampleReport("bad")},
		{Name: "nobuild", State: Graded, Report: sampleReport("nobuild")},
		{Name: "late", State: Interrupted, Problem: "not started"},
		{Name: "huge", State: Errored, Problem: "HARNESS-ERROR: submission too large"},
	}
	var b strings.Builder
	if err := c.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	if err != nil {
		t.Fatalf("the CSV does not parse back: %v\n%s", err, b.String())
	}
	head := "submission,subject,state,build,warnings,missing,problem,hub/basics,player/basics,total,max_marks," +
		"PASS,PASS-LENIENT,WRONG-STDOUT,WRONG-STDERR,WRONG-EXIT,PROTOCOL,CRASH,TIMEOUT,LIMIT,HYGIENE,BUILD-FAIL,HARNESS-ERROR,seconds"
	if got := strings.Join(recs[0], ","); got != head {
		t.Errorf("header\n%s\nwant\n%s", got, head)
	}
	want := []struct {
		row  int
		cols map[string]string
	}{
		{1, map[string]string{"submission": "good", "subject": `/subs/a "quoted", name`, "state": "graded", "build": "ok",
			"warnings": "1", "missing": "", "problem": "", "hub/basics": "4", "player/basics": "2", "total": "6",
			"max_marks": "6", "PASS": "4", "PASS-LENIENT": "1", "CRASH": "0", "HARNESS-ERROR": "0"}},
		{2, map[string]string{"submission": "bad", "state": "resumed", "hub/basics": "0", "player/basics": "incomplete",
			"total": "incomplete", "PASS": "1", "WRONG-STDOUT": "1", "WRONG-EXIT": "1", "CRASH": "1", "HARNESS-ERROR": "1"}},
		{3, map[string]string{"submission": "nobuild", "build": "fail", "warnings": "2", "missing": "toyhub toyplayer",
			"problem": "make exited with status 2", "BUILD-FAIL": "5", "PASS": "0", "total": "0"}},
		{4, map[string]string{"submission": "late", "state": "interrupted", "problem": "not started", "subject": "",
			"build": "", "hub/basics": "", "total": "", "PASS": "", "seconds": ""}},
		{5, map[string]string{"submission": "huge", "state": "harness-error", "problem": "HARNESS-ERROR: submission too large",
			"max_marks": ""}},
	}
	if len(recs) != len(want)+1 {
		t.Fatalf("%d records, want %d:\n%s", len(recs), len(want)+1, b.String())
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, w := range want {
		if len(recs[w.row]) != len(recs[0]) {
			t.Errorf("row %d has %d cells, the header %d", w.row, len(recs[w.row]), len(recs[0]))
			continue
		}
		for name, v := range w.cols {
			if got := recs[w.row][col[name]]; got != v {
				t.Errorf("row %d, %s: %q, want %q", w.row, name, got, v)
			}
		}
	}
}

func TestCohortCSVCategoryNotRun(t *testing.T) {
	r := sampleReport("good")
	r.Categories[0].Cases, r.Categories[0].Marks = 0, 0 // as when -run filters its cases out
	c := NewCohort(toy)
	c.Rows = []CohortRow{{Name: "x", State: Graded, Report: r}}
	var b strings.Builder
	c.WriteCSV(&b)
	recs, _ := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	if recs[1][7] != "" || recs[1][8] != "2" {
		t.Errorf("category cells %q, %q: want empty (no case run) and 2", recs[1][7], recs[1][8])
	}
}
