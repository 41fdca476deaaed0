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
