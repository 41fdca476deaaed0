package cbuild

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gauntlet/internal/buildtest"
)

// A program built once runs as C; every call of Once's function gives the same program.
func TestOnceBuildsOnce(t *testing.T) {
	if _, err := Compiler(); err != nil {
		buildtest.NeedTool(t, err, "install a C compiler: apt-get install gcc")
	}
	src := []byte("#include <stdio.h>\nint main(void) { puts(\"built\"); return 0; }\n")
	build := Once("a test program", src)
	prog, err := build()
	if err != nil {
		t.Fatal(err)
	}
	again, err := build()
	if err != nil || &again[0] != &prog[0] {
		t.Errorf("the second call built it again (%v)", err)
	}
	path := filepath.Join(t.TempDir(), "prog")
	if err := os.WriteFile(path, prog, 0o700); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(path).Output()
	if err != nil || string(out) != "built\n" {
		t.Errorf("the program said %q (%v), want %q", out, err, "built\n")
	}
}

// Without a C compiler nothing is built, and the error names the program and says why.
func TestBuildWithoutACompiler(t *testing.T) {
	t.Setenv("CC", "/nonexistent/cc")
	if _, err := Build("the probe", []byte("int main(void){return 0;}\n")); err == nil ||
		!strings.Contains(err.Error(), "/nonexistent/cc") || !strings.Contains(err.Error(), "the probe") {
		t.Errorf("built with CC=/nonexistent/cc: %v", err)
	}
	t.Setenv("CC", "")
	t.Setenv("PATH", t.TempDir())
	if _, err := Build("the probe", nil); err == nil || !strings.Contains(err.Error(), "no C compiler") {
		t.Errorf("built with no compiler on the PATH: %v", err)
	}
}
