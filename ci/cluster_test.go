package ci

import (
	"bytes"
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"gauntlet/harness/box/execfile"
	"gauntlet/internal/buildtest"
)

// clusterFlags select a few dealer2310 cases (the player's arguments and first move), so
// that a cohort of small submissions grades in seconds.
const clusterFlags = "-run ^player_A_(args|first)"

// smallCohort lays out a cohort in root as the cluster set-ups expect it: the gauntlet
// binary at root/gauntlet, and four submissions in root/submissions: amy (make fails), bob
// (the reference's programs: links to a copy of gauntlet it holds), kim (builds nothing)
// and zed (the buggy fixture, some marks).
func smallCohort(t *testing.T, root string) string {
	t.Helper()
	bin, err := os.ReadFile(buildtest.Path(t, "gauntlet/cmd/gauntlet"))
	if err != nil {
		t.Fatal(err)
	}
	gauntlet := filepath.Join(root, "gauntlet")
	if err := execfile.Write(gauntlet, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	subs := filepath.Join(root, "submissions")
	makefiles := map[string]string{
		"amy": "all:\n\t@echo 'hub.c:3:1: error: expected ; before }'\n\t@false\n",
		"bob": "all:\n\tln -sf gauntlet-bin 2310dealer\n\tln -sf gauntlet-bin 2310A\n\tln -sf gauntlet-bin 2310B\n",
		"kim": "all:\n\ttrue\n",
	}
	for name, mk := range makefiles {
		if err := os.MkdirAll(filepath.Join(subs, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(subs, name, "Makefile"), []byte(mk), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := execfile.Write(filepath.Join(subs, "bob", "gauntlet-bin"), bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(subs, "zed"), os.DirFS(filepath.Join("..", "fixtures", "submissions", "buggy2310"))); err != nil {
		t.Fatal(err)
	}
	return gauntlet
}

// unshardedCSV grades root/submissions/*/ as one cohort on one machine, with
// clusterFlags, and returns its CSV without the seconds column.
func unshardedCSV(t *testing.T, gauntlet, root string) []byte {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(root, "submissions", "*"))
	out := t.TempDir()
	args := append([]string{"grade", "dealer2310", "-run", "^player_A_(args|first)", "-out", filepath.Join(out, "reports"), "-csv", filepath.Join(out, "one.csv")}, dirs...)
	cmd := exec.Command(gauntlet, args...)
	text, _ := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Fatalf("the unsharded grade: exit %d, want 1\n%s", code, text)
	}
	return withoutSeconds(t, filepath.Join(out, "one.csv"))
}

// withoutSeconds is a cohort CSV with its seconds column emptied (each grade's wall time,
// the one cell two grades of the same submissions do not share).
func withoutSeconds(t *testing.T, file string) []byte {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("%s: %v, %d records", file, err, len(recs))
	}
	col := slices.Index(recs[0], "seconds")
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	for i, r := range recs {
		if i > 0 && col >= 0 {
			r[col] = ""
		}
		w.Write(r)
	}
	w.Flush()
	return b.Bytes()
}

// sameMarks fails the test unless the merged CSV holds exactly the unsharded one's rows.
func sameMarks(t *testing.T, merged string, want []byte) {
	t.Helper()
	got := withoutSeconds(t, merged)
	if !bytes.Equal(got, want) {
		t.Errorf("the merged CSV differs from the unsharded grade's:\n%s\nwant:\n%s", got, want)
	}
	if n := bytes.Count(got, []byte("\n")); n != 5 {
		t.Errorf("the merged CSV has %d lines, want a header and 4 rows", n)
	}
}

// runScript runs a shell script of a set-up with the given environment added, and
// returns its exit status and output.
func runScript(t *testing.T, script string, env ...string) (int, string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil && cmd.ProcessState == nil {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), string(out)
}
