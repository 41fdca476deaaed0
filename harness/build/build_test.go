package build

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func write(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBuildCountsWarningsAndFindsPrograms(t *testing.T) {
	src := t.TempDir()
	write(t, src, "Makefile", "all: good\ngood: good.c\n\tgcc -Wall -pedantic -std=gnu99 -o good good.c\n")
	write(t, src, "good.c", "#include <stdio.h>\nint main(void) { int unused; printf(\"hi\\n\"); return 0; }\n")
	write(t, src, ".git/config", "not copied")
	res, err := Build(src, t.TempDir(), []string{"good", "absent"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK || res.Warnings != 1 || res.Programs["good"] == "" || len(res.Missing) != 1 || res.Missing[0] != "absent" {
		t.Fatalf("result %+v\nlog:\n%s", res, res.Log)
	}
	if _, err := os.Stat(filepath.Join(res.Dir, ".git")); err == nil {
		t.Error(".git was copied")
	}
	if _, err := os.Stat(filepath.Join(src, "good")); err == nil {
		t.Error("make wrote into the submission's own folder")
	}
	if !strings.Contains(res.Summary(), "1 warning(s), missing: absent") {
		t.Errorf("summary %q", res.Summary())
	}
}

func TestBuildFailure(t *testing.T) {
	src := t.TempDir()
	write(t, src, "Makefile", "all:\n\tgcc -o bad bad.c\n")
	write(t, src, "bad.c", "int main(void) { return nope; }\n")
	res, err := Build(src, t.TempDir(), []string{"bad"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK || !strings.Contains(res.Log, "nope") || !strings.HasPrefix(res.Summary(), "BUILD-FAIL: make exited with status 2") {
		t.Fatalf("result %+v", res)
	}
}

func TestBuildTimeoutKillsMakeAndChildren(t *testing.T) {
	src := t.TempDir()
	write(t, src, "Makefile", "all:\n\tsleep 60\n")
	start := time.Now()
	res, err := Build(src, t.TempDir(), nil, Options{Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK || !strings.Contains(res.Problem, "did not finish within 300ms") {
		t.Fatalf("result %+v", res)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %v", d)
	}
}

func TestNoBuild(t *testing.T) {
	src := t.TempDir()
	write(t, src, "Makefile", "all:\n\tfalse\n")
	write(t, src, "prog", "#!/bin/sh\n")
	os.Chmod(filepath.Join(src, "prog"), 0o755)
	res, err := Build(src, t.TempDir(), []string{"prog"}, Options{NoBuild: true})
	if err != nil || !res.OK || res.Programs["prog"] == "" {
		t.Fatalf("result %+v, %v", res, err)
	}
}

func TestCountWarnings(t *testing.T) {
	log := "a.c:1:2: warning: x [-Wunused]\nb.c:3: warning: y\nwarning: not a compiler line\na.c:4:1: error: z\n"
	if n := CountWarnings(log); n != 2 {
		t.Fatalf("CountWarnings = %d, want 2", n)
	}
}
