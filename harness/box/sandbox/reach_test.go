package sandbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gauntlet/harness/box/sandbox"
)

func TestReachableByOthers(t *testing.T) {
	open := t.TempDir()
	// t.TempDir makes the folder and a parent of the test's own; above is the system's
	// temp, searchable by everyone.
	for _, d := range []string{open, filepath.Dir(open)} {
		if err := os.Chmod(d, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	for d := filepath.Dir(open); d != "/"; d = filepath.Dir(d) {
		if st, err := os.Stat(d); err != nil || st.Mode().Perm()&1 == 0 {
			t.Fatalf("test needs %s searchable by others", d)
		}
	}
	private := filepath.Join(open, "private")
	if err := os.Mkdir(private, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(dir, name, body string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil { // past the umask
			t.Fatal(err)
		}
		return p
	}
	binary := "\x7fELF..."
	link := func(name, target string) string {
		p := filepath.Join(open, name)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name, path, err string // err: part of the error, "" for none
	}{
		{"program for all", write(open, "prog", binary, 0o755), ""},
		{"execute only", write(open, "xonly", binary, 0o711), ""},
		{"owner only", write(open, "mine", binary, 0o700), "not executable by others"},
		{"script execute only", write(open, "script", "#!/bin/sh\n", 0o711), "script not readable by others"},
		{"script for all", write(open, "script2", "#!/bin/sh\n", 0o755), ""},
		{"in a private folder", write(private, "prog", binary, 0o755), "folder " + private + " is not searchable"},
		{"link to a private folder", link("toprivate", filepath.Join(private, "prog")), "folder " + private + " is not searchable"},
		{"link to a program for all", link("toprog", "prog"), ""},
		{"missing", filepath.Join(open, "nothing"), "no such file"},
	}
	for _, tc := range tests {
		err := sandbox.ReachableByOthers(tc.path)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v, want reachable", tc.name, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.err)
		}
	}
}
