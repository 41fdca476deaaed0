// Package suite runs testscript conformance scripts outside `go test` and reports each
// case's outcome: the grader's and the meta-tests' way of running a suite.
//
// testscript drives its scripts through a small testing interface (testscript.T); this
// package implements it, so that every script becomes one Result with its full log.
package suite

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// LenientMark starts a log line that records a check passed on an allowed alternative. It
// carries a token drawn once per process, so that a subject whose output is in the same
// log cannot write a line that counts as one. It is drawn when first asked for, not when
// the binary starts: every reference program is this binary too, and does not need one.
var LenientMark = sync.OnceValue(func() string { return "PASS-LENIENT[" + randomToken() + "]: " })

func randomToken() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// Result is the outcome of one script.
type Result struct {
	Name     string   // the script's name, without .txtar
	Passed   bool     // every command succeeded
	Skipped  bool     // the script skipped itself
	Lenient  []string // checks that passed on an allowed alternative
	Log      string   // everything testscript logged: commands, outputs, the failure
	Duration time.Duration
}

// Run runs every script that p selects (p.Dir or p.Files) and returns one Result per script,
// in the order testscript ran them.
func Run(p testscript.Params) []Result {
	root := &caseT{}
	testscript.RunT(root, p)
	return root.results
}

// caseT implements testscript.T. The root collects one Result per subtest (script).
type caseT struct {
	mu      sync.Mutex
	log     strings.Builder
	failed  bool
	skipped bool
	results []Result
}

func (t *caseT) Log(args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintln(&t.log, args...)
}

func (t *caseT) Fatal(args ...any) {
	t.Log(args...)
	t.FailNow()
}

func (t *caseT) FailNow() {
	t.mu.Lock()
	t.failed = true
	t.mu.Unlock()
	runtime.Goexit()
}

func (t *caseT) Skip(args ...any) {
	t.Log(args...)
	t.mu.Lock()
	t.skipped = true
	t.mu.Unlock()
	runtime.Goexit()
}

func (t *caseT) Parallel()     {}
func (t *caseT) Verbose() bool { return true }

// Run runs one script as a subtest, in its own goroutine so that FailNow can end it.
func (t *caseT) Run(name string, f func(testscript.T)) {
	sub := &caseT{}
	start := time.Now()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(sub)
	}()
	<-done
	r := Result{
		Name:     name,
		Passed:   !sub.failed && !sub.skipped,
		Skipped:  sub.skipped,
		Log:      sub.log.String(),
		Duration: time.Since(start),
	}
	r.Lenient = lenientLines(r.Log)
	t.mu.Lock()
	t.results = append(t.results, sub.results...)
	if len(sub.results) == 0 {
		t.results = append(t.results, r)
	}
	t.mu.Unlock()
}

// lenientLines returns what the log's lenient marks say, in order.
func lenientLines(log string) []string {
	var out []string
	for _, line := range strings.Split(log, "\n") {
		if what, ok := strings.CutPrefix(line, LenientMark()); ok {
			out = append(out, what)
		}
	}
	return out
}
