package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gauntlet/harness/grading/grade"
	"gauntlet/internal/buildtest"
)

// A grade with a marked case that the harness failed to judge, again when the case ran
// alone (a harness failure injected), is incomplete: it exits 2, which CI takes for a
// failure, and no report carries a mark, neither the JSON (marks null), the CSV, the HTML
// page nor the Gradescope results (score 0, a test saying why). Until 2026-12-07 the
// reports gave the mark over the cases that were judged. Not parallel: the injected fault
// is the process's.
func TestIncompleteGradeHasNoMark(t *testing.T) {
	gauntletBinary(t)
	defer grade.SetHarnessFault(func(_ string, p grade.Pairing, _ bool) error {
		if p == grade.TheirHub {
			return errors.New("injected: the grader's own failure")
		}
		return nil
	})()
	dir := t.TempDir()
	files := map[string]string{}
	args := []string{"grade", "stlucia", "-run", "^game_spec_x$"}
	for _, flag := range []string{"json", "csv", "gradescope", "html"} {
		files[flag] = filepath.Join(dir, "report."+flag)
		args = append(args, "-"+flag, files[flag])
	}
	code, stdout, stderr := gauntlet(args...)
	if code != 2 {
		t.Errorf("exit %d, want 2\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "INCOMPLETE") {
		t.Errorf("the summary does not say the grade is incomplete:\n%s", stdout)
	}
	rep := readReport(t, files["json"])
	if rep.Marks != nil || !rep.Incomplete || len(rep.Harness) == 0 {
		t.Errorf("JSON: marks %s, incomplete %v, harness errors %q; want no mark", rep.TotalText(), rep.Incomplete, rep.Harness)
	}
	var raw map[string]any
	if data, err := os.ReadFile(files["json"]); err != nil || json.Unmarshal(data, &raw) != nil || raw["marks"] != nil {
		t.Errorf("JSON marks %v, want null (%v)", raw["marks"], err)
	}
	if data, err := os.ReadFile(files["csv"]); err != nil || !strings.Contains(string(data), ",incomplete,") {
		t.Errorf("CSV without an incomplete total (%v):\n%s", err, data)
	}
	var gs struct {
		Score float64 `json:"score"`
		Tests []struct {
			Name string `json:"name"`
		} `json:"tests"`
	}
	if data, err := os.ReadFile(files["gradescope"]); err != nil || json.Unmarshal(data, &gs) != nil || gs.Score != 0 || len(gs.Tests) == 0 || !strings.HasPrefix(gs.Tests[0].Name, "INCOMPLETE") {
		t.Errorf("Gradescope: %v, %+v; want score 0 and a test saying the grade is incomplete", err, gs)
	}
	if data, err := os.ReadFile(files["html"]); err != nil || !strings.Contains(string(data), "Total: incomplete") {
		t.Errorf("HTML without an incomplete total (%v)", err)
	}
}

// A cohort runs a submission's HARNESS-ERROR again once all its cases have run (each
// submission's grade.Run runs its own again at its end, beside other submissions' cases
// but none of its own): a harness failure that does not come back is no failure, and the
// grade is whole. Not parallel: the injected fault is the process's.
func TestCohortRunsHarnessErrorsAgain(t *testing.T) {
	buildtest.Long(t)
	exe := gauntletBinary(t)
	root := t.TempDir()
	exe = reachable(t, root, exe)
	a := makeSubmission(t, root, "a", goodRecipe(exe)...)
	b := makeSubmission(t, root, "b", goodRecipe(exe)...)
	var mu sync.Mutex
	again := 0
	defer grade.SetHarnessFault(func(_ string, p grade.Pairing, rerun bool) error {
		mu.Lock()
		defer mu.Unlock()
		if rerun {
			again++
		}
		if p == grade.TheirHub && !rerun {
			return errors.New("injected: the grader's own failure, once")
		}
		return nil
	})()
	out := filepath.Join(root, "out")
	code, stdout, stderr := gauntlet("grade", "stlucia", "-run", "^game_spec_x$", "-j", "2", "-out", out, a, b)
	if code != 0 {
		t.Errorf("exit %d, want 0: the harness errors, run again, passed\n%s\n%s", code, stdout, stderr)
	}
	if again != 2 {
		t.Errorf("%d case runs run again, want 2 (one per submission)", again)
	}
	for _, name := range []string{"a", "b"} {
		rep := readReport(t, filepath.Join(out, name+".json"))
		if rep.Marks == nil || rep.Incomplete || len(rep.Harness) > 0 {
			t.Errorf("%s: marks %s, harness errors %q; want a whole grade", name, rep.TotalText(), rep.Harness)
		}
	}
}
