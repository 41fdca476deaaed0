package grade

import (
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

type htmlPage struct{ Subjects []htmlReport }

type htmlReport struct {
	*Report
	Groups []htmlGroup
	Passed int
}

// htmlGroup is one kind of failure: every case with the same verdict and account.
type htmlGroup struct {
	Verdict Verdict
	Detail  string
	Cases   []string
	Header  string     // the divergence's own first line
	Steps   []htmlStep // the first case's divergence, line by line
	Log     string     // the first case's log, when there is no divergence to show
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
	for _, cases := range groupCases(r.Cases, failed) {
		first := cases[0]
		g := htmlGroup{Verdict: first.Verdict, Detail: first.Detail}
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
<title>gauntlet grade{{range .Subjects}} {{.Game}}: {{.Subject}}{{end}}</title>
<style>
body { font: 15px/1.4 system-ui, sans-serif; margin: 2em auto; max-width: 70em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.2em; margin-top: 2em; }
table { border-collapse: collapse; }
td, th { padding: .2em .8em; text-align: left; border-bottom: 1px solid #ddd; }
.marks { font-weight: bold; }
.full { color: #060; } .lost { color: #a00; } .none { color: #888; }
.failure { border: 1px solid #ccc; border-radius: 4px; padding: .5em 1em; margin: 1em 0; }
.verdict { font-weight: bold; color: #a00; }
.cases { color: #555; font-size: .9em; }
.conversation td { font-family: ui-monospace, monospace; white-space: pre-wrap; border: none; padding: 0 .6em; }
.conversation .n { color: #888; text-align: right; }
.diverged { background: #fdd; } .want { background: #dfd; }
pre { background: #f6f6f6; padding: .5em; overflow-x: auto; font-size: .85em; }
</style>
</head>
<body>
{{range .Subjects}}
<section class="subject">
<h1>gauntlet grade {{.Game}}: {{.Subject}}</h1>
<p class="marks" id="total">Total: {{printf "%.2f" .Marks}} / {{printf "%g" .MaxMarks}}, {{.Passed}} of {{len .Cases}} case runs passed</p>
{{with .Build}}{{if not .OK}}<p class="verdict">Build failed: {{.Problem}}</p>{{end}}{{end}}
<table class="categories">
<tr><th>category</th><th>passed</th><th>marks</th></tr>
{{range .Categories}}{{if .Cases}}<tr><td>{{.Name}}</td><td>{{.Passed}}/{{.Cases}}</td><td class="{{if eq .Marks .MaxMarks}}full{{else}}lost{{end}}">{{printf "%.2f" .Marks}}/{{printf "%g" .MaxMarks}}</td></tr>{{else}}<tr class="none"><td>{{.Name}}</td><td>-</td><td>-/{{printf "%g" .MaxMarks}} (no case run)</td></tr>{{end}}
{{end}}</table>
{{range .Notes}}<p class="note">{{.}}</p>{{end}}
{{if .Groups}}<h2>Failures ({{len .Groups}} kinds)</h2>{{else}}<h2>No failures</h2>{{end}}
{{range .Groups}}<div class="failure">
<p><span class="verdict">{{.Verdict}}</span> {{.Detail}}</p>
<p class="cases">{{len .Cases}} case{{if gt (len .Cases) 1}}s{{end}}: {{range $i, $c := .Cases}}{{if $i}}, {{end}}{{$c}}{{end}}</p>
{{if .Steps}}<p>{{.Header}}</p>
<table class="conversation">
{{range .Steps}}<tr class="{{if .Mark}}diverged{{else if .Want}}want{{end}}"><td class="n">{{if .Mark}}&#9654; {{end}}{{.N}}</td><td>{{.Text}}</td></tr>
{{end}}</table>{{else if .Log}}<details><summary>log</summary><pre>{{.Log}}</pre></details>{{end}}
</div>
{{end}}
</section>
{{end}}
</body>
</html>
`))
})
