package rawfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Read returns whole files of any size, those of /proc included, and says when one does
// not exist.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	big := bytes.Repeat([]byte("0123456789abcdef"), 1000) // past the first buffers
	for _, data := range [][]byte{nil, []byte("x\n"), big} {
		path := filepath.Join(dir, "f")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, buf := range [][]byte{nil, make([]byte, 3, 3)} {
			got, err := Read(path, buf)
			if err != nil || !bytes.Equal(got, data) {
				t.Errorf("Read of %d bytes: %d bytes, %v", len(data), len(got), err)
			}
		}
	}
	if _, err := Read(filepath.Join(dir, "none"), nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Read of a missing file: %v, want not-exist", err)
	}
	stat, err := Read("/proc/self/stat", nil)
	if err != nil || !strings.Contains(string(stat), ") ") {
		t.Errorf("/proc/self/stat: %q, %v", stat, err)
	}
}

// Write replaces a file's contents in one write, and fails on a file that does not exist
// (the kernel's files are never made by writing them).
func TestWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := Write(path, []byte("1")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Write to a missing file: %v, want not-exist", err)
	}
	os.WriteFile(path, nil, 0o644)
	if err := Write(path, []byte("42\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "42\n" {
		t.Errorf("the file holds %q, want %q", b, "42\n")
	}
}

// Names lists every name of a folder, more than one read of the kernel's listing holds.
func TestNames(t *testing.T) {
	dir := t.TempDir()
	var want []string
	for i := range 300 {
		name := strings.Repeat("n", 40) + string(rune('a'+i%26)) + strings.Repeat("z", i/26)
		want = append(want, name)
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Names(dir)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("Names: %d names, want %d", len(got), len(want))
	}
	if _, err := Names(filepath.Join(dir, "none")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Names of a missing folder: %v", err)
	}
}
