package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"gauntlet/harness/box/execfile"
	"gauntlet/harness/grading/build"
	"gauntlet/harness/grading/grade"
	"gauntlet/harness/grading/scriptcmds"
	"gauntlet/internal/buildtest"
)

// specCase selects the rules file's worked example of the St Lucia suite by its id (the
// suite grows while this is written; other cases may appear, this one stays). It names the
// hub and a player, so it runs in three pairings.
const specCase = `^(game_spec_x|spec_examples)$`

var stluciaPrograms = []string{"stlucia", "EAIT", "SCIENCE", "HABS", "HASS", "MABS"}

// makeSubmission makes folder root/name holding a Makefile with the given recipe lines.
func makeSubmission(t *testing.T, root, name string, recipe ...string) string {
	t.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	mk := "all:\n\t" + strings.Join(recipe, "\n\t") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte(mk), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// reachable copies the gauntlet binary into root, where the sandbox users that run a
// submission's programs can run it (the build's folder is private), and returns the copy.
// root and the folder above it become searchable by others.
func reachable(t *testing.T, root, gauntlet string) string {
	t.Helper()
	for _, d := range []string{filepath.Dir(root), root} {
		st, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm()&0o055 == 0o055 {
			continue
		}
		if err := os.Chmod(d, st.Mode()&(os.ModePerm|os.ModeSticky|os.ModeSetuid|os.ModeSetgid)|0o055); err != nil {
			t.Fatal(err)
		}
	}
	in, err := os.Open(gauntlet)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	dst := filepath.Join(root, "gauntlet-bin")
	if err := execfile.WriteFrom(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755, in); err != nil {
		t.Fatal(err)
	}
	return dst
}

// goodRecipe makes the spec's programs as links to a gauntlet binary, which runs as the
// program it is called by: a submission that behaves exactly like the reference.
func goodRecipe(gauntlet string) []string {
	var lines []string
	for _, p := range stluciaPrograms {
		lines = append(lines, fmt.Sprintf("ln -sf %s %s", gauntlet, p))
	}
	return lines
}

var brokenRecipe = []string{"@echo 'hub.c:3:1: error: expected ; before }'", "@false"}

// gauntletBinary builds gauntlet and makes run(...) use it as the reference and mock
// programs (rather than this test binary, which under -race cannot start within the
// sandbox's memory limit). Submissions link their programs to it too.
func gauntletBinary(t *testing.T) string {
	t.Helper()
	bin := buildtest.Path(t, "gauntlet/cmd/gauntlet")
	executable = func() (string, error) { return bin, nil }
	return bin
}

// gauntletApart is gauntlet(args...) run by the gauntlet binary in a process of its own:
// for a test that runs in parallel with others, with which the command run in this
// process would share what a run keeps process-wide (the case users it closes as it ends,
// the stdout a "-json -" report goes to).
func gauntletApart(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return buildtest.RunBuilt(t, "gauntlet/cmd/gauntlet", args...)
}

func gauntlet(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// tableRows finds the cohort table's rows on stdout: submission name -> its cells (split
// on runs of two or more spaces).
func tableRows(stdout string) map[string][]string {
	rows := map[string][]string{}
	for _, line := range strings.Split(stdout, "\n") {
		var cells []string
		for _, f := range strings.Split(line, "  ") {
			if f = strings.TrimSpace(f); f != "" {
				cells = append(cells, f)
			}
		}
		if len(cells) > 3 {
			rows[cells[0]] = cells
		}
	}
	return rows
}

func readReport(t *testing.T, path string) *grade.Report {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r grade.Report
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &r
}

// allVerdicts checks that every case of a report has verdict v.
func allVerdicts(t *testing.T, r *grade.Report, v grade.Verdict) {
	t.Helper()
	if len(r.Cases) == 0 {
		t.Errorf("%s: no case was run", r.Subject)
	}
	for _, c := range r.Cases {
		if c.Verdict != v {
			t.Errorf("%s: %s is %s (%s), want %s\n%s", r.Subject, c.Name(), c.Verdict, c.Detail, v, c.Log)
		}
	}
}

// A cohort of two working submissions and one whose make fails, graded through run(...):
// the table, the reports written to -out, the CSV and the JUnit file; then a resumed run.
func TestCohort(t *testing.T) {
	buildtest.Long(t)
	exe := gauntletBinary(t)
	root := t.TempDir()
	exe = reachable(t, root, exe)
	alice := makeSubmission(t, root, "alice", goodRecipe(exe)...)
	bob := makeSubmission(t, filepath.Join(root, "group2"), "bob", goodRecipe(exe)...)
	carol := makeSubmission(t, root, "carol", brokenRecipe...)
	out := filepath.Join(root, "out")
	csvFile, xmlFile := filepath.Join(root, "marks.csv"), filepath.Join(root, "junit.xml")

	start := time.Now()
	code, stdout, stderr := gauntlet("grade", "stlucia", "-run", specCase, "-j", "2", "-out", out,
		"-csv", csvFile, "-junit", xmlFile, alice, bob, carol)
	t.Logf("cohort of 3: %v", time.Since(start))
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a build failed)\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if strings.Contains(stdout, "\r") {
		t.Errorf("a progress line was drawn on a stdout that is not a terminal:\n%q", stdout)
	}
	rows := tableRows(stdout)
	for name, want := range map[string][]string{
		"alice": {"graded", "ok"}, "bob": {"graded", "ok"}, "carol": {"graded", "BUILD-FAIL"},
	} {
		if r := rows[name]; len(r) < 3 || r[1] != want[0] || r[2] != want[1] {
			t.Errorf("row %s: %q, want state %s, build %s\n%s", name, r, want[0], want[1], stdout)
		}
	}

	reports := map[string]*grade.Report{}
	for _, name := range []string{"alice", "bob", "carol"} {
		reports[name] = readReport(t, filepath.Join(out, name+".json"))
	}
	allVerdicts(t, reports["alice"], grade.Pass)
	allVerdicts(t, reports["bob"], grade.Pass)
	allVerdicts(t, reports["carol"], grade.BuildFail)
	if r := reports["alice"]; r.Subject != alice || r.Version != grade.ReportVersion || r.Build == nil || !r.Build.OK || r.Marks == nil || *r.Marks <= 0 {
		t.Errorf("alice's report: subject %s, version %d, build %+v, marks %s", r.Subject, r.Version, r.Build, r.TotalText())
	}
	if b := reports["carol"].Build; b == nil || b.OK || !strings.Contains(b.Log, "hub.c:3:1: error") {
		t.Errorf("carol's build %+v", b)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(out, ".*")); len(leftovers) > 0 {
		t.Errorf("temporary files left in -out: %v", leftovers)
	}

	// The CSV: a header, then the rows in argument order, agreeing with the reports.
	f, err := os.Open(csvFile)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(recs) != 4 {
		t.Fatalf("CSV: %v, %d records", err, len(recs))
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for i, name := range []string{"alice", "bob", "carol"} {
		rec, r := recs[i+1], reports[name]
		wantBuild := map[bool]string{true: "ok", false: "fail"}[r.Build.OK]
		checks := map[string]string{"submission": name, "subject": r.Subject, "state": "graded", "build": wantBuild,
			"total": fmt.Sprint(*r.Marks), "max_marks": fmt.Sprint(r.MaxMarks),
			"PASS": fmt.Sprint(r.Counts[grade.Pass]), "BUILD-FAIL": fmt.Sprint(r.Counts[grade.BuildFail])}
		for k, v := range checks {
			if rec[col[k]] != v {
				t.Errorf("CSV %s, %s: %q, want %q", name, k, rec[col[k]], v)
			}
		}
	}

	// JUnit: one testsuite per submission.
	data, err := os.ReadFile(xmlFile)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Suites []struct {
			Name  string `xml:"name,attr"`
			Tests int    `xml:"tests,attr"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil || len(doc.Suites) != 3 || doc.Suites[2].Name != "stlucia: "+carol {
		t.Errorf("JUnit: %v, %+v", err, doc.Suites)
	}

	// Resume: bob's report is removed and alice's folder now fails to build. The rerun
	// grades bob only; alice and carol come from their reports, alice's left untouched.
	aliceJSON, _ := os.ReadFile(filepath.Join(out, "alice.json"))
	os.Remove(filepath.Join(out, "bob.json"))
	makeSubmission(t, root, "alice", brokenRecipe...)
	start = time.Now()
	code, stdout, stderr = gauntlet("grade", "stlucia", "-run", specCase, "-out", out, alice, bob, carol)
	t.Logf("resumed cohort (1 of 3 graded): %v", time.Since(start))
	if code != 1 {
		t.Fatalf("resumed: exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	rows = tableRows(stdout)
	for name, want := range map[string][]string{
		"alice": {"resumed", "ok"}, "bob": {"graded", "ok"}, "carol": {"resumed", "BUILD-FAIL"},
	} {
		if r := rows[name]; len(r) < 3 || r[1] != want[0] || r[2] != want[1] {
			t.Errorf("resumed row %s: %q, want state %s, build %s\n%s", name, r, want[0], want[1], stdout)
		}
	}
	if !strings.Contains(stderr, "alice: already graded in") || strings.Contains(stderr, "bob: already") {
		t.Errorf("stderr does not say which were skipped:\n%s", stderr)
	}
	if now, _ := os.ReadFile(filepath.Join(out, "alice.json")); !bytes.Equal(now, aliceJSON) {
		t.Error("alice's report was rewritten by the resumed run")
	}
	allVerdicts(t, readReport(t, filepath.Join(out, "bob.json")), grade.Pass)

	// A rerun with other cases would overwrite the reports: refused.
	code, _, stderr = gauntlet("grade", "stlucia", "-run", "^game_", "-out", out, alice, bob)
	if code != 2 || !strings.Contains(stderr, "covers other cases") {
		t.Errorf("rerun with another -run: exit %d, stderr %q", code, stderr)
	}
}

// Exit 0 when every submission passes; the single-submission writers through run(...).
func TestGradePassingSubmissions(t *testing.T) {
	buildtest.Long(t)
	exe := gauntletBinary(t)
	root := t.TempDir()
	exe = reachable(t, root, exe)
	a := makeSubmission(t, root, "a", goodRecipe(exe)...)
	b := makeSubmission(t, filepath.Join(root, "x"), "a", goodRecipe(exe)...)
	code, stdout, stderr := gauntlet("grade", "stlucia", "-run", specCase, "-j", "3", a, b)
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s\n%s", code, stdout, stderr)
	}
	rows := tableRows(stdout)
	if rows["a"] == nil || rows["a-2"] == nil || rows["a-2"][1] != "graded" {
		t.Errorf("two folders named a should be rows a and a-2:\n%s", stdout)
	}
	// A root grader never runs a submission as root, and never says it did.
	if strings.Contains(stderr+stdout, "as root") {
		t.Errorf("a submission ran as root:\n%s\n%s", stdout, stderr)
	}

	files := map[string]string{}
	var args []string
	for _, flag := range []string{"json", "junit", "gradescope", "csv"} {
		files[flag] = filepath.Join(root, "single."+flag)
		args = append(args, "-"+flag, files[flag])
	}
	args = append(args, "-prog", "EAIT=out/nothere")
	code, stdout, stderr = gauntlet(append(append([]string{"grade", "stlucia", "-run", specCase}, args...), a)...)
	if code != 0 || !strings.Contains(stdout, "gauntlet grade stlucia: "+a) {
		t.Fatalf("single: exit %d\n%s\n%s", code, stdout, stderr)
	}
	rep := readReport(t, files["json"])
	allVerdicts(t, rep, grade.Pass)
	// A -prog path that names nothing is said, in the summary and the report.
	const progNote = "-prog EAIT=out/nothere: no executable file there after the build"
	if len(rep.Notes) == 0 || !strings.HasPrefix(rep.Notes[0], progNote) || !strings.Contains(stdout, "note: "+progNote) {
		t.Errorf("notes %q, stdout:\n%s\nwant the -prog note", rep.Notes, stdout)
	}
	var gs struct {
		Score float64 `json:"score"`
		Tests []struct {
			Name   string `json:"name"`
			Status string `json:"status"`
		} `json:"tests"`
	}
	if data, err := os.ReadFile(files["gradescope"]); err != nil || json.Unmarshal(data, &gs) != nil || gs.Score <= 0 || len(gs.Tests) == 0 {
		t.Errorf("gradescope file: %v %+v", err, gs)
	}
	if data, err := os.ReadFile(files["junit"]); err != nil || !bytes.Contains(data, []byte(`<testsuite name="stlucia: `+a)) {
		t.Errorf("junit file: %v\n%s", err, data)
	}
	if data, err := os.ReadFile(files["csv"]); err != nil || !bytes.Contains(data, []byte("\na,"+a+",graded,ok,")) {
		t.Errorf("csv file: %v\n%s", err, data)
	}
}

// A cohort whose stdout is not a terminal (a CI log) says on stderr when each submission is
// done, as it is done: how many of all, its marks, its verdict counts and the time it took.
func TestCohortReportsAsItGoes(t *testing.T) {
	t.Parallel() // its commands run apart (gauntletApart)
	exe := buildtest.Path(t, "gauntlet/cmd/gauntlet")
	root := t.TempDir()
	exe = reachable(t, root, exe)
	alice := makeSubmission(t, root, "alice", goodRecipe(exe)...)
	carol := makeSubmission(t, root, "carol", brokenRecipe...)
	code, stdout, stderr := gauntletApart(t, "grade", "stlucia", "-run", specCase, "-j", "2", alice, carol)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a build failed)\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, re := range []string{
		`(?m)^gauntlet grade: \[[12]/2\] alice: (\d+\.\d\d)/(\d+) marks \(PASS \d+\) in \S+$`,
		`(?m)^gauntlet grade: \[[12]/2\] carol: 0\.00/\d+ marks \(BUILD-FAIL \d+\) in \S+$`,
		`(?m)^gauntlet grade: \[1/2\] `,
		`(?m)^gauntlet grade: \[2/2\] `,
	} {
		if n := len(regexp.MustCompile(re).FindAllString(stderr, -1)); n != 1 {
			t.Errorf("%d lines match %s, want 1:\n%s", n, re, stderr)
		}
	}
	m := regexp.MustCompile(`alice: (\d+\.\d\d)/`).FindStringSubmatch(stderr)
	if rows := tableRows(stdout); m == nil || rows["alice"] == nil || !slices.Contains(rows["alice"], m[1]) {
		t.Errorf("alice's line (%q) does not give the table's marks:\n%s", m, stdout)
	}
}

// A submission the grader cannot take (too many files to copy) is a harness-error row; the
// others are graded; the run exits 2.
func TestCohortSubmissionNotGradable(t *testing.T) {
	buildtest.Long(t)
	exe := gauntletBinary(t)
	root := t.TempDir()
	exe = reachable(t, root, exe)
	good := makeSubmission(t, root, "good", goodRecipe(exe)...)
	huge := makeSubmission(t, root, "huge", goodRecipe(exe)...)
	for i := range build.MaxFiles {
		if err := os.WriteFile(filepath.Join(huge, fmt.Sprintf("f%d.c", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	csvFile := filepath.Join(root, "marks.csv")
	code, stdout, stderr := gauntlet("grade", "stlucia", "-run", specCase, "-csv", csvFile, good, huge)
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s\n%s", code, stdout, stderr)
	}
	rows := tableRows(stdout)
	if r := rows["good"]; r == nil || r[1] != "graded" {
		t.Errorf("good's row %q", r)
	}
	if r := rows["huge"]; r == nil || r[1] != "harness-error" || !strings.Contains(r[len(r)-1], "too large") {
		t.Errorf("huge's row %q", r)
	}
	data, _ := os.ReadFile(csvFile)
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil || len(recs) != 3 || strings.Join(recs[2][:3], ",") != "huge,,harness-error" ||
		!strings.HasPrefix(recs[2][6], "HARNESS-ERROR: copying ") {
		t.Errorf("CSV (%v):\n%s", err, data)
	}
}

func TestGradeUsageErrors(t *testing.T) {
	root := t.TempDir()
	a := makeSubmission(t, root, "a", "true")
	b := makeSubmission(t, root, "b", "true")
	out := filepath.Join(root, "out")
	os.MkdirAll(out, 0o755)
	os.WriteFile(filepath.Join(out, "a.json"), []byte(`{"version":1,"game":"stlucia","subject":"/elsewhere/a"}`), 0o644)
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"out without folders", []string{"-out", filepath.Join(root, "o")}, "-out needs the submissions' folders"},
		{"json for a cohort", []string{"-json", "x.json", a, b}, "for a cohort use -out"},
		{"json for a cohort with -out", []string{"-out", filepath.Join(root, "reports"), "-json", "x.json", a}, "for a cohort use -out"},
		{"gradescope for a cohort", []string{"-gradescope", "x.json", a, b}, "-gradescope is for one submission"},
		{"gradescope for a cohort with -out", []string{"-out", filepath.Join(root, "reports"), "-gradescope", "x.json", a, b}, "-gradescope is for one submission"},
		{"keep for a cohort", []string{"-keep", filepath.Join(root, "kept"), a, b}, "-keep is for one submission"},
		{"keep with -out", []string{"-keep", filepath.Join(root, "kept"), "-out", filepath.Join(root, "reports"), a}, "-keep is for one submission"},
		{"failfast for a cohort", []string{"-failfast", "-out", filepath.Join(root, "reports"), a, b}, "-failfast is for one submission"},
		{"-out and a missing folder", []string{"-out", filepath.Join(root, "reports"), a, filepath.Join(root, "missing")}, "missing: no such folder"},
		{"-keep and a bad -run", []string{"-keep", filepath.Join(root, "kept"), "-run", "(", a}, "-run"},
		{"-timeout 0", []string{"-timeout", "0", a}, "-timeout 0s: want a positive duration"},
		{"-timeout negative", []string{"-timeout", "-5s", a}, "-timeout -5s: want a positive duration"},
		{"-timeout after the folder", []string{a, "-timeout", "0"}, "-timeout 0s: want a positive duration"},
		{"-j 0", []string{"-j", "0", a}, "-j 0: want at least 1"},
		{"-cpu 0", []string{"-cpu", "0", a}, "-cpu 0: want more than 0 (leave it out for the game's default, 10s, stratego 1002s)"},
		{"-procs 0", []string{"-procs", "0", a}, "-procs 0: want more than 0"},
		{"-nofile 0", []string{"-nofile", "0", a}, "-nofile 0: want more than 0"},
		{"-mem 0", []string{"-mem", "0", a}, "-mem 0: want more than 0 (leave it out for the default, 1G)"},
		{"-mem -5", []string{"-mem", "-5", a}, `bad size "-5": want a size (e.g. 512M), or -1 for unlimited`},
		{"-fsize 0", []string{"-fsize", "0", a}, "-fsize 0: want more than 0"},
		{"-case-mem 0", []string{"-case-mem", "0", a}, "-case-mem 0: want more than 0"},
		{"-case-disk 0", []string{"-case-disk", "0", a}, "-case-disk 0: want more than 0"},
		{"-gradescope-visibility", []string{"-gradescope-visibility", "public", a}, `-gradescope-visibility "public": want one of`},
		{"-prog without a path", []string{"-prog", "EAIT", a}, `want NAME=PATH, got "EAIT"`},
		{"an unknown flag", []string{"-bogus", a}, "flag provided but not defined: -bogus"},
		{"not a folder", []string{a, filepath.Join(root, "missing")}, "missing: no such folder"},
		{"same folder twice", []string{a, b, a}, "given twice"},
		{"another run's report in -out", []string{"-out", out, a, b}, "is the report of another run"},
		{"bad -run", []string{"-run", "(", a, b}, "-run"},
		{"-run matching nothing", []string{"-run", "^hub_args_usage$", a}, `-run "^hub_args_usage$" matches no case of stlucia`},
		{"-explain with -run matching nothing", []string{"-explain", "-run", "^nothing$"}, "matches no case"},
		{"one missing folder", []string{filepath.Join(root, "missing")}, "missing: no such folder"},
		{"a file for a folder", []string{filepath.Join(a, "Makefile")}, "Makefile is not a folder"},
		{"niceness out of range", []string{"-nice", "50", a}, "-nice 50: want 0 to 19"},
	}
	ls := func(dir string) string {
		entries, _ := os.ReadDir(dir)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return strings.Join(names, " ")
	}
	here, _ := os.Getwd()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before, beforeHere := ls(root), ls(here)
			code, stdout, stderr := gauntlet(append([]string{"grade", "stlucia"}, tc.args...)...)
			if code != 2 || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("exit %d, stderr %q: want 2 and %q\nstdout: %s", code, stderr, tc.stderr, stdout)
			}
			// Nothing is made before a usage error is known: no -out or -keep folder.
			if after := ls(root); after != before {
				t.Errorf("the refused command left files behind: %q, was %q", after, before)
			}
			if after := ls(here); after != beforeHere {
				t.Errorf("the refused command changed the current folder: %q, was %q", after, beforeHere)
			}
		})
	}
}

// Help is asked for in any of the usual ways, before or after the game: it goes to stdout
// and exits 0. A usage error goes to stderr and exits 2.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"help"}, {"grade", "--help"}, {"grade", "-h"},
		{"grade", "stlucia", "-help"}, {"grade", "stlucia", "-j", "2", "--help"}, {"play", "--help"},
		{"play", "stlucia", "-h"}, {"fuzz", "--help"}, {"run", "--help"}} {
		code, stdout, stderr := gauntlet(args...)
		if code != 0 || !strings.HasPrefix(stdout, "usage: gauntlet") || stderr != "" {
			t.Errorf("gauntlet %s: exit %d, stdout %.40q..., stderr %q; want 0 and the usage on stdout", strings.Join(args, " "), code, stdout, stderr)
		}
	}
	if _, stdout, _ := gauntlet("grade", "--help"); !strings.Contains(stdout, "-procs") || !strings.Contains(stdout, "Games: clue, dealer2310, referee, stlucia, stratego") {
		t.Errorf("grade --help lacks the flags or the games:\n%s", stdout)
	}
	if _, stdout, _ := gauntlet("run", "--help"); !strings.Contains(stdout, "\n  await [NAME]\n") || !strings.Contains(stdout, "\n  freeport NAME\n") {
		t.Errorf("run --help does not list the script commands:\n%s", stdout)
	}
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"grade"}, "usage: gauntlet grade"},
		{[]string{"play"}, "usage: gauntlet play"},
		{[]string{"play", "stlucia", "-example", "q"}, `stlucia has no example "q" (examples: `},
		{[]string{"play", "chess"}, `no game "chess"`},
		{[]string{"help", "nosuch"}, "gauntlet help nosuch: unknown help topic; run 'gauntlet help' for the commands"},
		{[]string{"help", "grad"}, "unknown help topic (did you mean grade?)"},
	} {
		code, stdout, stderr := gauntlet(tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.stderr) || stdout != "" {
			t.Errorf("gauntlet %s: exit %d, stderr %q, stdout %q; want 2 and %q", strings.Join(tc.args, " "), code, stderr, stdout, tc.stderr)
		}
	}
}

// SIGINT to the real binary during a cohort run (-j 1, submissions a, b, c): it starts
// nothing more, lets the running case runs end, keeps the reports written, says what was
// interrupted, exits 2; a rerun with the same -out grades only what is missing. b's build
// takes half a second and its EAIT leaves a mark when it starts, so the signal can be sent
// while b builds (b gets no report) or while a case run of b's only case runs (that run
// ends, the case's other pairings do not start, as in a single grade, and b is shown
// interrupted after some of its case runs, with no report).
func TestCohortInterrupt(t *testing.T) {
	buildtest.Long(t)
	bin := buildtest.Path(t, "gauntlet/cmd/gauntlet")
	tests := []struct {
		name  string
		when  string // the file whose appearance triggers the signal
		bLast string // the start of b's row's last cell
	}{
		// a's last case run may leave its busy slot for a quiet one, and b build and
		// start before a's report is written: how far b got is not fixed.
		{"while b builds", "out/a.json", "interrupted after "},
		{"while b's case runs", "b-started", "interrupted after "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			bin := reachable(t, root, bin)
			a := makeSubmission(t, root, "a", goodRecipe(bin)...)
			slow := filepath.Join(root, "slow-eait")
			script := fmt.Sprintf("#!/bin/sh\ntouch %s/b-started\nsleep 0.3\nexec %s exec EAIT \"$@\"\n", root, bin)
			if err := execfile.Write(slow, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			os.Chmod(root, 0o777) // the sandbox user runs the slow EAIT, which leaves its mark here
			b := makeSubmission(t, root, "b", append(append([]string{"sleep 0.5"}, goodRecipe(bin)...), "ln -sf "+slow+" EAIT")...)
			c := makeSubmission(t, root, "c", goodRecipe(bin)...)
			out := filepath.Join(root, "out")
			args := []string{"grade", "stlucia", "-run", specCase, "-j", "1", "-out", out, a, b, c}

			start := time.Now()
			cmd := exec.Command(bin, args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) {
				if _, err := os.Stat(filepath.Join(root, tc.when)); err == nil {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("%s never appeared\n%s\n%s", tc.when, stdout.String(), stderr.String())
				}
			}
			cmd.Process.Signal(syscall.SIGINT)
			err := cmd.Wait()
			t.Logf("interrupted run: %v\n%s%s", time.Since(start), stdout.String(), stderr.String())
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 2 {
				t.Fatalf("interrupted run: %v, want exit 2\n%s\n%s", err, stdout.String(), stderr.String())
			}
			if !strings.Contains(stderr.String(), "starting nothing more") {
				t.Errorf("stderr does not say what happens: %s", stderr.String())
			}
			rows := tableRows(stdout.String())
			wantB := []string{"b", "interrupted", "-"}
			if r := rows["b"]; r == nil || !strings.HasPrefix(r[len(r)-1], tc.bLast) {
				t.Errorf("b's row %q, want it to end with %q", r, tc.bLast)
			}
			for _, want := range [][]string{{"a", "graded", "ok"}, wantB, {"c", "interrupted", "-"}} {
				if r := rows[want[0]]; len(r) < 3 || strings.Join(r[:3], " ") != strings.Join(want, " ") {
					t.Errorf("row %q, want %q", r, want)
				}
			}
			if r := rows["c"]; r == nil || r[len(r)-1] != "not started" {
				t.Errorf("c's row %q should say it was not started", r)
			}
			for name, want := range map[string]bool{"a": true, "b": false, "c": false} {
				if _, err := os.Stat(filepath.Join(out, name+".json")); (err == nil) != want {
					t.Errorf("%s.json written: %v, want %v", name, err == nil, want)
				}
			}

			start = time.Now()
			outb, err := exec.Command(bin, args...).Output()
			t.Logf("resumed run: %v\n%s", time.Since(start), outb)
			if err != nil {
				t.Fatalf("resumed run: %v, want exit 0\n%s", err, outb)
			}
			rows = tableRows(string(outb))
			wantB[1] = "graded"
			for _, want := range [][]string{{"a", "resumed"}, wantB[:2], {"c", "graded"}} {
				if r := rows[want[0]]; len(r) < 2 || r[1] != want[1] {
					t.Errorf("resumed row %q, want %q", r, want)
				}
			}
			for _, n := range []string{"a", "b", "c"} {
				allVerdicts(t, readReport(t, filepath.Join(out, n+".json")), grade.Pass)
			}
		})
	}
}

// SIGINT to the real binary while grading one folder (-j 1, the player_game_eait cases):
// the running case ends, nothing more starts, the summary shows what ran and says the run
// was interrupted, no -json file is written (a partial report is not a grade), exit 2.
// Usually one case runs when the interrupt comes; on a busy machine a case may look quiet
// for a moment while its programs start (asleep in the kernel, making a box), give its slot
// to the next one, and two run: each that started leaves its mark, and the summary must
// show as many, and fewer than the four.
func TestGradeInterrupt(t *testing.T) {
	t.Parallel() // a grade of its own, in a process of its own
	bin := buildtest.Path(t, "gauntlet/cmd/gauntlet")
	root := t.TempDir()
	bin = reachable(t, root, bin)
	slow := filepath.Join(root, "slow-eait")
	// The first case's EAIT works (a busy loop, never quiet: a quiet case would give its
	// slot to the next one) until the test has seen the grade take the interrupt.
	script := fmt.Sprintf("#!/bin/sh\nmktemp %s/started.XXXXXX >/dev/null\nwhile [ ! -e %s/go ]; do :; done\nexec %s exec EAIT \"$@\"\n", root, root, bin)
	if err := execfile.Write(slow, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(root, 0o777)
	sub := makeSubmission(t, root, "sub", append(goodRecipe(bin), "ln -sf "+slow+" EAIT")...)
	jsonFile := filepath.Join(root, "report.json")
	cmd := exec.Command(bin, "grade", "stlucia", "-j", "1", "-run", "^player_game_eait_", "-json", jsonFile, sub)
	// The slow EAIT lies outside the submission (and leaves its mark there): the boxes keep
	// its folder, as staff keep shared data a submission reads.
	cmd.Env = append(os.Environ(), scriptcmds.BoxKeepVar+"="+root)
	var stdout bytes.Buffer
	var stderr lockedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer os.WriteFile(filepath.Join(root, "go"), nil, 0o644) // (a failed test lets it go)
	started := func() int {
		m, _ := filepath.Glob(filepath.Join(root, "started.*"))
		return len(m)
	}
	buildtest.Await(t, "the first case's start", func() bool { return started() > 0 })
	cmd.Process.Signal(syscall.SIGINT)
	buildtest.Await(t, "the grade's word that it starts no more cases", func() bool {
		return strings.Contains(stderr.String(), "starting no more cases")
	})
	if err := os.WriteFile(filepath.Join(root, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	t.Logf("interrupted run:\n%s%s", stdout.String(), stderr.String())
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("interrupted run: %v, want exit 2", err)
	}
	if !strings.Contains(stderr.String(), "starting no more cases") {
		t.Errorf("stderr does not say what happens: %s", stderr.String())
	}
	n := started()
	if n >= 4 || !strings.Contains(stdout.String(), fmt.Sprintf("cases: PASS %d ", n)) || !strings.Contains(stdout.String(), fmt.Sprintf("INTERRUPTED after %d of 4 case runs", n)) {
		t.Errorf("the summary should show the %d case(s) that ran, fewer than 4, and say the run was interrupted:\n%s", n, stdout.String())
	}
	if _, err := os.Stat(jsonFile); err == nil {
		t.Errorf("a partial report was written to %s", jsonFile)
	}
	// The interrupted grade removed its case groups (before 2026-11-28 every grade left them).
	if left := cgroupsOf(cmd.Process.Pid); len(left) > 0 {
		t.Errorf("the interrupted grade left its cgroups: %v", left)
	}
}

// cgroupsOf lists the cgroups that process pid made (cgroup.OwnedName) and left, under the
// cgroup folders of this process, where the grader made them.
func cgroupsOf(pid int) []string {
	var left []string
	prefix := "gauntlet-P" + strconv.Itoa(pid) + "-"
	filepath.WalkDir("/sys/fs/cgroup", func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if strings.HasPrefix(d.Name(), prefix) {
			left = append(left, p)
			return filepath.SkipDir
		}
		if strings.HasPrefix(d.Name(), "gauntlet-") {
			return filepath.SkipDir
		}
		return nil
	})
	return left
}

// lockedBuffer is a bytes.Buffer that a command writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
