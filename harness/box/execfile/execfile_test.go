package execfile

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Programs written while other goroutines start programs can be run at once: without the
// fork lock, some of these runs fail with "text file busy".
func TestWriteThenRunWhileOthersFork(t *testing.T) {
	dir := t.TempDir()
	const workers, rounds = 8, 60
	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				p := filepath.Join(dir, fmt.Sprintf("prog-%d-%d", w, r))
				if err := Write(p, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
					errs <- err
					return
				}
				if err := exec.Command(p).Run(); err != nil {
					errs <- fmt.Errorf("run %s: %w", p, err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestWriteFromHonoursFlagsAndMode(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := Write(p, []byte("first"), 0o751); err != nil {
		t.Fatal(err)
	}
	if err := WriteFrom(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755, nil); err == nil {
		t.Error("O_EXCL on an existing file succeeded")
	}
	if err := Write(p, []byte("second"), 0o700); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	info, _ := os.Stat(p)
	if err != nil || string(b) != "second" || info.Mode().Perm() != 0o751 {
		t.Errorf("file = %q (%v), mode %v; want \"second\", mode kept at -rwxr-x--x", b, err, info.Mode().Perm())
	}
}

// CopyExecuteOnly makes a new file of the same bytes that others may run but not read, and
// refuses to replace a file already there.
func TestCopyExecuteOnly(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src"), filepath.Join(dir, "dst")
	if err := Write(src, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := CopyExecuteOnly(src, dst); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(dst)
	if err != nil || st.Mode().Perm() != 0o711 {
		t.Fatalf("the copy: %v, %v; want mode 0711", st, err)
	}
	if data, err := os.ReadFile(dst); err != nil || string(data) != "#!/bin/sh\nexit 0\n" {
		t.Errorf("the copy holds %q, %v", data, err)
	}
	if err := CopyExecuteOnly(src, dst); err == nil {
		t.Error("a second copy replaced the first")
	}
}
