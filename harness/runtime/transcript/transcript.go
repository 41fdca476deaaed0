// Package transcript records who said what to whom during a run: every line on every
// channel (a hub to player k, player k to the hub, each program's stdout and stderr), the
// programs started, the signals sent, and how each program ended, in order and timestamped.
//
// A Log is safe for concurrent use: the goroutines copying each pipe append to the same Log,
// and each event gets the next sequence number and a time that never goes backwards.
//
// Transcripts render two ways: WriteText for people (who said what, in order, bytes that are
// not printable escaped, lines without newline marked), and JSON lines for programs (one
// event per line, documented stable field names, a version field in every event; see
// docs/harness.md). A Log can also copy every event, as it is added, to a Sink as one JSON
// line written in a single Write: a relay process that sits between a hub and a real player
// appends its events to a file opened with O_APPEND, and the harness later reads that file
// with ReadJSON and merges it with its own events with Merge (ordered by time, then writer,
// then sequence).
//
// A Log is bounded: lines longer than MaxLine keep their first MaxLine bytes and count the
// rest, and once MaxEvents or MaxBytes is reached further lines are counted but not kept, so
// a subject that prints without end cannot make the harness grow.
package transcript

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Version is the version of the event format, written in every JSON event.
const Version = 1

// Kind says what an event records.
type Kind string

// The event kinds.
const (
	Line   Kind = "line"   // a line written on a channel (From wrote it for To)
	Start  Kind = "start"  // a program started (From is the program; Args its argv)
	Signal Kind = "signal" // a signal sent (From sent Signal to To)
	Exit   Kind = "exit"   // a program ended (From; Status or Signal)
	Note   Kind = "note"   // a remark by a recorder (From; Text)
)

// Reserved endpoint names. A program's own output streams are the destinations Stdout and
// Stderr (where nobody in the game reads them), and the harness is Harness. Programs must not
// be named like these.
const (
	Stdout  = "stdout"
	Stderr  = "stderr"
	Harness = "harness"
)

// Event is one entry of a transcript.
type Event struct {
	Seq    uint64    // position among the events of the same Writer, from 1
	Time   time.Time // when the event happened (for a line: when its end was seen)
	Writer string    // the recorder that wrote the event, e.g. "harness" or "relay 1"
	Kind   Kind
	From   string   // the program that wrote the line / started / ended; the sender of a signal
	To     string   // the line's reader (a program, Stdout or Stderr); the signal's target
	Data   []byte   // the line without its '\n' (Line), or the note's text (Note)
	NoEOL  bool     // the line ended at end of file (or at the close of the channel), not '\n'
	Cut    int64    // bytes of the line dropped beyond MaxLine (Data holds the first MaxLine)
	Signal string   // signal name, e.g. "SIGTERM" (Signal; Exit when killed by a signal)
	Status *int     // exit status (Exit, when the program exited normally)
	Pid    int      // process id (Start, Exit), 0 if unknown
	Args   []string // argv of the program (Start)
}

// Defaults of Options.
const (
	DefaultMaxLine   = 4096
	DefaultMaxEvents = 100000
	DefaultMaxBytes  = 4 << 20
)

// Options configure a Log. Zero fields take the defaults.
type Options struct {
	// Writer names this recorder in every event (default "harness").
	Writer string
	// Sink, if not nil, receives every kept event at once as one JSON line, in a single
	// Write call. Write errors are remembered (SinkErr) and later events are not written.
	Sink io.Writer
	// MaxLine is the longest line kept whole, in bytes (default 4096).
	MaxLine int
	// MaxEvents and MaxBytes bound the lines kept (defaults 100000 and 4 MiB of line data).
	// Past either bound lines are counted in Dropped and one note says so; starts, signals,
	// exits and notes are still kept, up to twice MaxEvents.
	MaxEvents int
	MaxBytes  int64
}

// Log is a concurrency-safe, bounded, ordered record of events.
type Log struct {
	opts Options

	mu      sync.Mutex
	events  []Event
	seq     uint64
	last    time.Time
	bytes   int64
	sinkErr error

	full    atomic.Bool  // set once lines are no longer kept
	dropped atomic.Int64 // events counted but not kept
}

// New returns an empty Log.
func New(opts Options) *Log {
	if opts.Writer == "" {
		opts.Writer = Harness
	}
	if opts.MaxLine <= 0 {
		opts.MaxLine = DefaultMaxLine
	}
	if opts.MaxEvents <= 0 {
		opts.MaxEvents = DefaultMaxEvents
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	return &Log{opts: opts}
}

// MaxLine returns the longest line the Log keeps whole.
func (l *Log) MaxLine() int { return l.opts.MaxLine }

// Add records e, filling in Seq, Writer and (when zero) Time, and returns the event as
// recorded. Line data longer than MaxLine is cut here too. Times are made non-decreasing in
// sequence order, so sorting by time never reorders one writer's events.
func (l *Log) Add(e Event) Event {
	if e.Kind == Line && len(e.Data) > l.opts.MaxLine {
		e.Cut += int64(len(e.Data) - l.opts.MaxLine)
		e.Data = e.Data[:l.opts.MaxLine]
	}
	if e.Data != nil {
		e.Data = append([]byte(nil), e.Data...)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if e.Kind == Line {
		if l.full.Load() || len(l.events) >= l.opts.MaxEvents || l.bytes+int64(len(e.Data)) > l.opts.MaxBytes {
			l.dropped.Add(1)
			if !l.full.Load() {
				l.full.Store(true)
				l.addLocked(Event{Kind: Note, From: l.opts.Writer,
					Data: []byte("transcript full: later lines are counted, not kept")})
			}
			return e
		}
		l.bytes += int64(len(e.Data))
	} else if len(l.events) >= 2*l.opts.MaxEvents {
		l.dropped.Add(1)
		return e
	}
	return l.addLocked(e)
}

func (l *Log) addLocked(e Event) Event {
	l.seq++
	e.Seq = l.seq
	e.Writer = l.opts.Writer
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	if e.Time.Before(l.last) {
		e.Time = l.last
	}
	l.last = e.Time
	l.events = append(l.events, e)
	if l.opts.Sink != nil && l.sinkErr == nil {
		b, err := encodeLine(e)
		if err == nil {
			_, err = l.opts.Sink.Write(b)
		}
		l.sinkErr = err
	}
	return e
}

// Line records a line written by from for to. eol says whether it ended with '\n'.
func (l *Log) Line(from, to string, data []byte, eol bool) {
	l.Add(Event{Kind: Line, From: from, To: to, Data: data, NoEOL: !eol})
}

// Start records that program who started as process pid with argv args.
func (l *Log) Start(who string, pid int, args []string) {
	l.Add(Event{Kind: Start, From: who, Pid: pid, Args: append([]string(nil), args...)})
}

// SendSignal records that from sent sig to to.
func (l *Log) SendSignal(from, to string, sig syscall.Signal) {
	l.Add(Event{Kind: Signal, From: from, To: to, Signal: SignalName(sig)})
}

// Exited records that program who (process pid) exited with status.
func (l *Log) Exited(who string, pid, status int) {
	l.Add(Event{Kind: Exit, From: who, Pid: pid, Status: &status})
}

// Killed records that program who (process pid) was killed by sig.
func (l *Log) Killed(who string, pid int, sig syscall.Signal) {
	l.Add(Event{Kind: Exit, From: who, Pid: pid, Signal: SignalName(sig)})
}

// Notef records a remark by who.
func (l *Log) Notef(who, format string, args ...any) {
	l.Add(Event{Kind: Note, From: who, Data: []byte(fmt.Sprintf(format, args...))})
}

// Events returns a copy of the events kept, in sequence order.
func (l *Log) Events() []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Event(nil), l.events...)
}

// Dropped returns how many events were counted but not kept because the Log was full.
func (l *Log) Dropped() int64 { return l.dropped.Load() }

// SinkErr returns the first error the Sink returned, if any.
func (l *Log) SinkErr() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sinkErr
}

// WriteText renders the events kept for people; see the package function WriteText.
func (l *Log) WriteText(w io.Writer) error { return WriteText(w, l.Events()) }

// WriteJSON writes the events kept as JSON lines; see the package function WriteJSON.
func (l *Log) WriteJSON(w io.Writer) error { return WriteJSON(w, l.Events()) }

// SignalName returns the conventional name of a signal, e.g. "SIGTERM", or "signal N" for
// one without a name.
func SignalName(sig syscall.Signal) string {
	if n := unix.SignalName(sig); n != "" {
		return n
	}
	return fmt.Sprintf("signal %d", int(sig))
}

// LineWriter is an io.Writer that cuts the bytes written to it into lines and records each
// as a Line event from From to To. It keeps at most the Log's MaxLine bytes of an unfinished
// line, so it stays small whatever it is fed. Close records a final line that has no '\n'.
type LineWriter struct {
	log      *Log
	from, to string

	mu     sync.Mutex
	buf    []byte
	cut    int64
	closed bool
}

// LineWriter returns a LineWriter recording lines from from to to.
func (l *Log) LineWriter(from, to string) *LineWriter {
	return &LineWriter{log: l, from: from, to: to}
}

// Write records every complete line in p and keeps the unfinished rest. It never fails.
func (w *LineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	if w.closed {
		return n, nil
	}
	if w.log.full.Load() {
		// Nothing more will be kept: count the lines at the speed of bytes.Count rather
		// than one locked Add each (a subject printing without end sends millions).
		if k := bytes.Count(p, []byte{'\n'}); k > 0 {
			w.log.dropped.Add(int64(k))
			w.buf, w.cut = w.buf[:0], 0
		}
		return n, nil
	}
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		room := w.log.opts.MaxLine - len(w.buf)
		if room >= len(chunk) {
			w.buf = append(w.buf, chunk...)
		} else {
			if room > 0 {
				w.buf = append(w.buf, chunk[:room]...)
			}
			w.cut += int64(len(chunk) - max(room, 0))
		}
		if i < 0 {
			break
		}
		w.emit(true)
		p = p[i+1:]
	}
	return n, nil
}

func (w *LineWriter) emit(eol bool) {
	w.log.Add(Event{Kind: Line, From: w.from, To: w.to, Data: w.buf, NoEOL: !eol, Cut: w.cut})
	w.buf = w.buf[:0]
	w.cut = 0
}

// Close records the unfinished line, if any, as a line without newline. Later writes are
// ignored. It always returns nil.
func (w *LineWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed && (len(w.buf) > 0 || w.cut > 0) {
		w.emit(false)
	}
	w.closed = true
	w.buf = nil
	return nil
}
