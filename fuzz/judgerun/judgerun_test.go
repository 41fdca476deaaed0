package judgerun

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gauntlet/harness/box/execfile"
	"gauntlet/harness/box/sandbox"
	"gauntlet/harness/runtime/limitkill"
	"gauntlet/internal/buildtest"
)

// fakeBinary writes a program named gauntlet in dir, standing for the gauntlet binary.
func fakeBinary(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "gauntlet")
	if err := execfile.Write(path, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// The judges run from an execute-only copy of the gauntlet binary in the campaign's
// scratch folder, and the boxes keep that folder and the program's, never the binary's
// own folder: a subject that could read the binary would have every suite in it.
func TestJudgesRunFromAnExecuteOnlyCopy(t *testing.T) {
	binDir, progDir := t.TempDir(), t.TempDir()
	gauntlet := fakeBinary(t, binDir)
	prog := filepath.Join(progDir, "client")
	j, err := New(gauntlet, prog, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if filepath.Dir(j.gauntlet) != j.dir {
		t.Errorf("the judges run %s, outside the scratch folder %s", j.gauntlet, j.dir)
	}
	// Rootless, the program has this user, the copy's owner, who may only run it too.
	want := os.FileMode(0o711)
	if os.Geteuid() != 0 && sandbox.RootlessProblem() == nil {
		want = 0o111
		if slices.Contains(j.subjKeep, j.dir) || !slices.Contains(j.subjKeep, progDir) {
			t.Errorf("the program's box keeps %q: want its folder and not the judges' %s", j.subjKeep, j.dir)
		}
	}
	if st, err := os.Stat(j.gauntlet); err != nil || st.Mode().Perm() != want {
		t.Errorf("the copy: %v, %v; want mode %v", st.Mode(), err, want)
	}
	if slices.Contains(j.keep, binDir) || !slices.Contains(j.keep, progDir) {
		t.Errorf("the boxes keep %q: want the program's folder and not the binary's %s", j.keep, binDir)
	}
}

// The same, for a campaign that is not root (rootless boxes): run again as an
// unprivileged user by a root test run.
func TestJudgesRunFromAnExecuteOnlyCopyRootless(t *testing.T) {
	if !buildtest.AsUnprivileged(t, "^TestJudgesRunFromAnExecuteOnlyCopy$") {
		buildtest.ByRerun(t, "not root: TestJudgesRunFromAnExecuteOnlyCopy is this test")
	}
}

// A program that is a link (to a build folder, or to the gauntlet binary, as the
// references are run) keeps the folder of the file it names visible too.
func TestJudgesKeepTheFolderALinkNames(t *testing.T) {
	binDir, progDir := t.TempDir(), t.TempDir()
	gauntlet := fakeBinary(t, binDir)
	prog := filepath.Join(progDir, "clue-client")
	if err := os.Symlink(gauntlet, prog); err != nil {
		t.Fatal(err)
	}
	j, err := New(gauntlet, prog, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if !slices.Contains(j.keep, binDir) || !slices.Contains(j.keep, progDir) {
		t.Errorf("the boxes keep %q: want %s (the link's) and %s (its target's)", j.keep, progDir, binDir)
	}
}

// A finding where a limit ended the program gets a first line that says so, for the
// fuzzers whose own line says what the program must do (the Clue client's "must exit 3").
func TestLimitHeader(t *testing.T) {
	text := "# Found by gauntlet fuzz: after 3 lines, the client must exit 3.\n# section: Clients\n"
	got := LimitHeader(text, limitkill.CPU)
	want := "# Found by gauntlet fuzz: the program was ended by the CPU time limit (a LIMIT, not a broken rule of the game), in this case: after 3 lines, the client must exit 3.\n# section: Clients\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
