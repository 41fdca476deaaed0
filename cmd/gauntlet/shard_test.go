package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gauntlet/harness/grading/grade"
	"gauntlet/internal/buildtest"
	"gauntlet/programs"
)

// -shard's value and the flags it needs are checked before anything is made: exit 2 with
// a message naming the flag, and no -out folder left behind.
func TestShardUsageErrors(t *testing.T) {
	root := t.TempDir()
	sub := makeSubmission(t, root, "alice", "true")
	out := filepath.Join(root, "out")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-shard", "0/2", "-out", out, sub}, `invalid value "0/2" for flag -shard: 0/2: want K from 1 to 2`},
		{[]string{"-shard", "3/2", "-out", out, sub}, `invalid value "3/2" for flag -shard: 3/2: want K from 1 to 2`},
		{[]string{"-shard", "1/0", "-out", out, sub}, `1/0: want at least one part`},
		{[]string{"-shard", "2", "-out", out, sub}, `want K/N, such as 2/8`},
		{[]string{"-shard", "a/b", "-out", out, sub}, `want K/N, such as 2/8`},
		{[]string{"-shard", "1/2", sub}, `-shard needs -out DIR`},
		{[]string{"-shard", "1/2", "-out", out}, `-shard needs the whole cohort's folders`},
		{[]string{"-shard", "1/2", "-out", out, "-json", filepath.Join(root, "r.json"), sub}, `-json writes one subject's report`},
		{[]string{"-shard", "1/2", "-out", out, sub, sub}, `is given twice`},
	} {
		code, _, stderr := gauntlet(append([]string{"grade", "dealer2310"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("grade %v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("grade %v made the -out folder", tc.args)
		}
	}
}

// The parts: every submission in exactly one, their numbers within one of each other,
// dealt largest first in snake order, the same whatever the order of the arguments; names
// given in the whole cohort (two folders called "ann" are ann and ann-2 in every shard).
func TestShardPlan(t *testing.T) {
	root := t.TempDir()
	sizes := map[string]int{"a/ann": 700, "b/ann": 100, "bob": 600, "cat": 500, "dan": 400, "eve": 300, "fay": 200, "gus": 0}
	var dirs []string
	for rel, size := range sizes {
		d := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Join(d, ".git"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "x.c"), bytes.Repeat([]byte("x"), size), 0o644); err != nil {
			t.Fatal(err)
		}
		// A repository's history does not count.
		if err := os.WriteFile(filepath.Join(d, ".git", "pack"), make([]byte, 5000), 0o644); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	slices.Sort(dirs)
	plan := func(n int, dirs []string) *shardManifest {
		t.Helper()
		m, err := planShard(dirs, gradeFlags{shard: shardFlag{1, n}}, "dealer2310", "sha256:x")
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := plan(3, dirs)
	// Sizes 700 ann, 600 bob, 500 cat | 400 dan, 300 eve, 200 fay | 100 ann-2, 0 gus:
	// parts 1 2 3 | 3 2 1 | 1 2.
	want := map[string]int{"ann": 1, "bob": 2, "cat": 3, "dan": 3, "eve": 2, "fay": 1, "ann-2": 1, "gus": 2}
	for _, s := range m.Cohort {
		size := sizes[strings.TrimPrefix(s.Subject, root+"/")]
		if s.Shard != want[s.Name] || s.Size != int64(size) {
			t.Errorf("%s (%s, size %d): part %d, want %d (size %d)", s.Name, s.Subject, s.Size, s.Shard, want[s.Name], size)
		}
	}
	if names := func() (n []string) {
		for _, s := range m.Cohort {
			n = append(n, s.Name)
		}
		return
	}(); !slices.Equal(names, []string{"ann", "ann-2", "bob", "cat", "dan", "eve", "fay", "gus"}) {
		t.Errorf("cohort in path order: %v", names)
	}
	reversed := slices.Clone(dirs)
	slices.Reverse(reversed)
	if again := plan(3, reversed); !slices.Equal(again.Cohort, m.Cohort) {
		t.Errorf("reordered arguments deal otherwise:\n%+v\n%+v", again.Cohort, m.Cohort)
	}
	for _, n := range []int{1, 2, 3, 5, 8, 11} {
		count := make([]int, n+1)
		for _, s := range plan(n, dirs).Cohort {
			count[s.Shard]++
		}
		if lo, hi := slices.Min(count[1:]), slices.Max(count[1:]); hi-lo > 1 {
			t.Errorf("%d parts: counts %v", n, count[1:])
		}
	}
	mine, names := m.mine(1)
	if !slices.Equal(names, []string{"ann", "ann-2", "fay"}) || len(mine) != 3 || mine[1] != filepath.Join(root, "b/ann") {
		t.Errorf("part 1: %v %v", names, mine)
	}
}

// csvWithoutSeconds is a CSV file with its seconds column emptied: the wall time of a
// grade is the one cell two grades of the same submissions do not share.
func csvWithoutSeconds(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("%s: %v", path, err)
	}
	col := slices.Index(recs[0], "seconds")
	if col < 0 {
		t.Fatalf("%s: no seconds column", path)
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	for i, r := range recs {
		if i > 0 {
			r[col] = ""
		}
		w.Write(r)
	}
	w.Flush()
	return b.Bytes()
}

// Two shards graded apart and merged give exactly the marks of one cohort grade of the
// same submissions: the CSVs are byte-equal but for the seconds column. A cohort of four
// dealer2310 submissions: the buggy fixture (some marks), one that behaves as the
// reference, one whose make fails and one that builds nothing. Then what merge says of a
// report missing, one graded twice, and one made on another suite.
func TestShardsMergedAsOneCohort(t *testing.T) {
	buildtest.Long(t) // three cohort grades
	exe := gauntletBinary(t)
	root := t.TempDir()
	exe = reachable(t, root, exe)
	_, here, _, _ := runtime.Caller(0)
	fixture := filepath.Join(filepath.Dir(here), "..", "..", "fixtures", "submissions", "buggy2310")
	zed := filepath.Join(root, "zed")
	if err := os.CopyFS(zed, os.DirFS(fixture)); err != nil {
		t.Fatal(err)
	}
	var good []string
	for _, p := range []string{"2310dealer", "2310A", "2310B"} {
		good = append(good, fmt.Sprintf("ln -sf %s %s", exe, p))
	}
	dirs := []string{
		makeSubmission(t, root, "amy", brokenRecipe...),
		makeSubmission(t, root, "bob", good...),
		makeSubmission(t, root, "kim", "true"),
		zed,
	}
	cases := []string{"-run", `^player_A_(args|first)`, "-j", "2"}
	out1, out2, outAll := filepath.Join(root, "out1"), filepath.Join(root, "out2"), filepath.Join(root, "all")
	oneCSV, mergedCSV := filepath.Join(root, "one.csv"), filepath.Join(root, "merged.csv")
	mergedJSON, mergedHTML := filepath.Join(root, "merged.json"), filepath.Join(root, "merged.html")

	code, stdout, stderr := gauntlet(append(append([]string{"grade", "dealer2310"}, cases...), append([]string{"-out", outAll, "-csv", oneCSV}, dirs...)...)...)
	if code != 1 {
		t.Fatalf("unsharded: exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	// The shards are given the folders in other orders.
	shuffled := [][]string{{dirs[3], dirs[1], dirs[0], dirs[2]}, {dirs[2], dirs[0], dirs[3], dirs[1]}}
	graded := map[string]string{}
	for k, out := range []string{out1, out2} {
		code, stdout, stderr := gauntlet(append(append([]string{"grade", "dealer2310", "-shard", fmt.Sprintf("%d/2", k+1), "-out", out}, cases...), shuffled[k]...)...)
		if code != 1 && code != 0 {
			t.Fatalf("shard %d/2: exit %d\n%s\n%s", k+1, code, stdout, stderr)
		}
		if !strings.Contains(stderr, fmt.Sprintf("gauntlet grade: shard %d/2: 2 of the cohort's 4 submissions: ", k+1)) {
			t.Errorf("shard %d/2 does not say what it grades:\n%s", k+1, stderr)
		}
		reports, _ := filepath.Glob(filepath.Join(out, "*.json"))
		for _, r := range reports {
			name := strings.TrimSuffix(filepath.Base(r), ".json")
			if prev, ok := graded[name]; ok {
				t.Errorf("%s graded by two shards: %s, %s", name, prev, out)
			}
			graded[name] = out
		}
		if _, err := os.Stat(filepath.Join(out, manifestName(k+1, 2))); err != nil {
			t.Errorf("shard %d/2 left no manifest: %v", k+1, err)
		}
	}
	if len(graded) != 4 {
		t.Fatalf("the shards graded %v, want the 4 submissions", graded)
	}

	code, stdout, stderr = gauntlet("merge", "-csv", mergedCSV, "-json", mergedJSON, "-html", mergedHTML, out1, out2)
	if code != 1 {
		t.Fatalf("merge: exit %d, want 1 (failures)\n%s\n%s", code, stdout, stderr)
	}
	if one, merged := csvWithoutSeconds(t, oneCSV), csvWithoutSeconds(t, mergedCSV); !bytes.Equal(one, merged) {
		t.Errorf("merged CSV differs from the unsharded one:\n%s\nwant:\n%s", merged, one)
	}
	if rows := tableRows(stdout); len(rows) != 5 || rows["zed"][1] != "graded" { // the header and 4 rows
		t.Errorf("merge's table:\n%s", stdout)
	}
	if !strings.Contains(stderr, "gauntlet merge: 4 reports from 2 folders, 2 of the 2 shards' manifests") {
		t.Errorf("merge's account:\n%s", stderr)
	}
	var cj grade.CohortReport
	data, _ := os.ReadFile(mergedJSON)
	if err := json.Unmarshal(data, &cj); err != nil {
		t.Fatal(err)
	}
	if cj.Game != "dealer2310" || len(cj.Submissions) != 4 || cj.Dashboard.Graded != 4 || cj.Suite == "" || cj.Gauntlet == "" {
		t.Errorf("merged JSON: %+v", cj)
	}
	if page, _ := os.ReadFile(mergedHTML); !bytes.Contains(page, []byte(`<svg id="distribution"`)) || !bytes.Contains(page, []byte(`id="submission-4"`)) {
		t.Errorf("merged HTML lacks the dashboard or a report")
	}

	// One report gone: the row says which shard was to grade it; the files are still
	// written; exit 2.
	gone := filepath.Join(graded["zed"], "zed.json")
	saved, _ := os.ReadFile(gone)
	os.Remove(gone)
	code, stdout, stderr = gauntlet("merge", "-csv", mergedCSV, out1, out2)
	if code != 2 || !strings.Contains(stderr, "zed ("+zed+"): missing: no report: shard ") || tableRows(stdout)["zed"][1] != "missing" {
		t.Errorf("merge without zed's report: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if recs := csvWithoutSeconds(t, mergedCSV); !bytes.Contains(recs, []byte(`zed,,missing,,,,"no report: shard `)) {
		t.Errorf("the CSV has no missing row for zed:\n%s", recs)
	}
	// And its shard's manifest gone too: that shard never ran, as far as merge can tell.
	manifests, _ := filepath.Glob(filepath.Join(graded["zed"], "*"+manifestSuffix))
	if len(manifests) != 1 {
		t.Fatalf("manifests in %s: %v", graded["zed"], manifests)
	}
	manifest, _ := os.ReadFile(manifests[0])
	os.Remove(manifests[0])
	code, _, stderr = gauntlet("merge", out1, out2)
	if code != 2 || !strings.Contains(stderr, "and left no manifest ("+filepath.Base(manifests[0])+"): did it run, with this -out?") {
		t.Errorf("merge without zed's report and its shard's manifest: exit %d\n%s", code, stderr)
	}
	// Manifests that deal out different cohorts (a folder changed between the shards'
	// starts): nothing is merged.
	os.WriteFile(manifests[0], bytes.Replace(manifest, []byte(`"size": `), []byte(`"size": 1`), 1), 0o644)
	code, _, stderr = gauntlet("merge", out1, out2)
	if code != 2 || !strings.Contains(stderr, "deal out different cohorts") {
		t.Errorf("merge of manifests of two cohorts: exit %d\n%s", code, stderr)
	}
	os.WriteFile(manifests[0], manifest, 0o644)
	// Graded twice: in both folders.
	os.WriteFile(gone, saved, 0o644)
	other := out1
	if graded["zed"] == out1 {
		other = out2
	}
	os.WriteFile(filepath.Join(other, "zed.json"), saved, 0o644)
	code, _, stderr = gauntlet("merge", out1, out2)
	if code != 2 || !strings.Contains(stderr, "zed: graded twice, with the same marks: ") {
		t.Errorf("merge with zed twice: exit %d\n%s", code, stderr)
	}
	os.Remove(filepath.Join(other, "zed.json"))
	// Another suite: nothing is written.
	var r map[string]any
	json.Unmarshal(saved, &r)
	r["suite"] = "sha256:another"
	edited, _ := json.Marshal(r)
	os.WriteFile(gone, edited, 0o644)
	os.Remove(mergedCSV)
	code, _, stderr = gauntlet("merge", "-csv", mergedCSV, out1, out2)
	if code != 2 || !strings.Contains(stderr, "the reports were not all made by the same gauntlet, game and suite:") || !strings.Contains(stderr, "suite sha256:another") {
		t.Errorf("merge with another suite: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(mergedCSV); err == nil {
		t.Error("merge wrote a CSV from reports of two suites")
	}
	// A report with a harness error: the files are written, the error named, exit 2.
	delete(r, "suite")
	r["suite"] = readReport(t, filepath.Join(graded["bob"], "bob.json")).Suite
	r["harness_errors"] = []string{"player_A_args_x: the grader failed"}
	edited, _ = json.Marshal(r)
	os.WriteFile(gone, edited, 0o644)
	code, _, stderr = gauntlet("merge", "-csv", mergedCSV, out1, out2)
	if code != 2 || !strings.Contains(stderr, "gauntlet merge: zed: HARNESS-ERROR in 1 case(s), not marked: player_A_args_x: the grader failed") {
		t.Errorf("merge with a harness error: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(mergedCSV); err != nil {
		t.Errorf("merge with a harness error wrote no CSV: %v", err)
	}
}

// merge's usage errors: no folder, a folder that is not one, two reports on stdout, a
// folder without reports, a file that is not a report; each exit 2.
func TestMergeUsageErrors(t *testing.T) {
	root := t.TempDir()
	empty := filepath.Join(root, "empty")
	junk := filepath.Join(root, "junk")
	os.MkdirAll(empty, 0o755)
	os.MkdirAll(junk, 0o755)
	os.WriteFile(filepath.Join(junk, "notes.json"), []byte(`{"hello": 1}`), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "gauntlet merge: name the folders of the reports"},
		{[]string{filepath.Join(root, "nosuch")}, "no such folder"},
		{[]string{"-csv", "-", "-json", "-", empty}, "only one report can go to stdout"},
		{[]string{"-csv", filepath.Join(root, "nosuch", "x.csv"), empty}, "-csv " + filepath.Join(root, "nosuch", "x.csv") + ": no folder"},
		{[]string{empty}, "no report (NAME.json) and no shard manifest in " + empty},
		{[]string{junk}, "notes.json is not a report of a submission"},
		{[]string{empty, empty}, "is given twice"},
	} {
		code, _, stderr := gauntlet(append([]string{"merge"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("merge %v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// Every report names its grader and the digest of the cases it ran, a single subject's
// and a cohort's; a resumed cohort run does not trust a report in -out made on other
// cases, even with the same case ids (a case edited).
func TestReportsNameGraderAndSuite(t *testing.T) {
	buildtest.Long(t) // three grades
	gauntletBinary(t)
	root := t.TempDir()
	const cases = "^dealer_args_usage_"
	g, _ := programs.GradeGame("dealer2310")
	all, err := loadSuite(g, "")
	if err != nil {
		t.Fatal(err)
	}
	suite := grade.SuiteDigest(selectCases(all, regexp.MustCompile(cases)))
	file := filepath.Join(root, "ref.json")
	if code, _, stderr := gauntlet("grade", "dealer2310", "-run", cases, "-json", file); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if r := readReport(t, file); r.Gauntlet != graderID() || r.Suite != suite || !strings.HasPrefix(r.Gauntlet, "gauntlet ") {
		t.Errorf("report names grader %q and suite %q, want %q and %q", r.Gauntlet, r.Suite, graderID(), suite)
	}
	amy := makeSubmission(t, root, "amy", brokenRecipe...)
	out := filepath.Join(root, "out")
	if code, _, stderr := gauntlet("grade", "dealer2310", "-run", cases, "-out", out, amy); code != 1 {
		t.Fatalf("cohort: exit %d\n%s", code, stderr)
	}
	saved := filepath.Join(out, "amy.json")
	if r := readReport(t, saved); r.Gauntlet != graderID() || r.Suite != suite {
		t.Errorf("the cohort's report names grader %q and suite %q, want %q and %q", r.Gauntlet, r.Suite, graderID(), suite)
	}
	data, _ := os.ReadFile(saved)
	edited := bytes.Replace(data, []byte(suite), []byte("sha256:0"), 1)
	if err := os.WriteFile(saved, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := gauntlet("grade", "dealer2310", "-run", cases, "-out", out, amy)
	if code != 2 || !strings.Contains(stderr, "amy.json covers other cases") {
		t.Errorf("resumed over a report of another suite: exit %d\n%s", code, stderr)
	}
	if now, _ := os.ReadFile(saved); !bytes.Equal(now, edited) {
		t.Error("the report of another suite was overwritten")
	}
}

// With -steal and one shared -out, a shard that runs alone grades its own part and then
// the other part's submissions (their reports are in -out, under the cohort's names); the
// other shard, run after it, finds every report there and grades nothing again; merge
// finds no submission missing and none graded twice.
func TestShardStealsUnstartedSubmissions(t *testing.T) {
	buildtest.Long(t)
	exe := gauntletBinary(t)
	root := t.TempDir()
	exe = reachable(t, root, exe)
	var good []string
	for _, p := range []string{"2310dealer", "2310A", "2310B"} {
		good = append(good, fmt.Sprintf("ln -sf %s %s", exe, p))
	}
	dirs := []string{makeSubmission(t, root, "amy", good...), makeSubmission(t, root, "bob", good...),
		makeSubmission(t, root, "cal", good...), makeSubmission(t, root, "dee", good...)}
	out := filepath.Join(root, "out")
	args := func(k int) []string {
		return append([]string{"grade", "dealer2310", "-run", `^player_A_args_count_empty$`, "-shard", fmt.Sprintf("%d/2", k), "-steal", "-out", out}, dirs...)
	}
	code, stdout, stderr := gauntlet(args(2)...)
	if code != 0 {
		t.Fatalf("shard 2/2: exit %d\n%s\n%s", code, stdout, stderr)
	}
	rows := tableRows(stdout)
	for _, n := range []string{"amy", "bob", "cal", "dee"} {
		if r := rows[n]; len(r) < 2 || r[1] != "graded" {
			t.Errorf("shard 2/2 alone: %s's row %q, want graded", n, r)
		}
		if _, err := os.Stat(filepath.Join(out, n+".json")); err != nil {
			t.Errorf("no report of %s: %v", n, err)
		}
	}
	code, stdout, stderr = gauntlet(args(1)...)
	if code != 0 || strings.Contains(stdout, "graded ") {
		t.Errorf("shard 1/2 after it: exit %d, graded something again\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = gauntlet("merge", out)
	if code != 0 || strings.Contains(stdout+stderr, "missing") || strings.Contains(stdout+stderr, "twice") {
		t.Errorf("merge: exit %d\n%s\n%s", code, stdout, stderr)
	}
}
