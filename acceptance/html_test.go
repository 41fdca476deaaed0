package acceptance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"gauntlet/harness/grading/grade"
	"gauntlet/internal/buildtest"
)

// browser finds a headless-capable Chromium, or skips the test saying how to get one
// (fails instead under buildtest.RequireToolsVar=1, as in CI).
func browser(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless_shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	buildtest.NeedTool(t, errors.New("no Chromium to load the HTML report in"), "install the system's chromium package, as .ci/run does: apt-get install chromium")
	return ""
}

// The HTML report of the buggy fixture loads in a real headless browser without a console
// error; the page it renders shows the total, the marks by category, the failures grouped,
// and a failed conversation with its divergent step marked and the expected one beside it.
func TestHTMLReportInABrowser(t *testing.T) {
	buildtest.Long(t) // a grade and a headless browser
	chromium := browser(t)
	_, here, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(here), "..", "fixtures", "submissions", "buggy2310")
	page := filepath.Join(t.TempDir(), "report.html")
	cases := `^(player_A_args_id_equal_count|player_A_first_move_mo_next|player_A_eof_after_move|player_A_eof_yt_without_newline|game_spec_example)$`
	status, rep, text := gradeRun(t, "dealer2310", "-run", cases, "-html", page, dir)
	if status != 1 {
		t.Fatalf("exit %d, want 1\n%s", status, text)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
		"--enable-logging=stderr", "--v=0", "--user-data-dir="+t.TempDir(), "--dump-dom", "file://"+page)
	var dom, log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &dom, &log
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", chromium, err, log.String())
	}
	for _, l := range strings.Split(log.String(), "\n") {
		if strings.Contains(l, "CONSOLE") || strings.Contains(l, "Uncaught") {
			t.Errorf("the browser's console: %s", l)
		}
	}
	got := dom.String()
	// The marks are the JSON report's, written as the page writes them.
	wants := []string{fmt.Sprintf(`<p class="marks" id="total">Total: %.2f / %g`, marks(t, rep), rep.MaxMarks)}
	for _, c := range rep.Categories {
		if c.Cases > 0 {
			wants = append(wants, fmt.Sprintf(`<td>%s</td><td>%d/%d</td>`, c.Name, c.Passed, c.Cases))
		}
	}
	for _, want := range append(wants,
		`<span class="verdict">CRASH</span>`,
		`2 cases: player_A_eof_after_move, player_A_eof_yt_without_newline`, // grouped
		`<tr class="diverged"><td class="n">▶ 7</td><td>player: killed by SIGSEGV</td></tr>`,
		`<tr class="want"><td class="n">want</td><td>player: exit 6</td></tr>`,
		`<span class="verdict">BUILD-FAIL</span> program not built: 2310dealer`,
	) {
		if !strings.Contains(got, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	if t.Failed() {
		os.WriteFile(filepath.Join(os.TempDir(), "gauntlet-html-report-failed.html"), []byte(got), 0o644)
		t.Logf("page as rendered:\n%s", got)
	}
}

// A cohort's HTML page opens with the table of its submissions, before their reports: a
// row each, in the order given, with its marks by category (those of its JSON report), its
// build and a link to its report. In a real browser, a click on a column's header sorts the
// rows by it, a second click the other way. The page as shown is checked on a screenshot
// (kept in $GAUNTLET_SCREENSHOTS when that is set, for a person to look at).
func TestCohortHTMLInABrowser(t *testing.T) {
	buildtest.Long(t) // a cohort grade and a headless browser
	chromium := browser(t)
	gauntlet := buildtest.Path(t, "gauntlet/cmd/gauntlet")
	_, here, _, _ := runtime.Caller(0)
	fixture := filepath.Join(filepath.Dir(here), "..", "fixtures", "submissions", "buggy2310")
	root := t.TempDir()
	subs := map[string]string{
		"amy": "all:\n\t@echo 'hub.c:3:1: error: expected ; before }'\n\t@false\n", // make fails
		"kim": "all:\n\ttrue\n",                                                    // builds nothing
	}
	for name, mk := range subs {
		os.MkdirAll(filepath.Join(root, name), 0o755)
		if err := os.WriteFile(filepath.Join(root, name, "Makefile"), []byte(mk), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	zed := filepath.Join(root, "zed") // the buggy fixture: some marks
	os.MkdirAll(zed, 0o755)
	entries, _ := os.ReadDir(fixture)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(fixture, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(zed, e.Name()), data, 0o644)
	}
	page := filepath.Join(t.TempDir(), "cohort.html")
	out := filepath.Join(t.TempDir(), "reports")
	cmd := exec.Command(gauntlet, "grade", "dealer2310", "-run", `^player_A_(args|first)`, "-html", page, "-out", out,
		zed, filepath.Join(root, "amy"), filepath.Join(root, "kim"))
	text, _ := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, text)
	}
	data, err := os.ReadFile(filepath.Join(out, "zed.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep grade.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if marks(t, &rep) <= 0 {
		t.Fatalf("the buggy fixture earned no marks: the sort below would not tell its rows apart\n%s", text)
	}

	d := startDevtools(t, chromium, "file://"+page, 1280, 900)
	type row struct{ Name, Href, Build, Total, Failed string }
	rows := func() []row {
		var got []row
		d.eval(`Array.prototype.map.call(document.querySelectorAll("#students tbody tr"), function (tr) {
			var c = tr.cells, a = c[0].querySelector("a");
			return {Name: c[0].textContent, Href: a ? a.getAttribute("href") : "", Build: c[2].textContent,
				Total: c[3].textContent, Failed: c[4].textContent};
		})`, &got)
		return got
	}
	names := func() string {
		var n []string
		for _, r := range rows() {
			n = append(n, r.Name)
		}
		return strings.Join(n, " ")
	}

	// The table comes first, then the reports; each name leads to its submission's report.
	var first bool
	d.eval(`!!(document.getElementById("students").compareDocumentPosition(document.querySelector("section.subject")) & Node.DOCUMENT_POSITION_FOLLOWING)`, &first)
	if !first {
		t.Error("the table of submissions does not come before the reports")
	}
	got := rows()
	if len(got) != 3 || names() != "zed amy kim" {
		t.Fatalf("rows %+v, want zed, amy, kim in the order given", got)
	}
	if got[0].Total != fmt.Sprintf("%.2f", marks(t, &rep)) || got[0].Build != "ok, missing 2310dealer 2310B" || got[1].Build != "BUILD-FAIL" {
		t.Errorf("zed's row %+v, amy's %+v: want zed's total %.2f, its build ok without two programs, amy's failed", got[0], got[1], marks(t, &rep))
	}
	for _, r := range got {
		var heading string
		d.eval(fmt.Sprintf(`(document.querySelector(%q + " h1") || {}).textContent || ""`, r.Href), &heading)
		if !strings.HasPrefix(heading, r.Name+": gauntlet grade dealer2310: ") {
			t.Errorf("%s's link %q leads to %q, not its report", r.Name, r.Href, heading)
		}
	}
	var cats []string
	d.eval(`Array.prototype.map.call(document.querySelector("#students tbody tr").querySelectorAll("td.num"), function (td) { return td.textContent; })`, &cats)
	for i, c := range rep.Categories {
		want := "-"
		if c.Cases > 0 {
			want = fmt.Sprintf("%.2f", c.Marks)
		}
		// td.num: the total, the failed runs, then a column a category.
		if i+2 >= len(cats) || cats[i+2] != want {
			t.Errorf("zed's column %d (%s) is %q, want %q", i+1, c.Name, cats[min(i+2, len(cats)-1)], want)
		}
	}

	// What a person sees: the table at the top of the page, its header where the page
	// says it is.
	shot := d.screenshot()
	if dir := os.Getenv("GAUNTLET_SCREENSHOTS"); dir != "" {
		os.WriteFile(filepath.Join(dir, "cohort.png"), shot, 0o644)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 900 {
		t.Errorf("screenshot %v, want 1280x900", b)
	}
	var head struct{ X, Y, Bottom float64 }
	d.eval(`(function () { var r = document.querySelector("#students th").getBoundingClientRect(); var t = document.getElementById("students").getBoundingClientRect(); return {X: r.left + 3, Y: r.top + 3, Bottom: t.bottom}; })()`, &head)
	if head.Bottom > 900 {
		t.Errorf("the table ends at %v px, below the first screen (900 px)", head.Bottom)
	}
	// The totals are on the first screen whatever the number of categories (before
	// 2026-12-07 they came after every category's column, past the right edge of the page).
	var right float64
	d.eval(`document.querySelector("#students th:nth-child(5)").getBoundingClientRect().right`, &right)
	if right > 1280 {
		t.Errorf("the failed runs' column ends at %v px, past the first screen (1280 px)", right)
	}
	if r, g, b, _ := img.At(int(head.X), int(head.Y)).RGBA(); r>>8 != 0xf3 || g>>8 != 0xf3 || b>>8 != 0xf3 {
		t.Errorf("the screenshot at the table's header (%v, %v) is #%02x%02x%02x, want its background #f3f3f3", head.X, head.Y, r>>8, g>>8, b>>8)
	}

	// Sorting by a click on a header, and back the other way by a second one.
	for _, step := range []struct{ header, want, sort string }{
		{"submission", "amy kim zed", "ascending"},
		{"total/42", "amy kim zed", "ascending"}, // ties keep the order given
		{"total/42", "zed amy kim", "descending"},
		{"failed runs", "zed amy kim", "ascending"},
		{"2310A/arg checking (2)", "amy kim zed", "ascending"}, // a category
		{"build", "amy zed kim", "ascending"},                  // failed, then missing programs, then ok
	} {
		var index int
		d.eval(fmt.Sprintf(`Array.prototype.findIndex.call(document.querySelectorAll("#students th"), function (th) { return th.textContent.replace(/[\u25b2\u25bc ]+$/, "") === %q; })`, step.header), &index)
		if index < 0 {
			t.Fatalf("no header %q", step.header)
		}
		d.click(fmt.Sprintf("#students th:nth-child(%d)", index+1))
		var aria string
		d.eval(fmt.Sprintf(`document.querySelector("#students th:nth-child(%d)").getAttribute("aria-sort") || ""`, index+1), &aria)
		if got := names(); got != step.want || aria != step.sort {
			t.Errorf("after a click on %q: rows %s (%s), want %s (%s)", step.header, got, aria, step.want, step.sort)
		}
	}
	if dir := os.Getenv("GAUNTLET_SCREENSHOTS"); dir != "" {
		os.WriteFile(filepath.Join(dir, "cohort-sorted.png"), d.screenshot(), 0o644)
	}
	checkDashboard(t, d, rep)
	d.drainProblems()
}

// checkDashboard checks the cohort page's dashboard as the browser shows it, for the
// cohort of TestCohortHTMLInABrowser: zed (the buggy fixture, rep), amy (make fails) and
// kim (builds nothing). It comes after the table and before the reports; its chart has ten
// bars whose counts hold the three submissions (amy and kim in the first, with no marks;
// zed in the bin of its total), each drawn as tall as its count says; a pass rate per
// category; zed's failed cases as the most failed, and amy and kim as one signature (every
// case BUILD-FAIL), each name a link to its own report. The dashboard on screen is saved
// as dashboard.png in the test's temporary folder (the path is logged), and in
// $GAUNTLET_SCREENSHOTS when that is set.
func checkDashboard(t *testing.T, d *devtools, zed grade.Report) {
	t.Helper()
	var order struct{ AfterTable, BeforeReports bool }
	d.eval(`(function () { var dash = document.getElementById("dashboard");
		return {AfterTable: !!(document.getElementById("students").compareDocumentPosition(dash) & Node.DOCUMENT_POSITION_FOLLOWING),
			BeforeReports: !!(dash.compareDocumentPosition(document.querySelector("section.subject")) & Node.DOCUMENT_POSITION_FOLLOWING)}; })()`, &order)
	if !order.AfterTable || !order.BeforeReports {
		t.Errorf("the dashboard is not between the table and the reports: %+v", order)
	}
	type bar struct {
		Count          int
		From, To       float64
		Height, Bottom float64
	}
	var bars []bar
	d.eval(`Array.prototype.map.call(document.querySelectorAll("#distribution rect.bar"), function (r) {
		var b = r.getBoundingClientRect();
		return {Count: +r.getAttribute("data-count"), From: +r.getAttribute("data-from"), To: +r.getAttribute("data-to"), Height: b.height, Bottom: b.bottom};
	})`, &bars)
	if len(bars) != 10 {
		t.Fatalf("the chart has %d bars, want 10: %+v", len(bars), bars)
	}
	zedBin := int(marks(t, &zed) / (zed.MaxMarks / 10))
	most := 0
	for _, b := range bars {
		most = max(most, b.Count)
	}
	for i, b := range bars {
		want := 0
		if i == 0 {
			want += 2 // amy, kim
		}
		if i == zedBin {
			want++
		}
		if b.Count != want {
			t.Errorf("bar %d [%g, %g): %d, want %d (zed has %.2f)", i, b.From, b.To, b.Count, want, marks(t, &zed))
		}
		// Drawn to scale, on one baseline: the tallest 140 units (px at this size).
		if wantH := float64(b.Count) * 140 / float64(max(most, 1)); b.Height < wantH-1 || b.Height > wantH+1 || b.Height > 0 && (b.Bottom < bars[0].Bottom-1 || b.Bottom > bars[0].Bottom+1) {
			t.Errorf("bar %d is drawn %v px tall ending at %v, want %v px on the first's baseline %v", i, b.Height, b.Bottom, wantH, bars[0].Bottom)
		}
	}
	var rates []string
	d.eval(`Array.prototype.map.call(document.querySelectorAll("#category-rates tbody tr"), function (tr) { return tr.cells[0].textContent + ": " + tr.cells[1].textContent; })`, &rates)
	var columns int
	d.eval(`document.querySelectorAll("#students th[title]").length`, &columns)
	if len(rates) != columns || columns == 0 {
		t.Errorf("pass rates of %d categories, the table has %d: %v", len(rates), columns, rates)
	}
	for _, c := range zed.Categories {
		if c.Cases > 0 && !slices.Contains(rates, fmt.Sprintf("%s: %d/%d", c.Name, c.Passed, c.Cases*3)) {
			t.Errorf("no pass rate %s: %d/%d among %v (amy and kim pass none of its %d runs)", c.Name, c.Passed, c.Cases*3, rates, c.Cases)
		}
	}
	failedByZed := map[string]bool{}
	for _, c := range zed.Cases {
		if !c.Verdict.Passed() && c.Verdict != grade.BuildFail {
			failedByZed[c.Name()] = true
		}
	}
	type listed struct {
		Case  string
		Links []string
	}
	var mostFailed []listed
	d.eval(`Array.prototype.map.call(document.querySelectorAll("#most-failed tbody tr"), function (tr) {
		return {Case: tr.cells[0].textContent, Links: Array.prototype.map.call(tr.cells[3].querySelectorAll("a"), function (a) { return a.textContent + " " + a.getAttribute("href"); })};
	})`, &mostFailed)
	if len(mostFailed) == 0 || len(mostFailed) != min(len(failedByZed), grade.MostFailedShown) {
		t.Errorf("most failed cases %+v, want %d of zed's", mostFailed, len(failedByZed))
	}
	var sigs [][]string
	d.eval(`Array.prototype.map.call(document.querySelectorAll("#signatures .signature"), function (s) {
		return Array.prototype.map.call(s.querySelectorAll("p a"), function (a) { return a.textContent + " " + a.getAttribute("href"); });
	})`, &sigs)
	var links []string
	for _, m := range mostFailed {
		if !failedByZed[m.Case] || len(m.Links) != 1 || !strings.HasPrefix(m.Links[0], "zed #") {
			t.Errorf("most failed %+v: want one of zed's failed cases, failed by zed alone", m)
		}
		links = append(links, m.Links...)
	}
	if len(sigs) != 2 || len(sigs[0]) != 2 || !strings.HasPrefix(sigs[0][0], "amy #") || !strings.HasPrefix(sigs[0][1], "kim #") ||
		len(sigs[1]) != 1 || !strings.HasPrefix(sigs[1][0], "zed #") {
		t.Errorf("signatures %v, want amy and kim together, then zed", sigs)
	}
	for _, s := range sigs {
		links = append(links, s...)
	}
	for _, l := range links {
		name, href, _ := strings.Cut(l, " ")
		var heading string
		d.eval(fmt.Sprintf(`(document.querySelector(%q + " h1") || {}).textContent || ""`, href), &heading)
		if !strings.HasPrefix(heading, name+": gauntlet grade dealer2310: ") {
			t.Errorf("%s's link %q leads to %q, not its report", name, href, heading)
		}
	}
	d.eval(`document.getElementById("dashboard").scrollIntoView(), true`, new(bool))
	shot := d.screenshot()
	if _, err := png.Decode(bytes.NewReader(shot)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "dashboard.png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("the dashboard as shown: %s", path)
	if dir := os.Getenv("GAUNTLET_SCREENSHOTS"); dir != "" {
		os.WriteFile(filepath.Join(dir, "dashboard.png"), shot, 0o644)
	}
}
