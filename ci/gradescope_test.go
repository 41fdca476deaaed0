package ci

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gauntlet/harness/box/execfile"
	"gauntlet/internal/buildtest"
)

// refusal is what gauntlet grade says on stderr, exit 2, when a root grader cannot box the
// submission (a container without namespaces) and -unsafe is not given.
const refusal = "gauntlet grade: cannot box the submission on this machine (a boxed program cannot start here: sandbox: start prog 0: fork/exec /proc/self/exe: operation not permitted); refusing to grade (-unsafe grades without the box, never for marks)"

// argsCases selects a few dealer2310 cases (the dealer's usage checks, in three pairings),
// so that a whole run of the autograder on a good submission takes a second.
const argsCases = "^dealer_args_usage_"

// gsResults is what the tests read of a results.json.
type gsResults struct {
	Score  *float64 `json:"score"`
	Output string   `json:"output"`
	Tests  []struct {
		Name       string  `json:"name"`
		Score      float64 `json:"score"`
		MaxScore   float64 `json:"max_score"`
		Status     string  `json:"status"`
		Output     string  `json:"output"`
		Visibility string  `json:"visibility"`
	} `json:"tests"`
}

// autograder makes a folder laid out as Gradescope lays it out, with a submission whose
// programs are the reference ones (links to a copy of the gauntlet binary, which runs as the
// program it is called by: a good submission), and returns it.
func autograder(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	sub := filepath.Join(root, "submission")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(buildtest.Path(t, "gauntlet/cmd/gauntlet"))
	if err != nil {
		t.Fatal(err)
	}
	if err := execfile.Write(filepath.Join(sub, "gauntlet-bin"), data, 0o755); err != nil {
		t.Fatal(err)
	}
	mk := "all:\n\tln -sf gauntlet-bin 2310dealer\n\tln -sf gauntlet-bin 2310A\n\tln -sf gauntlet-bin 2310B\n"
	if err := os.WriteFile(filepath.Join(sub, "Makefile"), []byte(mk), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// stub writes an executable shell script named gauntlet in a new folder, with the given
// body after a line that appends its arguments to the file calls beside it, and returns
// its path.
func stub(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	script := fmt.Sprintf("#!/bin/sh\necho \"$*\" >> %q\n%s\n", filepath.Join(dir, "calls"), body)
	path := filepath.Join(dir, "gauntlet")
	if err := execfile.Write(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// calls are the command lines a stub was run with, one a line.
func calls(t *testing.T, stub string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(filepath.Dir(stub), "calls"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// runAutograder runs run_autograder on root with gauntlet as the grader and the given
// settings (for GAME=dealer2310 unless one of them names another: a later NAME= wins),
// through wrap (a command that runs the rest, such as setpriv; none when empty), and returns
// the results it wrote and its output. It must exit 0.
func runAutograder(t *testing.T, root, gauntlet string, wrap []string, settings ...string) (gsResults, []byte, string) {
	t.Helper()
	cmd := exec.Command("sh", "gradescope/run_autograder")
	if len(wrap) > 0 {
		cmd = exec.Command(wrap[0], append(wrap[1:], "sh", "gradescope/run_autograder")...)
	}
	cmd.Env = append(os.Environ(), append([]string{"AUTOGRADER=" + root, "GAUNTLET=" + gauntlet, "GAME=dealer2310"}, settings...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("run_autograder: %v\n%s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(root, "results", "results.json"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var res gsResults
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatalf("results.json: %v\n%s", err, data)
	}
	return res, data, string(out)
}

// checkRealScore checks that the results of a good submission graded on argsCases give it
// every mark of the cases run: the categories run passed, and the score is their marks.
func checkRealScore(t *testing.T, res gsResults, data []byte) {
	t.Helper()
	run := 0.0
	for _, tc := range res.Tests {
		if strings.HasPrefix(tc.Output, "no case of this category was run") {
			continue
		}
		if tc.Status != "passed" {
			t.Errorf("test %q %s: %s", tc.Name, tc.Status, tc.Output)
		}
		run += tc.MaxScore
	}
	if res.Score == nil || *res.Score <= 0 || *res.Score != run {
		t.Fatalf("score %s, want the %v marks of the categories run:\n%s", scoreText(res.Score), run, data)
	}
}

// Where gauntlet refuses to grade boxed (the container gives no namespaces: a stub that
// refuses as gauntlet does, unless -unsafe, when it runs the real gauntlet), the
// autograder grades again with -unsafe, says so to the staff, and the good submission gets
// its real score.
func TestGradescopeWithoutNamespacesGradesUnboxed(t *testing.T) {
	t.Parallel() // an autograder run of its own, in a folder of its own
	root := autograder(t)
	real := buildtest.Path(t, "gauntlet/cmd/gauntlet")
	g := stub(t, fmt.Sprintf(`for a; do [ "$a" = -unsafe ] && exec %q "$@" -run %q; done
echo %q >&2
exit 2`, real, argsCases, refusal))
	res, data, out := runAutograder(t, root, g, nil)
	checkRealScore(t, res, data)
	c := calls(t, g)
	if len(c) != 2 || strings.Contains(c[0], "-unsafe") || !strings.Contains(c[1], "-unsafe") {
		t.Errorf("gauntlet was run with %q, want once boxed and then once with -unsafe", c)
	}
	for _, want := range []string{refusal, "cannot box the submission (it has no namespaces: no CAP_SYS_ADMIN)", "grading without the box (-unsafe)", "docs/ci.md"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output does not say %q:\n%s", want, out)
		}
	}
}

// BOX=require never grades unboxed: where gauntlet refuses, the student gets the staff's
// message, which does not blame them.
func TestGradescopeBoxRequired(t *testing.T) {
	t.Parallel() // an autograder run of its own, in a folder of its own
	root := autograder(t)
	g := stub(t, fmt.Sprintf("echo %q >&2\nexit 2", refusal))
	res, data, out := runAutograder(t, root, g, nil, "BOX=require")
	if c := calls(t, g); len(c) != 1 || strings.Contains(c[0], "-unsafe") {
		t.Errorf("gauntlet was run with %q, want once, boxed", c)
	}
	checkStaffProblem(t, res, data)
	if !strings.Contains(out, "BOX=require: not graded") {
		t.Errorf("output:\n%s", out)
	}
}

// checkStaffProblem checks the results the autograder writes when gauntlet wrote none: a
// visible test that names the staff's problem, and no word that blames the student.
func checkStaffProblem(t *testing.T, res gsResults, data []byte) {
	t.Helper()
	if res.Score == nil || len(res.Tests) != 1 || res.Tests[0].Name != "autograder error (course staff's problem, not yours)" ||
		res.Tests[0].Visibility != "visible" || !strings.Contains(res.Output, "not in your submission") ||
		!strings.Contains(res.Tests[0].Output, "Nothing here is about your submission") {
		t.Errorf("results: %s", data)
	}
}

// A HARNESS-ERROR (exit 2, with results written) keeps gauntlet's results: the score it
// gave, and the HARNESS-ERROR test that says whose problem it is.
func TestGradescopeKeepsResultsOfHarnessError(t *testing.T) {
	t.Parallel() // an autograder run of its own, in a folder of its own
	root := autograder(t)
	written := `{"score": 7.5, "output": "summary", "tests": [{"name": "HARNESS-ERROR, the course staff's problem, not yours: x", "score": 0, "max_score": 0, "status": "failed", "output": "...", "visibility": "visible"}]}`
	// The stub writes the results at the path after -gradescope, then exits 2.
	g := stub(t, fmt.Sprintf(`while [ $# -gt 0 ]; do [ "$1" = -gradescope ] && printf '%%s\n' %q > "$2"; shift; done
echo 'gauntlet grade: HARNESS-ERROR in 1 case' >&2
exit 2`, written))
	_, data, out := runAutograder(t, root, g, nil)
	if string(data) != written+"\n" {
		t.Errorf("results.json is\n%s\nwant gauntlet's own:\n%s", data, written)
	}
	if len(calls(t, g)) != 1 || !strings.Contains(out, "HARNESS-ERROR, a fault of the grader or of this container, not of the submission") {
		t.Errorf("calls %q, output:\n%s", calls(t, g), out)
	}
}

// Exit 1 (the student failed cases) keeps gauntlet's results, as ever.
func TestGradescopeKeepsResultsOfFailedCases(t *testing.T) {
	t.Parallel() // an autograder run of its own, in a folder of its own
	root := autograder(t)
	written := `{"score": 3, "tests": []}`
	g := stub(t, fmt.Sprintf(`while [ $# -gt 0 ]; do [ "$1" = -gradescope ] && printf '%%s\n' %q > "$2"; shift; done
exit 1`, written))
	if _, data, _ := runAutograder(t, root, g, nil); string(data) != written+"\n" {
		t.Errorf("results.json is\n%s\nwant gauntlet's own:\n%s", data, written)
	}
}

// When gauntlet writes no results at all, the autograder writes the staff's message and
// copies what gauntlet said to its own output (the staff's view).
func TestGradescopeNoResultsIsTheStaffsProblem(t *testing.T) {
	t.Parallel() // an autograder run of its own, in a folder of its own
	root := autograder(t)
	g := stub(t, "echo 'gauntlet grade: HARNESS-ERROR: copying: permission denied' >&2\nexit 2")
	res, data, out := runAutograder(t, root, g, nil)
	checkStaffProblem(t, res, data)
	if !strings.Contains(out, "HARNESS-ERROR: copying: permission denied") || !strings.Contains(out, "wrote no results: the staff's problem") {
		t.Errorf("output:\n%s", out)
	}
	if len(calls(t, g)) != 1 {
		t.Errorf("gauntlet was run %d times, want once (no refusal to box)", len(calls(t, g)))
	}
}

// In a container-like setting, for real: the autograder runs as root with CAP_SYS_ADMIN
// out of its capability bounding set (as an unprivileged Docker container, or Gradescope's,
// runs it), so the real gauntlet cannot box; it grades at the level below the box (sandbox
// users without namespaces, since 2026-11-28; before, it refused and the autograder graded
// again with -unsafe, as root), the results' output says so, and the good submission gets
// its real score at the first run. (The gauntlet run is a wrapper that only adds the -run
// filter.)
func TestGradescopeWithoutCapSysAdmin(t *testing.T) {
	t.Parallel() // an autograder run of its own, in a folder of its own
	setpriv, err := exec.LookPath("setpriv")
	if err == nil && os.Geteuid() != 0 {
		err = errors.New("not root")
	}
	buildtest.NeedBox(t, err)
	root := autograder(t)
	real := buildtest.Path(t, "gauntlet/cmd/gauntlet")
	g := stub(t, fmt.Sprintf("exec %q \"$@\" -run %q", real, argsCases))
	res, data, out := runAutograder(t, root, g, []string{setpriv, "--bounding-set", "-sys_admin", "--inh-caps", "-sys_admin"})
	checkRealScore(t, res, data)
	if strings.Contains(out, "cannot box the submission on this machine") || len(calls(t, g)) != 1 {
		t.Errorf("gauntlet refused, or ran %d times, want once:\n%s", len(calls(t, g)), out)
	}
	if !strings.Contains(res.Output, "note: no namespaces here") {
		t.Errorf("the results' output does not say the grade ran without namespaces:\n%s", res.Output)
	}
}

func scoreText(s *float64) string {
	if s == nil {
		return "none"
	}
	return fmt.Sprint(*s)
}
