package metatest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"gauntlet/harness/buildtest"
)

// browser finds a headless-capable Chromium, or skips the test saying how to get one.
func browser(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless_shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium on this machine to load the HTML report in (.ci/run installs the system's chromium package)")
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
	wants := []string{fmt.Sprintf(`<p class="marks" id="total">Total: %.2f / %g`, rep.Marks, rep.MaxMarks)}
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
