package term

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestIsTerminal: a pseudo-terminal is one; /dev/null, a character device, is not (the
// cohort's progress line asked for a character device and took /dev/null for a terminal,
// where the single grade's asked for terminal settings); nor are a file, a pipe or a buffer.
func TestIsTerminal(t *testing.T) {
	ptm, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("no pseudo-terminal to test with: %v", err)
	}
	defer ptm.Close()
	if !IsTerminal(ptm) {
		t.Error("a pseudo-terminal is not a terminal")
	}
	if err := unix.IoctlSetWinsize(int(ptm.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: 132}); err != nil {
		t.Fatal(err)
	}
	if w := Width(ptm); w != 132 {
		t.Errorf("Width = %d, want 132", w)
	}

	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if IsTerminal(null) {
		t.Error("/dev/null is a terminal")
	}
	if w := Width(null); w != 80 {
		t.Errorf("Width(/dev/null) = %d, want 80", w)
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	var b strings.Builder
	for name, x := range map[string]interface{ Write([]byte) (int, error) }{"a file": f, "a pipe": w, "a buffer": &b} {
		if IsTerminal(x) {
			t.Errorf("%s is a terminal", name)
		}
	}
}
