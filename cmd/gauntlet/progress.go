package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"gauntlet/harness/grading/grade"
	"gauntlet/harness/grading/term"
)

// progress shows a single-folder grade while it runs, on stderr: each failure on a line of
// its own as soon as it is known, and, on a terminal, a progress line (case runs done of
// all, marks so far, time spent and an estimate of the time left). With failfast it stops
// the grade at the first failure.
type progress struct {
	mu        sync.Mutex
	w         io.Writer
	tty       bool
	g         grade.Game
	total     int
	done      int
	outs      []grade.Outcome
	start     time.Time
	failfast  bool
	stop      chan struct{}
	stopOnce  sync.Once
	lineShown bool
	seen      map[string]int // BUILD-FAIL details already shown
	stopped   bool           // failfast stopped the grade
}

func newProgress(w io.Writer, g grade.Game, total int, failfast bool) *progress {
	p := &progress{w: w, g: g, total: total, start: time.Now(), failfast: failfast, stop: make(chan struct{}),
		seen: map[string]int{}}
	p.tty = term.IsTerminal(w)
	return p
}

// outcome takes one finished case run.
func (p *progress) outcome(o grade.Outcome) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	p.outs = append(p.outs, o)
	if p.lineShown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.lineShown = false
	}
	if !o.Verdict.Passed() {
		name := o.Case.ID
		if o.Pairing != grade.Theirs {
			name += "@" + string(o.Pairing)
		}
		// A program that was not built fails every case that needs it: said once.
		if o.Verdict == grade.BuildFail {
			p.seen[o.Detail]++
			if p.seen[o.Detail] == 1 {
				fmt.Fprintf(p.w, "%s: %s (every case that needs it)\n", o.Verdict, o.Detail)
			}
		} else {
			fmt.Fprintf(p.w, "%s %s: %s\n", o.Verdict, name, firstLine(o.Detail))
		}
		if p.failfast && o.Verdict != grade.HarnessError {
			p.stopped = true
			p.stopOnce.Do(func() { close(p.stop) })
		}
	}
	if p.tty {
		marks := 0.0
		for _, m := range grade.Marks(p.g, p.outs) {
			marks += m.Marks
		}
		elapsed := time.Since(p.start)
		left := time.Duration(float64(elapsed) / float64(p.done) * float64(p.total-p.done))
		fmt.Fprintf(p.w, "[%d/%d] %.2f marks so far, %v, about %v left", p.done, p.total, marks,
			elapsed.Round(time.Second), left.Round(time.Second))
		p.lineShown = true
	}
}

// finish clears the progress line.
func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lineShown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.lineShown = false
	}
}

func firstLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}
