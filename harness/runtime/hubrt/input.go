package hubrt

import (
	"errors"
	"io"
	"sync"
	"syscall"
)

// MaxPending is how many bytes may wait for a player to read them, beyond what its pipe
// holds: lines sent to a player that is stopped, slow or not reading. A player that is sent
// more cannot take its input: the hub sends it nothing more, and its next read fails with
// ErrInputFull.
const MaxPending = 4 << 20

// ErrInputFull is the read error of a player that could not take its input: more than
// MaxPending bytes sent to it waited unread.
var ErrInputFull = errors.New("the player did not take its input: more than 4 MiB waited unread")

// input is a player's stdin as the hub writes it: never blocking the hub. A line is written
// at once when the pipe has room; what does not fit waits in a buffer of at most MaxPending
// bytes that one goroutine writes as the player reads (started only while something waits).
type input struct {
	mu       sync.Mutex
	w        io.WriteCloser
	raw      syscall.RawConn // w's descriptor for a write that never waits; nil: w is written directly
	pending  []byte          // what waits, in order
	inFlight int             // bytes the goroutine is writing
	writing  bool            // the goroutine runs
	full     bool            // more than MaxPending waited: nothing more is sent
	broken   bool            // a write failed (the player is gone): nothing more is sent
	closed   bool
}

func newInput(w io.WriteCloser) *input {
	in := &input{w: w}
	if sc, ok := w.(syscall.Conn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			in.raw = raw
		}
	}
	return in
}

// send writes b, or queues what the pipe cannot take now.
func (in *input) send(b []byte) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.closed || in.broken || in.full {
		return
	}
	if in.raw == nil {
		// Not a pipe (a person's terminal): written directly.
		if _, err := in.w.Write(b); err != nil {
			in.broken = true
		}
		return
	}
	if len(in.pending) == 0 && !in.writing {
		n, err := in.tryWrite(b)
		if err != nil {
			in.broken = true
			return
		}
		b = b[n:]
		if len(b) == 0 {
			return
		}
	}
	if len(in.pending)+in.inFlight+len(b) > MaxPending {
		in.full, in.pending = true, nil
		return
	}
	in.pending = append(in.pending, b...)
	if !in.writing {
		in.writing = true
		go in.drain()
	}
}

// tryWrite writes what the pipe takes now, without waiting.
func (in *input) tryWrite(b []byte) (int, error) {
	var n int
	var werr error
	err := in.raw.Write(func(fd uintptr) bool {
		for len(b) > n {
			m, e := syscall.Write(int(fd), b[n:])
			if e == syscall.EINTR {
				continue
			}
			if e == syscall.EAGAIN {
				break
			}
			if e != nil {
				werr = e
				break
			}
			n += m
		}
		return true
	})
	if werr == nil {
		werr = err
	}
	return n, werr
}

// drain writes what waits as the player reads it, until nothing waits or a write fails
// (the player gone, or its input closed).
func (in *input) drain() {
	in.mu.Lock()
	for len(in.pending) > 0 && !in.closed && !in.broken {
		chunk := in.pending
		in.pending, in.inFlight = nil, len(chunk)
		in.mu.Unlock()
		_, err := in.w.Write(chunk) // waits in the poller; Close ends it
		in.mu.Lock()
		in.inFlight = 0
		if err != nil {
			in.broken = true
		}
	}
	in.pending, in.writing = nil, false
	in.mu.Unlock()
}

// isFull reports whether the player could not take its input.
func (in *input) isFull() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.full
}

// close closes the player's stdin: what waits is dropped, and a write in progress ends.
func (in *input) close() {
	in.mu.Lock()
	if in.closed {
		in.mu.Unlock()
		return
	}
	in.closed, in.pending = true, nil
	in.mu.Unlock()
	in.w.Close()
}

// nopCloser is a local seat's output (a person's terminal), never closed by the hub.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
