package grade

import (
	"fmt"
	"html/template"
	"io"
	"strings"
	"sync"
)

// WriteHTML writes the reports as one self-contained HTML page (no script, no network):
// for each subject its marks by category, its failures grouped (the same verdict and the
// same account are one entry with the count and the cases), and for the first case of each
// group what the subject did up to its first divergence, the divergent line marked and the
// expected one beside it.
func WriteHTML(w io.Writer, reports ...*Report) error {
	var page htmlPage
	for _, r := range reports {
		page.Subjects = append(page.Subjects, htmlSubject(r))
	}
	return htmlTemplate().Execute(w, page)
}

// WriteHTML writes the cohort as one self-contained HTML page (no network): first a table
// of the submissions, one row each (its name, linked to its report below, its state, build,
// marks per category, total and failed case runs), which a click on a column's header sorts
// by that column (again: the other way), with a few lines of script in the page; then each
// submission's report as WriteHTML writes it.
func (c *Cohort) WriteHTML(w io.Writer) error {
	page := htmlPage{Cohort: &htmlCohort{Game: c.Game}}
	for _, cat := range c.Categories {
		page.Cohort.Categories = append(page.Cohort.Categories, htmlCategory{Name: cat.Name, Marks: cat.Marks})
		page.Cohort.MaxMarks += cat.Marks
	}
	for i, row := range c.Rows {
		hr := htmlCohortRow{Order: i, Name: row.Name, State: string(row.State), Problem: row.Problem}
		r := row.Report
		if r == nil {
			hr.Build = htmlCell{Text: "-", Sort: ""}
			for range c.Categories {
				hr.Marks = append(hr.Marks, htmlCell{Text: "-", Sort: "-1", Class: "none"})
			}
			hr.Total = htmlCell{Text: "-", Sort: "-1", Class: "none"}
			hr.Failed = htmlCell{Text: "-", Sort: "-1", Class: "none"}
			page.Cohort.Rows = append(page.Cohort.Rows, hr)
			continue
		}
		hr.Anchor = fmt.Sprintf("submission-%d", i+1)
		hr.Build = htmlCell{Text: "none (built-in)", Sort: "built-in"}
		if b := r.Build; b != nil {
			switch {
			case !b.OK:
				hr.Build = htmlCell{Text: string(BuildFail), Sort: "0 fail", Class: "lost", Title: b.Problem}
			case len(b.Missing) > 0:
				hr.Build = htmlCell{Text: "ok, missing " + strings.Join(b.Missing, " "), Sort: "1 missing", Class: "lost"}
			default:
				hr.Build = htmlCell{Text: "ok", Sort: "2 ok", Class: "full"}
			}
		}
		for _, cat := range c.Categories {
			cm, ok := r.categoryMarks(cat.Name)
			if !ok || cm.Cases == 0 {
				hr.Marks = append(hr.Marks, htmlCell{Text: "-", Sort: "-1", Class: "none", Title: "no case run"})
				continue
			}
			if cm.Unjudged > 0 {
				hr.Marks = append(hr.Marks, htmlCell{Text: "?", Sort: "-1", Class: "none",
					Title: fmt.Sprintf("%s: %d of %d cases not judged (HARNESS-ERROR): no mark", cat.Name, cm.Unjudged, cm.Cases)})
				continue
			}
			class := "lost"
			if cm.Marks == cm.MaxMarks {
				class = "full"
			}
			hr.Marks = append(hr.Marks, htmlCell{Text: fmt.Sprintf("%.2f", cm.Marks), Sort: fmt.Sprintf("%.2f", cm.Marks), Class: class,
				Title: fmt.Sprintf("%s: %d of %d cases passed", cat.Name, cm.Passed, cm.Cases)})
		}
		if m, ok := r.Total(); ok {
			class := "lost"
			if m == r.MaxMarks {
				class = "full"
			}
			hr.Total = htmlCell{Text: fmt.Sprintf("%.2f", m), Sort: fmt.Sprintf("%.2f", m), Class: class}
		} else {
			hr.Total = htmlCell{Text: "incomplete", Sort: "-1", Class: "none", Title: "a marked case was not judged (HARNESS-ERROR): no mark"}
		}
		failed := 0
		for _, cr := range r.Cases {
			if !cr.Verdict.Passed() {
				failed++
			}
		}
		hr.Failed = htmlCell{Text: fmt.Sprint(failed), Sort: fmt.Sprint(failed), Title: r.CountsLine()}
		page.Cohort.Rows = append(page.Cohort.Rows, hr)
		s := htmlSubject(r)
		s.Anchor, s.Name = hr.Anchor, row.Name
		page.Subjects = append(page.Subjects, s)
	}
	page.Cohort.Dashboard = c.htmlDashboard(page.Cohort.Rows)
	return htmlTemplate().Execute(w, page)
}

// htmlDashboard is the cohort's Dashboard as the page shows it: the mark distribution as
// an inline SVG bar chart, the categories' pass rates, the cases most students failed and
// the failure signatures, each student a link to its report.
func (c *Cohort) htmlDashboard(rows []htmlCohortRow) *htmlDash {
	d := c.Dashboard()
	if d.Graded == 0 {
		return nil
	}
	anchors := map[string]string{}
	for _, r := range rows {
		anchors[r.Name] = r.Anchor
	}
	links := func(names []string) []htmlLink {
		var l []htmlLink
		for _, n := range names {
			l = append(l, htmlLink{Name: n, Anchor: anchors[n]})
		}
		return l
	}
	h := &htmlDash{Dashboard: d}
	most := 0
	for _, b := range d.Distribution {
		most = max(most, b.Count)
	}
	const left, bottom, step, width, tall = 30, 170, 56, 48, 140
	for i, b := range d.Distribution {
		height := 0.0
		if most > 0 {
			height = float64(b.Count) / float64(most) * tall
		}
		x := left + i*step
		h.Bars = append(h.Bars, htmlBar{MarkBin: b, X: x, Y: fmt.Sprintf("%.1f", bottom-height), Height: fmt.Sprintf("%.1f", height),
			Width: width, Mid: x + width/2, Label: fmt.Sprintf("%g-%g", b.From, b.To), CountY: fmt.Sprintf("%.1f", bottom-height-4)})
	}
	h.ChartWidth = left + len(d.Distribution)*step
	for _, p := range d.Categories {
		h.Categories = append(h.Categories, htmlRate{CategoryPassRate: p, Percent: percent(p.Rate), Bar: fmt.Sprintf("%.0f", p.Rate*100)})
	}
	for _, f := range d.MostFailed {
		h.MostFailed = append(h.MostFailed, htmlFailedCase{FailedCase: f, Links: links(f.Students)})
	}
	for _, s := range d.Signatures {
		g := htmlSignature{FailureSignature: s, Links: links(s.Students)}
		g.Shown = s.Failures
		if len(g.Shown) > signatureShown {
			g.Shown, g.More = g.Shown[:signatureShown], len(s.Failures)-signatureShown
		}
		h.Signatures = append(h.Signatures, g)
	}
	return h
}

// signatureShown is how many failed case runs of a signature the page lists before "and
// N more".
const signatureShown = 6

func percent(rate float64) string { return fmt.Sprintf("%.1f%%", rate*100) }

type htmlDash struct {
	Dashboard
	Bars       []htmlBar
	ChartWidth int
	Categories []htmlRate
	MostFailed []htmlFailedCase
	Signatures []htmlSignature
}

// htmlBar is a bar of the distribution chart, in the SVG's own units.
type htmlBar struct {
	MarkBin
	X, Width, Mid     int
	Y, Height, CountY string
	Label             string
}

type htmlRate struct {
	CategoryPassRate
	Percent, Bar string
}

type htmlLink struct{ Name, Anchor string }

type htmlFailedCase struct {
	FailedCase
	Links []htmlLink
}

type htmlSignature struct {
	FailureSignature
	Links []htmlLink
	Shown []string
	More  int
}

type htmlPage struct {
	Cohort   *htmlCohort // the cohort's table, before the reports (nil for one report)
	Subjects []htmlReport
}

// htmlCohort is the table of a cohort page.
type htmlCohort struct {
	Game       string
	Categories []htmlCategory
	MaxMarks   float64
	Rows       []htmlCohortRow
	Dashboard  *htmlDash // nil when no row has a report
}

type htmlCategory struct {
	Name  string
	Marks float64
}

// htmlCohortRow is one submission's row; Anchor is the id of its report's section (none
// when it has no report).
type htmlCohortRow struct {
	Order                        int
	Name, Anchor, State, Problem string
	Build, Total, Failed         htmlCell
	Marks                        []htmlCell
}

// htmlCell is a table cell: its text, the key it sorts by (numbers as numbers), a class
// and a tooltip.
type htmlCell struct{ Text, Sort, Class, Title string }

type htmlReport struct {
	*Report
	Groups   []htmlGroup
	Passed   int
	Unmarked int    // groups of pairings that are not marked
	Anchor   string // the section's id, in a cohort page
	Name     string // the submission's short name, in a cohort page
}

// htmlGroup is one kind of failure: every case with the same verdict and account.
type htmlGroup struct {
	Verdict Verdict
	Detail  string
	// The first case's requirement sentence (its title), the spec's words it quotes, its
	// marking category and the program that category marks.
	Title, Requirement, Category, Program string
	Cases                                 []string
	Header                                string     // the divergence's own first line
	Steps                                 []htmlStep // the first case's divergence, line by line
	Log                                   string     // the first case's log, when there is no divergence to show
	Conversation                          string     // the first case's mock players' side (MockConversation)
	// Unmarked: every case run of the group failed in a pairing that is not marked (it
	// costs no marks; shown as such, never as a lost mark).
	Unmarked bool
}

// htmlStep is a line of a divergence: a step that matched, the one that diverged (Mark),
// or what was expected there (Want).
type htmlStep struct {
	N, Text    string
	Mark, Want bool
}

func htmlSubject(r *Report) htmlReport {
	h := htmlReport{Report: r}
	for _, c := range r.Cases {
		if c.Verdict.Passed() {
			h.Passed++
		}
	}
	progs := r.categoryPrograms()
	for _, cases := range groupCases(r.Cases, failed) {
		first := cases[0]
		g := htmlGroup{Verdict: first.Verdict, Detail: first.Detail, Title: first.Title,
			Requirement: first.Requirement, Category: first.Category, Program: progs[first.Category],
			Conversation: first.Conversation, Unmarked: unmarkedOnly(cases)}
		if g.Unmarked {
			h.Unmarked++
		}
		g.Header, g.Steps = divergenceSteps(first.Divergence)
		if len(g.Steps) == 0 {
			g.Log = first.Log
		}
		for _, c := range cases {
			g.Cases = append(g.Cases, c.Name())
		}
		h.Groups = append(h.Groups, g)
	}
	return h
}

var (
	stepLine = lazyRegexp(`^\s*(>)?\s*(\d+)  (.*)$`)
	wantLine = lazyRegexp(`^\s*want  (.*)$`)
)

// divergenceSteps splits a Divergence text into its header and its lines.
func divergenceSteps(div string) (string, []htmlStep) {
	lines := strings.Split(strings.TrimRight(div, "\n"), "\n")
	if len(lines) < 2 {
		return "", nil
	}
	var steps []htmlStep
	for _, l := range lines[1:] {
		if m := wantLine().FindStringSubmatch(l); m != nil {
			steps = append(steps, htmlStep{N: "want", Text: m[1], Want: true})
		} else if m := stepLine().FindStringSubmatch(l); m != nil {
			steps = append(steps, htmlStep{N: m[2], Text: m[3], Mark: m[1] == ">"})
		} else if strings.TrimSpace(l) != "" {
			steps = append(steps, htmlStep{Text: strings.TrimSpace(l)})
		}
	}
	return lines[0], steps
}

// htmlTemplate is parsed on first use: every program gauntlet runs as links this package,
// and a reference player should not pay for a template it never executes.
var htmlTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"passed": func(v Verdict) bool { return v.Passed() },
	}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>gauntlet grade{{with .Cohort}} {{.Game}}: a cohort of {{len .Rows}}{{else}}{{range .Subjects}} {{.Game}}: {{.Subject}}{{end}}{{end}}</title>
<style>
body { font: 15px/1.4 system-ui, sans-serif; margin: 2em auto; max-width: 70em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.2em; margin-top: 2em; }
table { border-collapse: collapse; }
td, th { padding: .2em .8em; text-align: left; border-bottom: 1px solid #ddd; }
.marks { font-weight: bold; }
.full { color: #060; } .lost { color: #a00; } .none { color: #888; }
.failure { border: 1px solid #ccc; border-radius: 4px; padding: .5em 1em; margin: 1em 0; }
.failure.unmarked { border-style: dashed; color: #555; }
.not-marked { font-style: italic; }
.verdict { font-weight: bold; color: #a00; }
.requirement { font-weight: bold; }
.where, .spec { color: #555; font-weight: normal; }
.cases { color: #555; font-size: .9em; }
.conversation td { font-family: ui-monospace, monospace; white-space: pre-wrap; border: none; padding: 0 .6em; }
.conversation .n { color: #888; text-align: right; }
.diverged { background: #fdd; } .want { background: #dfd; }
pre { background: #f6f6f6; padding: .5em; overflow-x: auto; font-size: .85em; }
#students { font-size: .9em; }
#students td, #students th { padding: .2em .5em; }
#students th { cursor: pointer; user-select: none; background: #f3f3f3; white-space: nowrap; }
.wide { overflow-x: auto; }
#students th:hover { background: #e6e6e6; }
#students th[aria-sort=ascending]::after { content: " \25B2"; }
#students th[aria-sort=descending]::after { content: " \25BC"; }
#students td.num { text-align: right; font-variant-numeric: tabular-nums; }
#students tbody tr:nth-child(even) { background: #fafafa; }
.legend { color: #555; font-size: .9em; }
#dashboard h2 { margin-top: 1.2em; }
#distribution .bar { fill: #4a7ab5; } #distribution text { font-size: 11px; fill: #333; }
#distribution .axis { stroke: #888; }
.rate { display: inline-block; height: .7em; background: #4a7ab5; vertical-align: middle; }
.rate-track { display: inline-block; width: 8em; background: #e6e6e6; margin-right: .5em; }
#dashboard td.num { text-align: right; font-variant-numeric: tabular-nums; }
.signature { border-left: 3px solid #ccc; padding: .2em .8em; margin: .6em 0; }
.signature ul { margin: .2em 0; font-family: ui-monospace, monospace; font-size: .85em; }
</style>
</head>
<body>
{{with .Cohort}}
<h1>gauntlet grade {{.Game}}: a cohort of {{len .Rows}} submissions</h1>
<p class="legend">Click a column's header to sort by it (again: the other way); a submission's name leads to its report below.</p>
<div class="wide"><table id="students">
<thead><tr><th scope="col">submission</th><th scope="col">state</th><th scope="col">build</th><th scope="col" class="num">total/{{printf "%g" .MaxMarks}}</th><th scope="col" class="num">failed runs</th>{{range .Categories}}<th scope="col" class="num" title="{{.Name}}: {{printf "%g" .Marks}} marks">{{.Name}} ({{printf "%g" .Marks}})</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr data-order="{{.Order}}"><td>{{if .Anchor}}<a href="#{{.Anchor}}">{{.Name}}</a>{{else}}{{.Name}}{{end}}</td><td{{if .Problem}} title="{{.Problem}}"{{end}}>{{.State}}</td><td data-sort="{{.Build.Sort}}"{{with .Build.Class}} class="{{.}}"{{end}}{{with .Build.Title}} title="{{.}}"{{end}}>{{.Build.Text}}</td><td data-sort="{{.Total.Sort}}" class="num marks {{.Total.Class}}">{{.Total.Text}}</td><td data-sort="{{.Failed.Sort}}" class="num"{{with .Failed.Title}} title="{{.}}"{{end}}>{{.Failed.Text}}</td>{{range .Marks}}<td data-sort="{{.Sort}}" class="num {{.Class}}"{{with .Title}} title="{{.}}"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</tbody>
</table></div>
<script>
(function () {
  var table = document.getElementById("students");
  var heads = table.tHead.rows[0].cells;
  function key(cell) {
    var k = cell.getAttribute("data-sort");
    return k === null ? cell.textContent.trim() : k;
  }
  function sortBy(col) {
    var th = heads[col];
    var up = th.getAttribute("aria-sort") !== "ascending";
    for (var i = 0; i < heads.length; i++) heads[i].removeAttribute("aria-sort");
    th.setAttribute("aria-sort", up ? "ascending" : "descending");
    var numeric = th.classList.contains("num");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a.cells[col]), y = key(b.cells[col]);
      var d = numeric ? parseFloat(x) - parseFloat(y) : x.localeCompare(y);
      if (d !== 0) return up ? d : -d;
      return a.getAttribute("data-order") - b.getAttribute("data-order");
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  for (var i = 0; i < heads.length; i++) {
    heads[i].addEventListener("click", sortBy.bind(null, i));
  }
})();
</script>
{{with .Dashboard}}<div id="dashboard">
<h1>The cohort at a glance</h1>
<h2>Marks</h2>
<svg id="distribution" xmlns="http://www.w3.org/2000/svg" width="{{.ChartWidth}}" height="200" viewBox="0 0 {{.ChartWidth}} 200" role="img" aria-label="how many of the {{.Graded}} graded submissions have each range of total marks">
<line class="axis" x1="24" y1="170.5" x2="{{.ChartWidth}}" y2="170.5"/>
{{range .Bars}}<g><rect class="bar" x="{{.X}}" y="{{.Y}}" width="{{.Width}}" height="{{.Height}}" data-from="{{printf "%g" .From}}" data-to="{{printf "%g" .To}}" data-count="{{.Count}}"><title>{{.Count}} with {{.Label}} marks</title></rect><text x="{{.Mid}}" y="{{.CountY}}" text-anchor="middle">{{.Count}}</text><text x="{{.Mid}}" y="186" text-anchor="middle">{{.Label}}</text></g>
{{end}}</svg>
<p class="legend">Submissions by total marks out of {{printf "%g" .MaxMarks}} ({{.Graded}} graded; each bar holds its lower bound, the last one the full marks too).</p>
<h2>Categories</h2>
<table id="category-rates">
<thead><tr><th>category</th><th class="num">case runs passed</th><th>pass rate</th><th class="num">students with full marks</th></tr></thead>
<tbody>
{{range .Categories}}<tr><td>{{.Name}}</td><td class="num">{{.Passed}}/{{.Runs}}</td><td>{{if .Runs}}<span class="rate-track"><span class="rate" style="width: {{.Bar}}%"></span></span>{{.Percent}}{{else}}no case run{{end}}</td><td class="num">{{.Full}}/{{.Students}}</td></tr>
{{end}}</tbody>
</table>
<h2>Cases failed by the most students</h2>
{{if .MostFailed}}<p class="legend">A case most students fail is often a spec ambiguity or a bug of the suite rather than many students' bug. Build failures and harness errors are not counted here. A pairing marked "not marked" costs no marks: it tells which program is wrong.</p>
<table id="most-failed">
<thead><tr><th>case</th><th>requirement</th><th class="num">students</th><th>who</th></tr></thead>
<tbody>
{{range .MostFailed}}<tr{{if not .Counted}} class="unmarked"{{end}}><td>{{.Case}}{{if not .Counted}} <span class="where">(not marked)</span>{{end}}</td><td>{{.Title}} <span class="where">({{.Category}})</span></td><td class="num">{{len .Students}}</td><td>{{range $i, $l := .Links}}{{if $i}}, {{end}}{{if $l.Anchor}}<a href="#{{$l.Anchor}}">{{$l.Name}}</a>{{else}}{{$l.Name}}{{end}}{{end}}</td></tr>
{{end}}</tbody>
</table>{{else}}<p>No case failed (build failures and harness errors aside).</p>{{end}}
<h2>Students who fail the same way</h2>
{{if .Signatures}}<p class="legend">Students whose failed case runs are exactly the same, the largest groups first.</p>
<div id="signatures">
{{range .Signatures}}<div class="signature" id="signature-{{.ID}}"><p><strong>{{len .Students}} student{{if gt (len .Students) 1}}s{{end}}</strong>: {{range $i, $l := .Links}}{{if $i}}, {{end}}{{if $l.Anchor}}<a href="#{{$l.Anchor}}">{{$l.Name}}</a>{{else}}{{$l.Name}}{{end}}{{end}}</p>
<ul>{{range .Shown}}<li>{{.}}</li>{{end}}{{if .More}}<li>and {{.More}} more</li>{{end}}</ul></div>
{{end}}</div>{{else}}<p>No student failed a case.</p>{{end}}
</div>
{{end}}
<h1>The submissions' reports</h1>
{{end}}
{{range .Subjects}}
<section class="subject"{{with .Anchor}} id="{{.}}"{{end}}>
<h1>{{with .Name}}{{.}}: {{end}}gauntlet grade {{.Game}}: {{.Subject}}</h1>{{if .Anchor}}
<p class="legend"><a href="#students">back to the table</a></p>{{end}}
<p class="marks" id="total">Total: {{.TotalText}} / {{printf "%g" .MaxMarks}}, {{.Passed}} of {{len .Cases}} case runs passed</p>{{if .Incomplete}}
<p class="verdict">INCOMPLETE: a marked case was not judged (HARNESS-ERROR: the grader's own failure, which persisted when the case ran again alone): this is not a grade; grade the submission again.</p>{{end}}
{{with .Build}}{{if not .OK}}<p class="verdict">Build failed: {{.Problem}}</p>{{end}}{{end}}
<table class="categories">
<tr><th>category</th><th>passed</th><th>marks</th></tr>
{{range .Categories}}{{if .Unjudged}}<tr class="none"><td>{{.Name}}</td><td>{{.Passed}}/{{.Cases}}</td><td>?/{{printf "%g" .MaxMarks}} ({{.Unjudged}} not judged: HARNESS-ERROR)</td></tr>{{else if .Cases}}<tr><td>{{.Name}}</td><td>{{.Passed}}/{{.Cases}}</td><td class="{{if eq .Marks .MaxMarks}}full{{else}}lost{{end}}">{{printf "%.2f" .Marks}}/{{printf "%g" .MaxMarks}}</td></tr>{{else}}<tr class="none"><td>{{.Name}}</td><td>-</td><td>-/{{printf "%g" .MaxMarks}} (no case run)</td></tr>{{end}}
{{end}}</table>
{{range .Notes}}<p class="note">{{.}}</p>{{end}}
{{if .Groups}}<h2>Failures ({{len .Groups}} kinds{{with .Unmarked}}, {{.}} of them not marked{{end}})</h2>{{else}}<h2>No failures</h2>{{end}}
{{range .Groups}}<div class="failure{{if .Unmarked}} unmarked{{end}}">
{{if .Unmarked}}<p class="not-marked">Not marked: this pairing costs no marks; it tells which program is wrong.</p>{{end}}
<p class="requirement">{{.Title}} <span class="where">({{with .Program}}{{.}}, {{end}}{{.Category}})</span></p>
{{with .Requirement}}<p class="spec">spec: {{.}}</p>{{end}}
<p><span class="verdict">{{.Verdict}}</span> {{.Detail}}</p>
<p class="cases">{{len .Cases}} case{{if gt (len .Cases) 1}}s{{end}}: {{range $i, $c := .Cases}}{{if $i}}, {{end}}{{$c}}{{end}}</p>
{{if .Steps}}<p>{{.Header}}</p>
<table class="conversation">
{{range .Steps}}<tr class="{{if .Mark}}diverged{{else if .Want}}want{{end}}"><td class="n">{{if .Mark}}&#9654; {{end}}{{.N}}</td><td>{{.Text}}</td></tr>
{{end}}</table>{{else if .Log}}<details><summary>log</summary><pre>{{.Log}}</pre></details>{{end}}
{{with .Conversation}}<pre class="mocks">{{.}}</pre>{{end}}
</div>
{{end}}
</section>
{{end}}
</body>
</html>
`))
})
