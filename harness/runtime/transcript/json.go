package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"time"
	"unicode/utf8"
)

// wire is the JSON form of an Event. Its field names are part of the format: change them
// only together with Version. docs/harness.md describes each field.
type wire struct {
	V      int       `json:"v"`
	Seq    uint64    `json:"seq"`
	Time   time.Time `json:"time"`
	Writer string    `json:"writer"`
	Kind   Kind      `json:"kind"`
	From   string    `json:"from,omitempty"`
	To     string    `json:"to,omitempty"`
	Text   string    `json:"text,omitempty"` // Data when it is valid UTF-8
	B64    []byte    `json:"b64,omitempty"`  // Data otherwise (base64, standard alphabet)
	NoEOL  bool      `json:"noeol,omitempty"`
	Cut    int64     `json:"cut,omitempty"`
	Signal string    `json:"signal,omitempty"`
	Status *int      `json:"status,omitempty"`
	Pid    int       `json:"pid,omitempty"`
	Args   []string  `json:"args,omitempty"`
}

func toWire(e Event) wire {
	w := wire{V: Version, Seq: e.Seq, Time: e.Time.UTC(), Writer: e.Writer, Kind: e.Kind,
		From: e.From, To: e.To, NoEOL: e.NoEOL, Cut: e.Cut, Signal: e.Signal,
		Status: e.Status, Pid: e.Pid, Args: e.Args}
	if utf8.Valid(e.Data) {
		w.Text = string(e.Data)
	} else {
		w.B64 = e.Data
	}
	return w
}

func fromWire(w wire) Event {
	e := Event{Seq: w.Seq, Time: w.Time, Writer: w.Writer, Kind: w.Kind, From: w.From,
		To: w.To, NoEOL: w.NoEOL, Cut: w.Cut, Signal: w.Signal, Status: w.Status,
		Pid: w.Pid, Args: w.Args}
	switch {
	case w.B64 != nil:
		e.Data = w.B64
	case w.Text != "":
		e.Data = []byte(w.Text)
	}
	return e
}

// encodeLine returns the JSON line of one event, '\n' included, without HTML escaping.
func encodeLine(e Event) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(toWire(e)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// MarshalJSON encodes the event in the transcript's JSON format.
func (e Event) MarshalJSON() ([]byte, error) {
	b, err := encodeLine(e)
	if err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b, []byte("\n")), nil
}

// UnmarshalJSON decodes an event in the transcript's JSON format. It rejects versions newer
// than Version.
func (e *Event) UnmarshalJSON(b []byte) error {
	var w wire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.V < 1 || w.V > Version {
		return fmt.Errorf("transcript: unsupported event version %d", w.V)
	}
	*e = fromWire(w)
	return nil
}

// WriteJSON writes the events as JSON lines: one JSON object per event, each followed by
// '\n', in the order given.
func WriteJSON(w io.Writer, events []Event) error {
	bw := bufio.NewWriter(w)
	for _, e := range events {
		b, err := encodeLine(e)
		if err != nil {
			return err
		}
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// maxJSONLine bounds one JSON line ReadJSON accepts: far above what a Log writes.
const maxJSONLine = 16 << 20

// ReadJSON reads JSON lines written by WriteJSON or by a Log's Sink. Blank lines are skipped.
// On a malformed line it returns the events read so far and an error naming the line: a
// writer killed in the middle of a write leaves at most its last line incomplete.
func ReadJSON(r io.Reader) ([]Event, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxJSONLine)
	var events []Event
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var e Event
		if err := json.Unmarshal(line, &e); err != nil {
			return events, fmt.Errorf("transcript: line %d: %w", n, err)
		}
		events = append(events, e)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = fmt.Errorf("transcript: line %d longer than %d bytes", n+1, maxJSONLine)
		}
		return events, err
	}
	return events, nil
}

// Merge returns the events of all the lists in one order: by time, then by writer, then by
// sequence number. Because a Log never lets time go backwards, each writer's own events keep
// their order; events of different processes are ordered by their clocks, which on one
// machine are the same clock.
func Merge(lists ...[]Event) []Event {
	var all []Event
	for _, l := range lists {
		all = append(all, l...)
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if !a.Time.Equal(b.Time) {
			return a.Time.Before(b.Time)
		}
		if a.Writer != b.Writer {
			return a.Writer < b.Writer
		}
		return a.Seq < b.Seq
	})
	return all
}
