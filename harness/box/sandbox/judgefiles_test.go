package sandbox_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gauntlet/harness/box/sandbox"
	"gauntlet/internal/buildtest"
)

// TestBoxMasksTheJudgesFiles: the judge's binary installed where the boxes look (a folder
// of GAUNTLET_BOX_BIND, as /usr/local/bin or a cluster's shared bin folder would be),
// as a hard link under another name and as a copy under any name, is an empty file in the
// box that no program can read or run; the other programs of the folder are as they are.
// Before 2026-12-07 a box ran them, and a submission with no game logic that exec'd
// gauntlet by its own program's name scored 42/42.
func TestBoxMasksTheJudgesFiles(t *testing.T) {
	boxOrSkip(t)
	shared := t.TempDir()
	buildtest.SearchableByOthers(t, shared)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"copy-named-cc", "true", "runnable-only"}
	copyFile(t, self, filepath.Join(shared, "copy-named-cc"), 0o755)
	// One the grader cannot read when it is not root: its size gives it away.
	copyFile(t, self, filepath.Join(shared, "runnable-only"), 0o111)
	copyFile(t, "/bin/true", filepath.Join(shared, "true"), 0o755)
	if err := os.Link(self, filepath.Join(shared, "linked")); err == nil {
		names = append(names, "linked")
	} else {
		t.Logf("no hard link of the test binary here (%v): the copy alone", err)
	}
	t.Setenv(sandbox.BindVar, shared)
	script := ""
	for _, n := range names {
		f := filepath.Join(shared, n)
		script += `test -s ` + f + ` && echo "` + n + `: seen" || echo "` + n + `: masked"
` + f + ` </dev/null >/dev/null 2>&1; echo "` + n + `: ran $?"
`
	}
	res, err := sandbox.Run(sandbox.Config{Box: &sandbox.Box{}}, sandbox.Spec{Path: "/bin/sh", Args: []string{"-c", script}})
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.Procs[0].Stdout)
	want := []string{"true: seen\n", "true: ran 0\n", "copy-named-cc: masked\n", "copy-named-cc: ran 126\n",
		"runnable-only: masked\n", "runnable-only: ran 126\n"}
	if len(names) == 4 {
		want = append(want, "linked: masked\n", "linked: ran 126\n")
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("want %q; the box said:\n%s%s", w, out, res.Procs[0].Stderr)
		}
	}
	if got := sandbox.JudgeFiles(); !containsAll(got, filepath.Join(shared, "copy-named-cc")) {
		t.Errorf("JudgeFiles = %q, want the copy", got)
	}
}

func containsAll(list []string, want ...string) bool {
	for _, w := range want {
		found := false
		for _, l := range list {
			found = found || l == w
		}
		if !found {
			return false
		}
	}
	return true
}

// copyFile copies from to to with mode.
func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_EXCL, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
