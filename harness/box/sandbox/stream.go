package sandbox

import (
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	"gauntlet/harness/runtime/transcript"
)

type streamKind int

const (
	kindDefault streamKind = iota
	kindNull
	kindCapture
	kindPipe
	kindFile
	kindBytes
)

// Stream says what one of a process's standard descriptors is connected to. The zero
// Stream is the default: /dev/null for stdin, Capture for stdout and stderr.
type Stream struct {
	kind streamKind
	file *os.File
	data []byte
}

var (
	// Null connects the descriptor to /dev/null.
	Null = Stream{kind: kindNull}
	// Capture (stdout, stderr) reads the stream into the result, keeping at most
	// Config.OutputLimit bytes and discarding the rest, and records its lines in the
	// transcript as the program's stdout or stderr.
	Capture = Stream{kind: kindCapture}
	// Pipe connects the descriptor to a pipe whose other end the caller uses through
	// Process.Stdin, Process.Stdout or Process.Stderr; what passes is recorded in the
	// transcript as lines between the program and Spec.Peer.
	Pipe = Stream{kind: kindPipe}
)

// File connects the descriptor to an open file (e.g. one end of a pipe to another process
// of the group). The caller keeps ownership of f; nothing is recorded.
func File(f *os.File) Stream { return Stream{kind: kindFile, file: f} }

// Bytes (stdin only) feeds data to the process from a pipe and then closes it; what is
// written is recorded in the transcript as lines from Spec.Peer. If the process does not
// read, the writing goroutine waits until the run ends; the harness never blocks.
func Bytes(data []byte) Stream { return Stream{kind: kindBytes, data: data} }

// capture drains one output pipe, keeping a bounded prefix.
type capture struct {
	f     *os.File
	lw    *transcript.LineWriter
	limit int
	pipe  string // the pipe as /proc/PID/fd shows it, e.g. "pipe:[81234]"

	mu    sync.Mutex
	buf   []byte
	total int64
	done  chan struct{}
}

func newCapture(f *os.File, lw *transcript.LineWriter, limit int) *capture {
	c := &capture{f: f, lw: lw, limit: limit, done: make(chan struct{})}
	// Not f.Fd(): that would put the pipe in blocking mode and disable read deadlines.
	if rc, err := f.SyscallConn(); err == nil {
		rc.Control(func(fd uintptr) {
			var st syscall.Stat_t
			if syscall.Fstat(int(fd), &st) == nil {
				c.pipe = fmt.Sprintf("pipe:[%d]", st.Ino)
			}
		})
	}
	go c.loop()
	return c
}

func (c *capture) loop() {
	defer close(c.done)
	defer c.lw.Close()
	b := make([]byte, 64<<10) // a whole pipe's worth per read
	for {
		n, err := c.f.Read(b)
		if n > 0 {
			c.mu.Lock()
			if room := c.limit - len(c.buf); room > 0 {
				c.buf = append(c.buf, b[:min(n, room)]...)
			}
			c.total += int64(n)
			c.mu.Unlock()
			c.lw.Write(b[:n])
		}
		if err != nil {
			return
		}
	}
}

// finish waits for the end of the stream, at most d (its writers should all be dead by
// now; a descriptor passed to some process the harness could not find would keep it open),
// then closes the pipe.
func (c *capture) finish(d time.Duration) {
	select {
	case <-c.done:
	case <-time.After(d):
		c.f.SetReadDeadline(time.Now())
		<-c.done
	}
	c.f.Close()
}

func (c *capture) result() (data []byte, total int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf, c.total
}

// pipeWriter is the caller's end of a Pipe stdin: every byte written is recorded.
type pipeWriter struct {
	f  *os.File
	lw *transcript.LineWriter
}

func (w *pipeWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	w.lw.Write(p[:n])
	return n, err
}

func (w *pipeWriter) Close() error {
	w.lw.Close()
	return w.f.Close()
}

// pipeReader is the caller's end of a Pipe stdout or stderr: every byte read is recorded,
// and the pipe is closed at its end.
type pipeReader struct {
	f    *os.File
	lw   *transcript.LineWriter
	once sync.Once
}

func (r *pipeReader) Read(p []byte) (int, error) {
	n, err := r.f.Read(p)
	r.lw.Write(p[:n])
	if err != nil {
		r.Close()
	}
	return n, err
}

func (r *pipeReader) Close() error {
	r.once.Do(func() {
		r.lw.Close()
		r.f.Close()
	})
	return nil
}

var (
	_ io.WriteCloser = (*pipeWriter)(nil)
	_ io.ReadCloser  = (*pipeReader)(nil)
)
