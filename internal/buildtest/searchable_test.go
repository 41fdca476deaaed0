package buildtest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
)

// fatalTB records a Fatal instead of ending the test that uses it.
type fatalTB struct {
	testing.TB
	failed string
}

func (f *fatalTB) Helper() {}
func (f *fatalTB) Fatal(args ...any) {
	f.failed = fmt.Sprint(args...)
	runtime.Goexit()
}
func (f *fatalTB) Fatalf(format string, args ...any) {
	f.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// run calls SearchableByOthers on dir with a fatalTB and returns what it failed with.
func run(t *testing.T, dir string) string {
	f := &fatalTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		SearchableByOthers(f, dir)
	}()
	<-done
	return f.failed
}

func mode(t *testing.T, path string) uint32 {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	return st.Mode & 0o7777
}

func TestSearchableByOthersKeepsTheOtherBits(t *testing.T) {
	top := t.TempDir()
	d := filepath.Join(top, "a", "b")
	if err := os.MkdirAll(d, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Chmod(filepath.Dir(d), 0o1700); err != nil {
		t.Fatal(err)
	}
	tmpBefore := mode(t, os.TempDir())
	if msg := run(t, d); msg != "" {
		t.Fatalf("failed: %s", msg)
	}
	if m := mode(t, d); m != 0o711 {
		t.Errorf("%s mode %o, want 711", d, m)
	}
	if m := mode(t, filepath.Dir(d)); m != 0o1711 {
		t.Errorf("%s mode %o, want 1711 (sticky kept)", filepath.Dir(d), m)
	}
	if m := mode(t, os.TempDir()); m != tmpBefore {
		t.Errorf("the system's temp folder went from %o to %o", tmpBefore, m)
	}
}

func TestSearchableByOthersLeavesFoldersItDidNotMake(t *testing.T) {
	NeedRoot(t, "it needs root, to make a folder of another user's")
	top := t.TempDir()
	other := filepath.Join(top, "other")
	if err := os.Mkdir(other, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(other, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	inner := filepath.Join(other, "inner")
	if err := os.Mkdir(inner, 0o700); err != nil {
		t.Fatal(err)
	}
	msg := run(t, inner)
	if msg == "" {
		t.Fatal("a folder of another user's that others cannot search was accepted")
	}
	if m := mode(t, other); m != 0o700 {
		t.Errorf("the other user's folder went to mode %o", m)
	}
}
