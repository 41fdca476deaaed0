// Package outcome is the typed account of how a case failed, which the grader turns into a
// verdict: the script command that failed the case (harness/grading/scriptcmds) and the judge it ran
// (the mock hub, the mock clients) each say what happened as a Record, and the grader
// switches on its Kind. Messages are for people only: no verdict is read from their text,
// so rewording one changes no grade.
//
// Records are JSON lines in a file of the case's folder that the subject cannot reach (File,
// beside the script's $WORK; a judge writes its own to the file Var names, and the script
// command that ran it passes it on). Only a failure writes one, just before the command
// fails the script, so the last record of a case is the account of the failure that ended it.
package outcome

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// Kind is what happened, in the harness's terms; the grader maps each to a verdict.
type Kind string

// The kinds. A judge reports only Diverged, Silent, Exit, Signal, Limit and Harness.
const (
	// Diverged: the subject said or did something other than what its judge wanted (another
	// line, EOF, a line the rules refuse, still running where it should have ended).
	Diverged Kind = "diverged"
	// Silent: the subject said nothing (or not a whole line) within the step's time.
	Silent Kind = "silent"
	// Exit: a program ended with another exit status than the one wanted (or was killed by
	// a signal where a judge wanted an exit status: the Clue server after its game).
	Exit Kind = "exit"
	// Signal: a program was killed by a signal that was not wanted (Signal names it).
	Signal Kind = "signal"
	// Limit: a program ran into one of the grader's resource limits (Limit names it).
	Limit Kind = "limit"
	// Deadline: a run did not finish within its deadline, and was killed.
	Deadline Kind = "deadline"
	// Early: a run ended before the moment came to send it its signal.
	Early Kind = "early"
	// Left: a program left processes running (or, with run -nofiles, files behind).
	Left Kind = "left"
	// Held: a program's output was still held open once it had ended, everything of it the
	// sandbox found was killed and the mock players whose stand-ins had ended too: held by
	// something it handed its output to (the witness's mock player, given its own streams;
	// a process hidden beyond the sandbox's reach); or the program asked the witness,
	// through the door its run was handed, for what no stand-in asks (a hello of its own,
	// more mock players than the bound: harness/grading/scriptcmds's door). Unlike Left, this does
	// not depend on how long anything took.
	Held Kind = "held"
	// Mismatch: an output (Output: stdout, stderr or a file) matched none of those wanted.
	Mismatch Kind = "mismatch"
	// Missing: the program to run (Program) does not exist.
	Missing Kind = "missing"
	// Harness: the harness's own failure, or a case script's (a usage error): never the
	// subject's.
	Harness Kind = "harness"
)

// Kinds lists every kind, in the order above.
func Kinds() []Kind {
	return []Kind{Diverged, Silent, Exit, Signal, Limit, Deadline, Early, Left, Held, Mismatch, Missing, Harness}
}

// Record is one failure's account.
type Record struct {
	Kind Kind `json:"kind"`
	// By is the script command that failed ("run", "await", "cmpalt", ...).
	By string `json:"by"`
	// Judge is the judge program whose account this is ("mockhub", "mockclients"), or "".
	Judge string `json:"judge,omitempty"`
	// Program is the program the record is about, as the script named it.
	Program string `json:"program,omitempty"`
	// Step is a judge's step (1-based) where the subject diverged, or 0.
	Step int `json:"step,omitempty"`
	// Want and Got are what was wanted and what came, in the harness's words. For a Limit
	// of a run, Want is set when the limit showed as the exit status the run checked (a
	// program killed by SIGXCPU), and empty when the sandbox named it.
	Want string `json:"want,omitempty"`
	Got  string `json:"got,omitempty"`
	// Signal is the signal that killed the program (SIGSEGV), for Signal and Limit.
	Signal string `json:"signal,omitempty"`
	// Limit names the limit of a Limit: "cpu", "file-size", "memory", "processes",
	// "output", or one of the whole case's totals.
	Limit string `json:"limit,omitempty"`
	// Output is the output a Mismatch compared: "stdout", "stderr" or a file's name.
	Output string `json:"output,omitempty"`
	// Hang is, for a Deadline, what the processes were doing when it passed (the
	// sandbox's diagnosis: "deadlock", "leaked-pipe", "busy-loop", "blocked-write",
	// "sleeping", "unknown"); "" when there was none.
	Hang string `json:"hang,omitempty"`
	// LineDue, in a judge's Silent record, says that a whole line of the subject's was due
	// at the failed step (a reply, the handshake) and nothing of it came: what a grader's
	// hint about unflushed output rests on.
	LineDue bool `json:"lineDue,omitempty"`
	// Partial, in a judge's record, says that what the subject wrote last at the failed step
	// was a line without its newline, after which nothing more came (silence, or the end of
	// its output).
	Partial bool `json:"partial,omitempty"`
	// Zombie, for Left, says that what the program left behind holds a zombie: a child
	// that ended and was never waited for (the sandbox's hygiene audit found it).
	Zombie bool `json:"zombie,omitempty"`
	// Message is the failure's message as the log shows it, for people. Never read for a
	// verdict, a hint or a section of a report.
	Message string `json:"message,omitempty"`
}

// File is the name of the records' file, in the folder above a script's $WORK.
const File = "outcome.jsonl"

// Var, in a judge's environment, names the file the judge writes its record to. It is the
// script command's to read: a judge's record becomes the case's when the command fails on
// the judge's verdict.
const Var = "GAUNTLET_OUTCOME"

// Append adds rec to the file at path (made 0600 when missing; a symbolic link there is
// refused).
func Append(path string, rec Record) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Read returns the records of the file at path, in the order they were written; none when
// there is no file.
func Read(path string) ([]Record, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var recs []Record
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return recs, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		recs = append(recs, r)
	}
	return recs, sc.Err()
}

// Last returns the last record of the file at path; ok is false when it holds none.
func Last(path string) (rec Record, ok bool, err error) {
	recs, err := Read(path)
	if len(recs) == 0 {
		return Record{}, false, err
	}
	return recs[len(recs)-1], true, err
}

// TakeVar returns the file Var names ("" when it names none) and removes Var from the
// environment, so that no program the judge starts inherits it.
func TakeVar() string {
	path := os.Getenv(Var)
	os.Unsetenv(Var)
	return path
}

// Reporter writes a judge's record to its file (TakeVar), when it has one.
type Reporter string

// Report writes rec, with the judge's name set, to the reporter's file; without a file it
// does nothing.
func (r Reporter) Report(judge string, rec Record) error {
	if r == "" {
		return nil
	}
	rec.Judge = judge
	return Append(string(r), rec)
}
