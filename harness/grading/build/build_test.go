package build

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gauntlet/harness/box/sandbox"
	"gauntlet/internal/buildtest"
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
	t.Parallel() // a build of its own: beside the memory-total tests, which wait
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
	t.Parallel() // a build of its own: beside the memory-total tests, which wait
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
	t.Parallel() // a build of its own: beside the memory-total tests, which wait
	src := t.TempDir()
	// make's child sleeps an hour, holding make's output: a Build that did not kill it
	// would not end before the test's backstop.
	write(t, src, "Makefile", "all:\n\tsleep 3600\n")
	var res *Result
	var err error
	buildtest.Returns(t, "the build waits for make's child", func() {
		res, err = Build(src, t.TempDir(), nil, Options{Timeout: 300 * time.Millisecond})
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK || !strings.Contains(res.Problem, "did not finish within 300ms") {
		t.Fatalf("result %+v", res)
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

// prebuiltSubmission is a submission holding, beside its sources, prebuilt files newer
// than them: a script in the place of 2310A (which the sources build), object files, a copy
// of 2310A deeper in, and a 2310B that no source builds. make would see nothing to do.
func prebuiltSubmission(t *testing.T) string {
	t.Helper()
	src := t.TempDir()
	write(t, src, "Makefile", "all: 2310A\n2310A: player.o\n\tgcc -o 2310A player.o\nplayer.o: player.c\n\tgcc -c player.c\n")
	write(t, src, "player.c", "#include <stdio.h>\nint main(void) { puts(\"from sources\"); return 0; }\n")
	write(t, src, "player.o", "not an object")
	write(t, src, "lib/util.o", "not an object either")
	write(t, src, "old/2310A", "#!/bin/sh\necho old\n")
	for _, p := range []string{"2310A", "2310B"} {
		write(t, src, p, "#!/bin/sh\necho prebuilt\n")
		if err := os.Chmod(filepath.Join(src, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	later := time.Now().Add(time.Hour)
	for _, p := range []string{"2310A", "2310B", "player.o"} {
		if err := os.Chtimes(filepath.Join(src, p), later, later); err != nil {
			t.Fatal(err)
		}
	}
	return src
}

// checkBuiltFromSources checks a build of prebuiltSubmission: every prebuilt file removed
// and listed, 2310A the program the sources build, 2310B missing for want of sources.
func checkBuiltFromSources(t *testing.T, res *Result) {
	t.Helper()
	want := []string{"2310A", "2310B", "lib/util.o", "old/2310A", "player.o"}
	if strings.Join(res.Removed, " ") != strings.Join(want, " ") {
		t.Errorf("removed %q, want %q", res.Removed, want)
	}
	if !res.OK || res.Programs["2310A"] == "" || len(res.Missing) != 1 || res.Missing[0] != "2310B" {
		t.Fatalf("result %+v\nlog:\n%s", res, res.Log)
	}
	out, err := exec.Command(res.Programs["2310A"]).Output()
	if err != nil || string(out) != "from sources\n" {
		t.Errorf("2310A says %q (%v), want the program built from player.c", out, err)
	}
	if ns := res.NoSources(); len(ns) != 1 || ns[0] != "2310B" {
		t.Errorf("NoSources %q, want 2310B", ns)
	}
	if s := res.Summary(); !strings.Contains(s, "removed before make: 2310A 2310B lib/util.o old/2310A player.o, prebuilt without sources: 2310B") {
		t.Errorf("summary %q", s)
	}
}

// A program is built from the sources, never taken prebuilt: files named like a program and
// object files are removed from the copy before make.
func TestBuildRemovesPrebuiltPrograms(t *testing.T) {
	t.Parallel() // a build of its own: beside the memory-total tests, which wait
	src := prebuiltSubmission(t)
	res, err := Build(src, t.TempDir(), []string{"2310A", "2310B"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkBuiltFromSources(t, res)
	if _, err := os.Stat(filepath.Join(src, "2310B")); err != nil {
		t.Errorf("the submission's own folder lost its file: %v", err)
	}
}

// The file -prog names is removed too; with NoBuild nothing is.
func TestRemovePrebuiltPathsAndNoBuild(t *testing.T) {
	src := t.TempDir()
	write(t, src, "Makefile", "all:\n\ttrue\n")
	write(t, src, "bin/player", "#!/bin/sh\n")
	write(t, src, "notes.txt", "kept")
	res, err := Build(src, t.TempDir(), []string{"2310A"}, Options{Paths: map[string]string{"2310A": "bin/player"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Removed) != 1 || res.Removed[0] != filepath.Join("bin", "player") {
		t.Errorf("removed %q, want bin/player", res.Removed)
	}
	if _, err := os.Stat(filepath.Join(res.Dir, "notes.txt")); err != nil {
		t.Errorf("notes.txt: %v", err)
	}
	if err := os.Chmod(filepath.Join(src, "bin", "player"), 0o755); err != nil {
		t.Fatal(err)
	}
	res, err = Build(src, t.TempDir(), []string{"player"}, Options{NoBuild: true, Paths: map[string]string{"2310A": "bin/player"}})
	if err != nil || len(res.Removed) != 0 {
		t.Fatalf("NoBuild removed %q (%v)", res.Removed, err)
	}
}

// A make that fails on one program leaves the others to be made on their own: what builds
// is graded, and the problem says which programs did not build.
func TestBuildFallsBackToEachProgram(t *testing.T) {
	t.Parallel() // a build of its own: beside the memory-total tests, which wait
	for _, boxed := range []bool{false, true} {
		t.Run(map[bool]string{false: "unboxed", true: "boxed"}[boxed], func(t *testing.T) {
			scratch := t.TempDir()
			if boxed {
				// As the root grader builds (the marks' case): a sandbox user in a box.
				buildtest.NeedBox(t, sandbox.BoxProblem())
				scratch = scratchFor(t)
			}
			src := t.TempDir()
			write(t, src, "Makefile", "all: good bad\ngood: good.c\n\tgcc -o good good.c\nbad: bad.c\n\tgcc -o bad bad.c\n")
			write(t, src, "good.c", "int main(void) { return 0; }\n")
			write(t, src, "bad.c", "int main(void) { return nope; }\n")
			res, err := Build(src, scratch, []string{"bad", "good"}, Options{Boxed: boxed})
			if err != nil {
				t.Fatal(err)
			}
			if res.OK || !res.ByProgram || res.Programs["good"] == "" || res.Programs["bad"] != "" ||
				len(res.Missing) != 1 || res.Missing[0] != "bad" {
				t.Fatalf("result %+v\nlog:\n%s", res, res.Log)
			}
			want := "make exited with status 2; then each program made on its own (make NAME): built good; did not build: bad"
			if res.Problem != want {
				t.Errorf("problem %q, want %q", res.Problem, want)
			}
			if !strings.Contains(res.Log, "\n$ make good\n") || !strings.Contains(res.Log, "\n$ make bad\n") {
				t.Errorf("log without each program's make:\n%s", res.Log)
			}
		})
	}
}

// A program whose own make fails is not graded, even when the make left a file of its name.
func TestBuildFallbackKeepsOutWhatFailed(t *testing.T) {
	src := t.TempDir()
	write(t, src, "Makefile", "all:\n\tfalse\nhalf:\n\tprintf '#!/bin/sh\\n' > half; chmod 755 half; false\n")
	res, err := Build(src, t.TempDir(), []string{"half"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(res.Dir, "half")); err != nil {
		t.Fatalf("the make of half left no file: %v\nlog:\n%s", err, res.Log)
	}
	if res.OK || !res.ByProgram || res.Programs["half"] != "" || !strings.HasSuffix(res.Problem, "did not build: half") {
		t.Fatalf("result %+v", res)
	}
}
