package transcript

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteText renders events for people, one event per line, in the order given:
//
//	# transcript v1: 4 events from 2024-05-01T10:00:00Z, times in seconds since then
//	+0.000000  start   hub              | pid 4242: ./dealer deck 2
//	+0.000120  line    hub -> player 0  | 5,2
//	+0.000410  line    player 0 stderr  | bad\x01 [no newline]
//	+1.000000  signal  harness -> hub   | SIGTERM
//
// The time is seconds since the first event. A line's channel is "FROM -> TO", or "FROM
// stdout" / "FROM stderr" for a program's own output. Line contents are escaped by Escape;
// a line that ended without '\n' is marked "[no newline]", a cut one "[cut: N more bytes]".
// When the events come from more than one writer (a merged transcript), a column names the
// writer of each.
func WriteText(w io.Writer, events []Event) error {
	bw := bufio.NewWriter(w)
	if len(events) == 0 {
		fmt.Fprintf(bw, "# transcript v%d: no events\n", Version)
		return bw.Flush()
	}
	t0 := events[0].Time
	writers := map[string]bool{}
	width, wwidth := 0, 0
	for _, e := range events {
		width = max(width, len(channel(e)))
		wwidth = max(wwidth, len(e.Writer))
		writers[e.Writer] = true
	}
	fmt.Fprintf(bw, "# transcript v%d: %d events from %s, times in seconds since then\n",
		Version, len(events), t0.UTC().Format("2006-01-02T15:04:05.000000000Z"))
	for _, e := range events {
		fmt.Fprintf(bw, "+%.6f  %-6s  ", e.Time.Sub(t0).Seconds(), e.Kind)
		if len(writers) > 1 {
			fmt.Fprintf(bw, "[%-*s]  ", wwidth, e.Writer)
		}
		fmt.Fprintf(bw, "%-*s | %s\n", width, channel(e), content(e))
	}
	return bw.Flush()
}

// channel is the who-to-whom column of an event.
func channel(e Event) string {
	switch {
	case e.Kind == Line && (e.To == Stdout || e.To == Stderr):
		return e.From + " " + e.To
	case e.To != "":
		return e.From + " -> " + e.To
	}
	return e.From
}

// content is the what column of an event.
func content(e Event) string {
	switch e.Kind {
	case Line:
		s := Escape(e.Data)
		if e.Cut > 0 {
			s += fmt.Sprintf(" [cut: %d more bytes]", e.Cut)
		}
		if e.NoEOL {
			s += " [no newline]"
		}
		return s
	case Start:
		args := make([]string, len(e.Args))
		for i, a := range e.Args {
			args[i] = quoteArg(a)
		}
		if e.Pid != 0 {
			return fmt.Sprintf("pid %d: %s", e.Pid, strings.Join(args, " "))
		}
		return strings.Join(args, " ")
	case Signal:
		return e.Signal
	case Exit:
		var s string
		switch {
		case e.Signal != "":
			s = "killed by " + e.Signal
		case e.Status != nil:
			s = "exit status " + strconv.Itoa(*e.Status)
		default:
			s = "ended"
		}
		if e.Pid != 0 {
			s += fmt.Sprintf(" (pid %d)", e.Pid)
		}
		return s
	}
	return Escape(e.Data)
}

// Escape shows bytes so that every one of them is visible and unambiguous: printable ASCII
// stays as it is, a backslash becomes `\\`, tab and carriage return become `\t` and `\r`,
// and every other byte (control bytes, DEL, and all bytes >= 0x80) becomes `\xNN`.
func Escape(b []byte) string {
	var s strings.Builder
	for _, c := range b {
		switch {
		case c == '\\':
			s.WriteString(`\\`)
		case c == '\t':
			s.WriteString(`\t`)
		case c == '\r':
			s.WriteString(`\r`)
		case c == '\n':
			s.WriteString(`\n`)
		case c >= 0x20 && c < 0x7f:
			s.WriteByte(c)
		default:
			fmt.Fprintf(&s, `\x%02x`, c)
		}
	}
	return s.String()
}

// quoteArg shows an argument as it is when that is unambiguous, else as a quoted Go string.
func quoteArg(a string) string {
	if a == "" || strings.ContainsAny(a, " \"'\\") || Escape([]byte(a)) != a {
		return strconv.Quote(a)
	}
	return a
}
