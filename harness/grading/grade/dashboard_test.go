package grade

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"gauntlet/games/contract"
)

// dashCohort is a cohort of the two-category game "a" (2 marks), "b" (2 marks), worked by
// hand: ann passes everything; bob and cat fail "one" (WRONG-EXIT) and "three"
// (WRONG-STDOUT) alike; dan builds nothing; eve was interrupted; fay fails only "three".
func dashCohort() *Cohort {
	c := func(id, cat string, v Verdict) CaseReport {
		return CaseReport{ID: id, Pairing: string(Theirs), Counted: true, Category: cat, Title: "Case " + id + ".", Verdict: v}
	}
	rep := func(subject string, marks, a float64, aPassed int, b float64, bPassed int, one, two, three Verdict) *Report {
		return &Report{Game: "toy", Subject: "/subs/" + subject, Marks: &marks, MaxMarks: 4,
			Categories: []CategoryReport{{Name: "a", Cases: 2, Passed: aPassed, Marks: a, MaxMarks: 2}, {Name: "b", Cases: 1, Passed: bPassed, Marks: b, MaxMarks: 2}},
			Cases:      []CaseReport{c("one", "a", one), c("two", "a", two), c("three", "b", three)}}
	}
	return &Cohort{Game: "toy", Categories: []contract.Category{{Name: "a", Marks: 2}, {Name: "b", Marks: 2}},
		Rows: []CohortRow{
			{Name: "ann", State: Graded, Report: rep("ann", 4, 2, 2, 2, 1, Pass, Pass, Pass)},
			{Name: "bob", State: Graded, Report: rep("bob", 1.5, 1.5, 1, 0, 0, WrongExit, Pass, WrongStdout)},
			{Name: "cat", State: Resumed, Report: rep("cat", 1.5, 1.5, 1, 0, 0, WrongExit, Pass, WrongStdout)},
			{Name: "dan", State: Graded, Report: rep("dan", 0, 0, 0, 0, 0, BuildFail, BuildFail, BuildFail)},
			{Name: "eve", State: Interrupted, Problem: "interrupted after 1 of 3 cases"},
			{Name: "fay", State: Graded, Report: rep("fay", 3, 2, 2, 0, 0, Pass, Pass, WrongStdout)},
		}}
}

func TestDashboard(t *testing.T) {
	d := dashCohort().Dashboard()
	if d.Graded != 5 || d.MaxMarks != 4 {
		t.Errorf("graded %d of max %g, want 5 of 4", d.Graded, d.MaxMarks)
	}
	// Ten bins 0.4 wide: dan (0) in the first, bob and cat (1.5) in [1.2, 1.6), fay (3) in
	// [2.8, 3.2), ann's full marks in the last.
	wantCounts := []int{1, 0, 0, 2, 0, 0, 0, 1, 0, 1}
	for i, b := range d.Distribution {
		if b.Count != wantCounts[i] {
			t.Errorf("bin %d [%g, %g): %d, want %d", i, b.From, b.To, b.Count, wantCounts[i])
		}
	}
	if b := d.Distribution; len(b) != 10 || b[3].From != 1.2 || b[3].To != 1.6 || b[9].To != 4 {
		t.Errorf("bins %+v", b)
	}
	wantCats := []CategoryPassRate{
		{Name: "a", Marks: 2, Students: 5, Full: 2, Runs: 10, Passed: 6, Rate: 0.6},
		{Name: "b", Marks: 2, Students: 5, Full: 1, Runs: 5, Passed: 1, Rate: 0.2},
	}
	if !reflect.DeepEqual(d.Categories, wantCats) {
		t.Errorf("categories %+v, want %+v", d.Categories, wantCats)
	}
	// dan's BUILD-FAILs say nothing about the cases.
	wantMost := []FailedCase{
		{Case: "three", Title: "Case three.", Category: "b", Counted: true, Students: []string{"bob", "cat", "fay"}},
		{Case: "one", Title: "Case one.", Category: "a", Counted: true, Students: []string{"bob", "cat"}},
	}
	if !reflect.DeepEqual(d.MostFailed, wantMost) {
		t.Errorf("most failed %+v, want %+v", d.MostFailed, wantMost)
	}
	wantSigs := []FailureSignature{
		{ID: "2a81422ff206", Failures: []string{"WRONG-EXIT one", "WRONG-STDOUT three"}, Students: []string{"bob", "cat"}},
		{Failures: []string{"BUILD-FAIL one", "BUILD-FAIL three", "BUILD-FAIL two"}, Students: []string{"dan"}},
		{Failures: []string{"WRONG-STDOUT three"}, Students: []string{"fay"}},
	}
	if len(d.Signatures) != 3 {
		t.Fatalf("signatures %+v, want 3", d.Signatures)
	}
	for i, s := range d.Signatures {
		w := wantSigs[i]
		if w.ID == "" {
			w.ID = s.ID
		}
		if !reflect.DeepEqual(s, w) || len(s.ID) != 12 {
			t.Errorf("signature %d: %+v, want %+v", i, s, w)
		}
	}
}

// The cohort's JSON holds a line per row and the dashboard, each row naming its signature.
func TestCohortWriteJSON(t *testing.T) {
	c := dashCohort()
	c.Gauntlet, c.Suite = "gauntlet test", "sha256:00"
	c.Rows[0].File = "out/ann.json"
	var b strings.Builder
	if err := c.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var got CohortReport
	if err := json.Unmarshal([]byte(b.String()), &got); err != nil {
		t.Fatal(err)
	}
	if got.Version != ReportVersion || got.Game != "toy" || got.Gauntlet != "gauntlet test" || got.Suite != "sha256:00" || got.MaxMarks != 4 || len(got.Submissions) != 6 {
		t.Fatalf("header %+v", got)
	}
	ann, bob, eve := got.Submissions[0], got.Submissions[1], got.Submissions[4]
	if ann.Report != "out/ann.json" || *ann.Marks != 4 || ann.Signature != "" || ann.Subject != "/subs/ann" {
		t.Errorf("ann %+v", ann)
	}
	if bob.Signature != "2a81422ff206" || *bob.Marks != 1.5 || len(bob.Categories) != 2 {
		t.Errorf("bob %+v", bob)
	}
	if eve.State != Interrupted || eve.Problem == "" || eve.Subject != "" {
		t.Errorf("eve %+v", eve)
	}
	if !reflect.DeepEqual(got.Dashboard, c.Dashboard()) {
		t.Errorf("dashboard %+v, want %+v", got.Dashboard, c.Dashboard())
	}
}

// The cohort's page shows the dashboard after the table: the chart as inline SVG (a bar
// per bin, its count as data), the categories' pass rates, the most failed cases and the
// signatures, each student linked to its report's section.
func TestCohortHTMLDashboard(t *testing.T) {
	var b strings.Builder
	cohort := dashCohort()
	// fay also fails a pairing that is not marked: listed, told apart from the marked.
	fay := cohort.Rows[5].Report
	fay.Cases = append(fay.Cases, CaseReport{ID: "three", Pairing: string(TheirHubTheir), Category: "b", Title: "Case three.", Verdict: WrongExit})
	if err := cohort.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	wants := []string{
		`<table id="students">`,
		`<div id="dashboard">`,
		`<svg id="distribution" xmlns="http://www.w3.org/2000/svg"`,
		`<rect class="bar" x="30" y="100.0" width="48" height="70.0" data-from="0" data-to="0.4" data-count="1">`,
		`<rect class="bar" x="198" y="30.0" width="48" height="140.0" data-from="1.2" data-to="1.6" data-count="2">`,
		`<tr><td>a</td><td class="num">6/10</td><td><span class="rate-track"><span class="rate" style="width: 60%"></span></span>60.0%</td><td class="num">2/5</td></tr>`,
		`<tr><td>b</td><td class="num">1/5</td>`,
		`<tr><td>three</td><td>Case three. <span class="where">(b)</span></td><td class="num">3</td><td><a href="#submission-2">bob</a>, <a href="#submission-3">cat</a>, <a href="#submission-6">fay</a></td></tr>`,
		`<tr class="unmarked"><td>three@their-hub&#43;their-players <span class="where">(not marked)</span></td><td>Case three. <span class="where">(b)</span></td><td class="num">1</td>`,
		`<div class="signature" id="signature-2a81422ff206"><p><strong>2 students</strong>: <a href="#submission-2">bob</a>, <a href="#submission-3">cat</a></p>`,
		`<li>WRONG-EXIT one</li><li>WRONG-STDOUT three</li>`,
		`<h1>The submissions' reports</h1>`,
		`<section class="subject" id="submission-1">`,
	}
	last := -1
	for _, want := range wants {
		i := strings.Index(page, want)
		if i < 0 {
			t.Errorf("the page lacks %q", want)
			continue
		}
		if i < last {
			t.Errorf("%q comes before what precedes it in the list", want)
		}
		last = i
	}
	if strings.Contains(page, "ZgotmplZ") || strings.Contains(page, "<img") || strings.Contains(page, "http://") && strings.Count(page, "http://") != 1 {
		t.Error("the page has an unsafe value, an image or a link out (the SVG namespace aside)")
	}
	if t.Failed() {
		t.Log(page)
	}
}

// A suite's digest names its cases by content: the same whatever their order, another
// when a case's script, id or number changes.
func TestSuiteDigest(t *testing.T) {
	a := Case{ID: "a", Script: []byte("run x\n")}
	b := Case{ID: "b", Script: []byte("run y\n")}
	d := SuiteDigest([]Case{a, b})
	if !strings.HasPrefix(d, "sha256:") || len(d) != len("sha256:")+64 {
		t.Fatalf("digest %q", d)
	}
	if SuiteDigest([]Case{b, a}) != d {
		t.Error("the order of the cases changes the digest")
	}
	edited := b
	edited.Script = []byte("run z\n")
	// "a"+"b" scripts must not be confused with other splits of the same bytes.
	split := []Case{{ID: "a", Script: []byte("run x\nrun y\n")}, {ID: "b"}}
	for _, other := range [][]Case{{a}, {a, edited}, {a, {ID: "c", Script: b.Script}}, split} {
		if SuiteDigest(other) == d {
			t.Errorf("%v has the same digest", other)
		}
	}
}
