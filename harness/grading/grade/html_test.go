package grade

import (
	"strings"
	"testing"

	"gauntlet/games/contract"
)

// The HTML page groups failures by verdict and account, marks the divergent step and the
// expected one, and escapes what the subject wrote (it could be markup).
func TestWriteHTML(t *testing.T) {
	div := "the conversation, step by step, up to the first divergence from the engine's:\n" +
		"       1  hub -> player | <b>\n  >    2  player -> hub | <script>alert(1)</script>\n    want  player -> hub | DO1\n"
	r := &Report{Game: "toy", Subject: "s", Marks: ptr(1), MaxMarks: 4,
		Categories: []CategoryReport{{Name: "a", Program: "prog-a", Cases: 2, Passed: 1, Marks: 1, MaxMarks: 2}, {Name: "b", MaxMarks: 2}},
		Cases: []CaseReport{
			{ID: "one", Pairing: string(Theirs), Counted: true, Verdict: Protocol, Detail: "FAIL at step 2", Divergence: div,
				Title: "The player <moves> first.", Requirement: `"move first"`, Category: "a"},
			{ID: "two", Pairing: string(Theirs), Counted: true, Verdict: Protocol, Detail: "FAIL at step 2", Divergence: div},
			// A pairing that is not marked: told apart, costing no marks.
			{ID: "three", Pairing: string(TheirHubTheir), Verdict: WrongExit, Detail: "want exit 3, got 2", Log: "> run <x>\n"},
			{ID: "four", Pairing: string(Theirs), Verdict: Pass},
		}}
	var b strings.Builder
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		`Total: 1.00 / 4, 1 of 4 case runs passed`,
		`<td>a</td><td>1/2</td><td class="lost">1.00/2</td>`,
		`<td>b</td><td>-</td><td>-/2 (no case run)</td>`,
		`Failures (2 kinds, 1 of them not marked)`,
		"<div class=\"failure unmarked\">\n<p class=\"not-marked\">Not marked: this pairing costs no marks; it tells which program is wrong.</p>",
		// The box names what was required, where it is marked and which program.
		`<p class="requirement">The player &lt;moves&gt; first. <span class="where">(prog-a, a)</span></p>`,
		`<p class="spec">spec: &#34;move first&#34;</p>`,
		`2 cases: one, two`,
		`<tr class="diverged"><td class="n">&#9654; 2</td><td>player -&gt; hub | &lt;script&gt;alert(1)&lt;/script&gt;</td></tr>`,
		`<tr class="want"><td class="n">want</td><td>player -&gt; hub | DO1</td></tr>`,
		`<pre>&gt; run &lt;x&gt;`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script>") {
		t.Error("the subject's text reached the page as markup")
	}
	if t.Failed() {
		t.Log(page)
	}
}

// A cohort's page starts with the table of its submissions, one row each in the order
// given (a name that is markup escaped), linked to the report that follows; a row without
// a report says why and links nowhere; the script that sorts the table is the page's own.
func TestCohortWriteHTML(t *testing.T) {
	r := &Report{Game: "toy", Subject: "/subs/<i>bob</i>", Marks: ptr(1.5), MaxMarks: 4, Build: &BuildReport{OK: true, Missing: []string{"p2"}},
		Categories: []CategoryReport{{Name: "a", Cases: 2, Passed: 1, Marks: 1.5, MaxMarks: 2}, {Name: "b", MaxMarks: 2}},
		Cases:      []CaseReport{{ID: "one", Pairing: string(Theirs), Verdict: WrongExit, Detail: "want exit 3, got 2"}, {ID: "two", Pairing: string(Theirs), Verdict: Pass}},
		Counts:     map[Verdict]int{WrongExit: 1, Pass: 1}}
	c := &Cohort{Game: "toy", Categories: []contract.Category{{Name: "a", Marks: 2}, {Name: "b", Marks: 2}},
		Rows: []CohortRow{{Name: "<i>bob</i>", State: Graded, Report: r}, {Name: "carol", State: Interrupted, Problem: "interrupted after 1 of 2 cases"}}}
	var b strings.Builder
	if err := c.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	wants := []string{
		`<title>gauntlet grade toy: a cohort of 2</title>`,
		`<table id="students">`,
		`<th scope="col">build</th><th scope="col" class="num">total/4</th><th scope="col" class="num">failed runs</th><th scope="col" class="num" title="a: 2 marks">a (2)</th><th scope="col" class="num" title="b: 2 marks">b (2)</th></tr>`,
		`<tr data-order="0"><td><a href="#submission-1">&lt;i&gt;bob&lt;/i&gt;</a></td><td>graded</td><td data-sort="1 missing" class="lost">ok, missing p2</td><td data-sort="1.50" class="num marks lost">1.50</td><td data-sort="1" class="num" title="PASS 1, WRONG-EXIT 1">1</td><td data-sort="1.50" class="num lost" title="a: 1 of 2 cases passed">1.50</td><td data-sort="-1" class="num none" title="no case run">-</td></tr>`,
		`<tr data-order="1"><td>carol</td><td title="interrupted after 1 of 2 cases">interrupted</td>`,
		`addEventListener("click"`,
		`<section class="subject" id="submission-1">`,
		`<h1>&lt;i&gt;bob&lt;/i&gt;: gauntlet grade toy: /subs/&lt;i&gt;bob&lt;/i&gt;</h1>`,
		`<a href="#students">back to the table</a>`,
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
	if strings.Count(page, "<section") != 1 || strings.Contains(page, "<i>") {
		t.Error("want one report section, and no markup from the names")
	}
	if t.Failed() {
		t.Log(page)
	}
	// One report's page has no table of submissions and no script.
	b.Reset()
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "<script") || strings.Contains(b.String(), `id="students"`) {
		t.Error("one report's page has a script or a table of submissions")
	}
}

// ptr is a report's mark, for a report made by hand.
func ptr(m float64) *float64 { return &m }
