package grade

import (
	"encoding/json"
	"io"
	"sync"
)

// Event is one line of the event stream (gauntlet grade -events): what a machine watching
// a grade learns as soon as it is known, one JSON object a line, as `go test -json` gives a
// test run's. docs/report-format.md describes it.
type Event struct {
	// Event is "case" (a case run ended), "alone" (a case run was run again alone, and
	// this outcome replaces the "case" one of the same case run: Rerun) or "report"
	// (a submission's report is made: the last event of the submission).
	Event      string `json:"event"`
	Submission string `json:"submission"` // the submission's name (a cohort's), or the subject's
	// Case is the case run's outcome as the JSON report gives it ("case", "alone").
	Case *CaseReport `json:"case,omitempty"`
	// The report's marks, maximum and verdict counts ("report"); an incomplete grade has
	// no marks (Report.Incomplete).
	Marks      *float64        `json:"marks,omitempty"`
	MaxMarks   *float64        `json:"max_marks,omitempty"`
	Incomplete bool            `json:"incomplete,omitempty"`
	Counts     map[Verdict]int `json:"counts,omitempty"`
}

// Events writes the event stream to w, one line per event, whole lines even when the
// cases of several goroutines end at once.
type Events struct {
	mu  sync.Mutex
	enc *json.Encoder
	err error
}

// NewEvents streams events to w.
func NewEvents(w io.Writer) *Events { return &Events{enc: json.NewEncoder(w)} }

func (e *Events) write(ev Event) {
	if e == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.enc.Encode(ev); err != nil && e.err == nil {
		e.err = err
	}
}

// Case says that a case run of submission sub ended with o.
func (e *Events) Case(sub string, o Outcome) {
	c := o.report()
	e.write(Event{Event: "case", Submission: sub, Case: &c})
}

// Alone says that a case run of sub, run again alone, ended with o.
func (e *Events) Alone(sub string, o Outcome) {
	c := o.report()
	e.write(Event{Event: "alone", Submission: sub, Case: &c})
}

// Report says that sub's report r is made.
func (e *Events) Report(sub string, r *Report) {
	max := r.MaxMarks
	e.write(Event{Event: "report", Submission: sub, Marks: r.Marks, MaxMarks: &max, Incomplete: r.Incomplete, Counts: r.Counts})
}

// Err is the first error writing the stream met, if any.
func (e *Events) Err() error {
	if e == nil {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}
