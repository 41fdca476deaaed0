package programs

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
)

// A mock player that quits has closed its stdin by the time its stdout ends, as a C
// player that exits has: a hub writing to it then always gets EPIPE. Many at once, so that
// a load that delays the exit would show a pipe still open.
func TestMockPlayerQuitClosesStdinFirst(t *testing.T) {
	mock := filepath.Join(links(t, "mockplayer"), "mockplayer")
	const players = 12
	var wg sync.WaitGroup
	errs := make(chan error, players)
	for range players {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- quitThenWrite(mock)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

var startMu sync.Mutex

// quitThenWrite plays the hub to a mock EAIT that exits after its first message: it reads
// the handshake, sends a message, waits for the end of the mock's stdout and writes again.
func quitThenWrite(mock string) error {
	cmd := exec.Command(mock, "-as", "EAIT", "-fault", "after 1 exit 0", "--", "2", "A")
	// Until the parent has closed its copy of the read end, a child another goroutine
	// forks meanwhile holds one too (until its exec, which a loaded machine can delay), and
	// the write at the end would not fail: only one goroutine at a time makes its pipes.
	startMu.Lock()
	locked := true
	defer func() {
		if locked {
			startMu.Unlock()
		}
	}()
	inR, inW, err := os.Pipe()
	if err != nil {
		return err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	if err := cmd.Start(); err != nil {
		return err
	}
	inR.Close()
	outW.Close()
	startMu.Unlock()
	locked = false
	defer cmd.Wait()
	defer inW.Close()
	defer outR.Close()
	if _, err := inW.WriteString("rolled B 123333\n"); err != nil {
		return err
	}
	if _, err := io.ReadAll(outR); err != nil { // "!", then the end of stdout
		return err
	}
	if _, err := inW.WriteString("points B 4\n"); !errors.Is(err, syscall.EPIPE) {
		return errors.New("a write after the mock's stdout ended did not fail with EPIPE: " + errString(err))
	}
	return nil
}

func errString(err error) string {
	if err == nil {
		return "it succeeded"
	}
	return err.Error()
}
