package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// A binary without a stamped revision (go run) reads it from the checkout it runs in, and
// says so; a stamped one says its own; outside a gauntlet source tree it says how to find it.
func TestVersionWithoutStamp(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", root, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module gauntlet\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(root, "cmd", "gauntlet")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	git("add", "go.mod")
	git("commit", "-q", "-m", "one")
	head := git("rev-parse", "HEAD")
	devel := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "gauntlet", Version: "(devel)"}}

	want := "gauntlet (devel) revision " + head + " go1.26.0 (revision read at run time from the checkout " + root + ": the binary has none stamped, as with go run)"
	if got := versionOf(devel, true, sub); got != want {
		t.Errorf("clean checkout:\n got %s\nwant %s", got, want)
	}
	if err := os.WriteFile(filepath.Join(root, "new.go"), []byte("package x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := versionOf(devel, true, root); !strings.Contains(got, "revision "+head+" (modified) go1.26.0 (revision read at run time") {
		t.Errorf("changed checkout: %s", got)
	}
	stamped := &debug.BuildInfo{GoVersion: "go1.26.0", Main: devel.Main, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"}}}
	if got := versionOf(stamped, true, root); got != "gauntlet (devel) revision abc go1.26.0" {
		t.Errorf("stamped: %s", got)
	}
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "go.mod"), []byte("module example.com/other\n"), 0o644)
	if got := versionOf(devel, true, other); !strings.Contains(got, "no revision stamped in this binary, as with go run: run it from the source folder") {
		t.Errorf("outside the source tree: %s", got)
	}
}
