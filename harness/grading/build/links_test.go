package build

import (
	"os"
	"path/filepath"
	"testing"

	"gauntlet/harness/box/sandbox"
)

// TestProgramLinksFollowedAsInABox: a built program that is a link is followed as a box
// would follow it. A link through /proc (/proc/self/exe, which in the grader's process is
// the grader, and in a box whichever process execs it) or /dev is not a program, nor is a
// link to the judge's binary installed where the boxes look (a folder of
// GAUNTLET_BOX_BIND); a link to a system program or within the submission is. Before
// 2026-12-07 `ln -s /proc/self/exe 2310dealer` was taken for a program, and with gauntlet
// in a bound folder earned every dealer mark.
func TestProgramLinksFollowedAsInABox(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	self, err = filepath.EvalSymlinks(self)
	if err != nil {
		t.Fatal(err)
	}
	shared := t.TempDir()
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(shared, "tool"), data, 0o755); err != nil {
		t.Fatal(err)
	}
	// The folders of the grader's binary and of a copy of it are ones the boxes show.
	t.Setenv(sandbox.BindVar, filepath.Dir(self)+string(os.PathListSeparator)+shared)
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "real"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"self":   "/proc/self/exe",
		"viaDev": "/dev/fd/../../proc/self/exe",
		"pid1":   "/proc/1/root" + self,
		"hop":    "self",
		"judge":  filepath.Join(shared, "tool"),
		"grader": self,
		"truth":  "/bin/true",
		"inside": "real",
	}
	for name, to := range links {
		if err := os.Symlink(to, filepath.Join(src, name)); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]bool{"self": false, "viaDev": false, "pid1": false, "hop": false,
		"judge": false, "grader": false, "truth": true, "inside": true} {
		if _, ok := program(src, name, nil); ok != want {
			t.Errorf("a link %s -> %s: program %v, want %v", name, links[name], ok, want)
		}
	}
}
