package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gauntlet/harness/box/hygiene"
	"gauntlet/internal/buildtest"
)

// The scratch swap: where the temporary folder is writable by everyone without the sticky
// bit, another user could rename the grader's scratch folder and plant their own: the
// grader refuses such a place, and accepts /tmp-like ones (sticky) and private ones.
func TestMakeScratchRefusesSwappablePlaces(t *testing.T) {
	base := t.TempDir()
	if err := checkAncestors(base); err != nil {
		// This machine's own temporary folder is such a place (a world-writable /tmp
		// without the sticky bit): the default falls back to a private folder.
		dir, note, err := MakeScratch("", "gauntlet-grade-")
		if err != nil || !strings.Contains(note, "unsafe scratch space") || strings.HasPrefix(dir, os.TempDir()) {
			t.Fatalf("default scratch on an unsafe TMPDIR: %s, note %q, err %v; want a private folder elsewhere", dir, note, err)
		}
		// The rest is built in that private folder, which is safe.
		os.RemoveAll(dir)
		if base, err = os.MkdirTemp(filepath.Dir(dir), "test-"); err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(base)
	}
	open := filepath.Join(base, "open")
	sticky := filepath.Join(base, "sticky")
	for _, d := range []string{open, sticky} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(open, 0o777)
	os.Chmod(sticky, 0o777|os.ModeSticky)
	if dir, _, err := MakeScratch(open, "x-"); err == nil {
		t.Errorf("scratch made in a world-writable folder without the sticky bit: %s", dir)
	} else if !strings.Contains(err.Error(), "unsafe scratch space") {
		t.Errorf("error %v, want it to say the place is unsafe", err)
	}
	dir, _, err := MakeScratch(sticky, "x-")
	if err != nil {
		t.Fatalf("a sticky folder was refused: %v", err)
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o711 {
		t.Errorf("scratch %s: %v %v, want mode 0711", dir, st.Mode(), err)
	}
}

// A memory folder left mounted by a grader that is gone is unmounted and removed by the
// next one made; one of a live process stays.
func TestMemoryFolderClearsThoseOfGoneProcesses(t *testing.T) {
	buildtest.NeedRoot(t, "only root mounts a memory folder")
	self, err := hygiene.ReadProc(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	parent := t.TempDir()
	// This pid with another start time: a process gone whose pid came back.
	stale, _, err := makeMemoryFolder(parent, "cases-", self.Pid, self.Start+1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stale, "left"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	alive, releaseAlive, err := makeMemoryFolder(parent, "cases-", self.Pid, self.Start, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer releaseAlive()
	dir, release, err := MemoryFolder(parent, "cases-")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	mounts, _ := os.ReadFile("/proc/self/mountinfo")
	mounted := func(d string) bool { return strings.Contains(string(mounts), " "+d+" ") }
	if _, err := os.Stat(stale); err == nil || mounted(stale) {
		t.Errorf("the memory folder of a process gone is still there (mounted: %v)", mounted(stale))
	}
	if !mounted(alive) || !mounted(dir) {
		t.Errorf("a live process's memory folders: mounted %v and %v, want both", mounted(alive), mounted(dir))
	}
}

// RemoveTree unmounts what is mounted in the folder (a build's tmpfs) and removes it all;
// given an empty path it removes nothing (it once took it for the working folder, and a
// test's package folder went).
func TestRemoveTree(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := RemoveTree(""); err != nil {
		t.Errorf("RemoveTree(\"\"): %v", err)
	}
	if _, err := os.Stat(filepath.Join(wd, "scratch_test.go")); err != nil {
		t.Fatalf("RemoveTree(\"\") removed the working folder: %v", err)
	}
	if err := RemoveTree("/"); err == nil {
		t.Error("RemoveTree(\"/\") did not refuse")
	}
	buildtest.NeedRoot(t, "mounting a tmpfs needs root")
	top := t.TempDir()
	mem, _, err := MemoryFolderOf(top, "build-", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mem, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := RemoveTree(top); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(top); !os.IsNotExist(err) {
		t.Errorf("%s is still there: %v", top, err)
	}
}
