package outcome

import (
	"os"
	"path/filepath"
	"testing"
)

func TestAppendReadLast(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, File)
	if _, ok, err := Last(path); ok || err != nil {
		t.Fatalf("no file: ok %v, err %v; want neither", ok, err)
	}
	a := Record{Kind: Exit, By: "run", Program: "./p", Want: "0", Got: "3", Message: "run: ./p: want exit 0, got 3"}
	b := Record{Kind: Silent, By: "run", Judge: "mockhub", Step: 2, Want: `"X\n"`, Got: "nothing within 5s"}
	for _, r := range []Record{a, b} {
		if err := Append(path, r); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := Read(path)
	if err != nil || len(recs) != 2 || recs[0] != a || recs[1] != b {
		t.Fatalf("read %+v, %v; want the two records in order", recs, err)
	}
	if last, ok, err := Last(path); !ok || err != nil || last != b {
		t.Errorf("last %+v (%v, %v), want the second", last, ok, err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the file's mode: %v, %v; want 0600", st.Mode(), err)
	}
}

// A link planted where the records go is not followed.
func TestAppendRefusesALink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	link := filepath.Join(dir, File)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := Append(link, Record{Kind: Harness}); err == nil {
		t.Error("appended through a symbolic link")
	}
	if _, err := os.Stat(target); err == nil {
		t.Error("the link's target was made")
	}
}

func TestKindsAreDistinct(t *testing.T) {
	seen := map[Kind]bool{}
	for _, k := range Kinds() {
		if k == "" || seen[k] {
			t.Errorf("kind %q empty or listed twice", k)
		}
		seen[k] = true
	}
}

// A judge takes its file from the environment and leaves none of it to what it starts.
func TestTakeVar(t *testing.T) {
	path := filepath.Join(t.TempDir(), "judge.jsonl")
	t.Setenv(Var, path)
	r := Reporter(TakeVar())
	if _, set := os.LookupEnv(Var); set || string(r) != path {
		t.Fatalf("reporter %q, %s still set %v", r, Var, set)
	}
	if err := r.Report("mockhub", Record{Kind: Diverged}); err != nil {
		t.Fatal(err)
	}
	if rec, ok, _ := Last(path); !ok || rec.Judge != "mockhub" || rec.Kind != Diverged {
		t.Errorf("record %+v, want the judge's divergence", rec)
	}
	if err := Reporter("").Report("mockhub", Record{Kind: Diverged}); err != nil {
		t.Errorf("a reporter without a file: %v", err)
	}
}
