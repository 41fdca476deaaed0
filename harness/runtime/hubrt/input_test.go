package hubrt

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Send never waits for a player: to one that never reads, what its pipe cannot take waits
// in the buffer; past MaxPending the player gets nothing more and its next read fails with
// ErrInputFull. Before 2026-11-28 the second Send here blocked forever.
func TestSendNeverWaits(t *testing.T) {
	p := filepath.Join(t.TempDir(), "deaf")
	// It never reads its input, and says one line.
	if err := os.WriteFile(p, []byte("#!/bin/sh\necho hi\nexec sleep 600\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h, err := Start([]string{p}, func(int) []string { return nil })
	if err != nil {
		t.Fatal(err)
	}
	defer h.Kill()
	line := strings.Repeat("x", 1<<20) // a line as long as a player may send
	for range 3 {
		h.Send(0, line) // 3 MiB: the pipe's 64 KiB, the rest waits
	}
	if got, err := h.ReadLine(0); got != "hi" || err != nil {
		t.Fatalf("with 3 MiB waiting: %q, %v; want the player's line", got, err)
	}
	h.Send(0, line)
	h.Send(0, line) // 5 MiB: past the pipe and MaxPending
	if _, err := h.ReadLine(0); !errors.Is(err, ErrInputFull) {
		t.Fatalf("past MaxPending: %v, want ErrInputFull", err)
	}
}
