package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gauntlet/harness/scriptcmds"
)

// The tests' submissions reach files in the test's own temporary folders (marks a slow
// player leaves, programs linked from there): the boxes keep the temporary folder shared.
// The box itself is tested in harness/sandbox and metatest.
func init() {
	os.Setenv(scriptcmds.BoxKeepVar, os.TempDir())
}

// A report written where a link was planted replaces the link and leaves its target alone.
func TestWriteFileReplacesALink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "precious")
	if err := os.WriteFile(target, []byte("keep me\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "report.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(link, func(w io.Writer) error { _, err := io.WriteString(w, "{}\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep me\n" {
		t.Errorf("the link's target was written: %q", b)
	}
	if st, err := os.Lstat(link); err != nil || !st.Mode().IsRegular() {
		t.Errorf("the report is not a regular file in place of the link: %v %v", st.Mode(), err)
	}
}

// The gauntlet binary is every reference and mock program, which run under the sandbox's
// address-space limit; the net package would link cgo into it, and a cgo program's
// threads failed at random there in pthread_create (see harness/tcp). So nothing the
// binary imports may use net.
func TestBinaryLinksNoCgo(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if pkg == "net" || pkg == "runtime/cgo" {
			t.Errorf("the gauntlet binary imports %s (go list -deps ./cmd/gauntlet); use gauntlet/harness/tcp instead of net", pkg)
		}
	}
}
