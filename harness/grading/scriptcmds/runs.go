package scriptcmds

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// RunsKey, in a script's Values (testscript.Env.Values), holds the *Runs in which run
// records every program the script runs. A grader sets it to show each run as a person
// would type it, after the run's own line of the log.
type RunsKey struct{}

// Runs is the typed account of the programs a script ran, in order: what the grader's
// annotations of a log are made from, never from the log's text (which holds the subject's
// output, where a line "> run evil" is as easy to print as any). run writes, as the first
// line it logs, Mark followed by the index of its record: the place of the run's record in
// the log, which a subject cannot imitate (the mark is drawn for each script and given to
// no program).
type Runs struct {
	mark string
	mu   sync.Mutex
	list []RunRecord
	// out: the stdout and stderr a command of these last made the script's (a run that
	// ended, a transcript), as the commands after it compare them; set says there is one.
	out [2][]byte
	set bool
}

// RunRecord is one program run: as the script named it (its variables expanded) and its
// arguments.
type RunRecord struct {
	Program string   // the program, as the script named it (a path, or a name PATH finds)
	Args    []string // its arguments
	Judge   bool     // a judge (the mock hub, the mock clients), which runs the subject
}

// NewRuns returns an empty account with a mark of its own.
func NewRuns() *Runs {
	b := make([]byte, 12)
	rand.Read(b)
	return &Runs{mark: "RUN[" + hex.EncodeToString(b) + "] "}
}

// Mark starts the log line run writes for each of its records, followed by the record's
// index.
func (r *Runs) Mark() string { return r.mark }

// Records returns the runs recorded, in the order they started.
func (r *Runs) Records() []RunRecord {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]RunRecord(nil), r.list...)
}

// At says whether a log line is one of the marks run writes (Mark), and returns the record
// it points to (nil for a mark of no record).
func (r *Runs) At(line string) (rec *RunRecord, marked bool) {
	rest, ok := strings.CutPrefix(line, r.mark)
	if !ok {
		return nil, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	i, err := strconv.Atoi(rest)
	if err != nil || i < 0 || i >= len(r.list) {
		return nil, true
	}
	c := r.list[i]
	return &c, true
}

// Output returns the stdout or stderr ("stdout", "stderr") that a command of these last
// made the script's: a run's, as it wrote it, or a transcript's. ok is false when none
// did, or r is nil. A command of testscript's own that sets them (exec, env, wait) is not
// seen: the caller checks the text against what it compares.
func (r *Runs) Output(stream string) (text string, ok bool) {
	if r == nil {
		return "", false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case !r.set:
		return "", false
	case stream == "stdout":
		return string(r.out[0]), true
	case stream == "stderr":
		return string(r.out[1]), true
	}
	return "", false
}

// SetOutput records the stdout and stderr that a command made the script's.
func (r *Runs) SetOutput(stdout, stderr []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.out, r.set = [2][]byte{stdout, stderr}, true
}

// setOutput makes stdout and stderr the script's, and records them in its account when
// its grader keeps one.
func setOutput(ts *testscript.TestScript, stdout, stderr []byte) {
	ts.Stdout().Write(stdout)
	ts.Stderr().Write(stderr)
	if r, _ := ts.Value(RunsKey{}).(*Runs); r != nil {
		r.SetOutput(stdout, stderr)
	}
}

// Add records a run and returns the line that marks its place in the log.
func (r *Runs) Add(rec RunRecord) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.list = append(r.list, rec)
	return r.mark + strconv.Itoa(len(r.list)-1)
}

// recordRun adds a run to the script's account, when its grader keeps one, and marks its
// place in the log.
func recordRun(ts *testscript.TestScript, rec RunRecord) {
	if r, _ := ts.Value(RunsKey{}).(*Runs); r != nil {
		ts.Logf("%s", r.Add(rec))
	}
}
