package scriptcmds

import (
	"fmt"
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"

	"gauntlet/harness/judges/outcome"
)

// A command of this package that fails the script first writes the failure's record
// (package outcome) to outcome.File in the folder above $WORK, beside JudgeOutputFile,
// where the subject cannot write: the grader's verdict comes from the record's kind, never
// from the message. Only a failure writes one, so the last record of a case is the account
// of the command that ended it. A judge's own record (the step where the subject diverged)
// comes through the file outcome.Var names, which run hands it and reads back.

// outcomePath is the case's records file.
func outcomePath(ts *testscript.TestScript) string {
	return filepath.Join(filepath.Dir(ts.Getenv("WORK")), outcome.File)
}

// fail records rec, with the message as its Message, and fails the script with the message.
func fail(ts *testscript.TestScript, rec outcome.Record, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	rec.Message = msg
	if rec.By == "" {
		rec.By = currentCommand(ts)
	}
	writeRecord(ts, rec)
	ts.Fatalf("%s", msg)
}

// harnessFail fails the script with a harness record: the harness's own failure, or the
// script's (a usage error).
func harnessFail(ts *testscript.TestScript, format string, args ...any) {
	fail(ts, outcome.Record{Kind: outcome.Harness}, format, args...)
}

// writeRecord appends rec to the case's records file, noting it for recorded.
func writeRecord(ts *testscript.TestScript, rec outcome.Record) {
	if err := outcome.Append(outcomePath(ts), rec); err != nil {
		ts.Logf("harness error: the failure's record: %v", err)
	}
	if s, ok := ts.Value(recordStateKey{}).(*recordState); ok {
		s.written = true
	}
}

// recordStateKey, in a script's values (Setup), holds its *recordState.
type recordStateKey struct{}

// recordState is what recorded knows of the command running.
type recordState struct {
	command string // the name of the command running
	written bool   // it wrote a record
}

func currentCommand(ts *testscript.TestScript) string {
	if s, ok := ts.Value(recordStateKey{}).(*recordState); ok {
		return s.command
	}
	return ""
}

// recorded wraps a command so that it never fails without a record: a failure that did not
// write one (ts.Check on a file the script names, say) gets a harness record.
func recorded(name string, run func(ts *testscript.TestScript, neg bool, args []string)) func(ts *testscript.TestScript, neg bool, args []string) {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		s, ok := ts.Value(recordStateKey{}).(*recordState)
		if !ok {
			// Not set up by Setup: the command still writes its records, and only a
			// failure without one goes unrecorded.
			run(ts, neg, args)
			return
		}
		*s = recordState{command: name}
		returned := false
		defer func() {
			if !returned && !s.written {
				writeRecord(ts, outcome.Record{Kind: outcome.Harness, By: name,
					Message: name + " failed without a record of why (see the log)"})
			}
		}()
		run(ts, neg, args)
		returned = true
	}
}
