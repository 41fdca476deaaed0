package mockhub

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"gauntlet/harness/judges/outcome"
)

const usage = `usage: mockhub [-timeout D] [-alt CONVERSATION]... CONVERSATION PROGRAM

The mock hub. It starts PROGRAM with the conversation's arguments, plays the conversation
(see 'go doc gauntlet/harness/judges/mockhub'), and prints "ok: ..." or "FAIL at step N
(line L of the conversation: STEP) ...", the latter followed by the conversation up to the
first divergence (the last 20 steps, numbered as N is), the divergent step marked with
'>'. The player's stderr is copied to the mock hub's stderr, so a script can compare it.
Exit status: 0 when the player followed the conversation, 1 when it diverged, 2 on a usage
error or when PROGRAM cannot be started.

-alt names an allowed alternative, for a point where the spec allows more than one
behaviour: when the player diverges from CONVERSATION, it is started again and played each
alternative in turn; if one matches, the mock hub prints "ok on the alternative FILE: ..."
and exits 3 (a script accepts it with run -status 0,3, which the grader reports as
PASS-LENIENT, naming the alternative). When none matches, the run reported is the one the
player followed furthest (the main one on a tie), named at the end of its FAIL line when it
is an alternative. With -alt, the stderr copied is the player's in the run reported.
`

// AltStatus is the mock hub's exit status when the player matched an alternative
// conversation (-alt) rather than the main one.
const AltStatus = 3

// AltPrefix starts the report of a run that matched an alternative: "ok on the alternative
// FILE: N steps matched; ...".
const AltPrefix = "ok on the alternative "

// alts collects the repeatable -alt flag.
type alts []string

func (a *alts) String() string     { return strings.Join(*a, ",") }
func (a *alts) Set(v string) error { *a = append(*a, v); return nil }

// SubjectEnv, in the mock hub's environment, says as whom and where to start the player
// when the mock hub runs as root in a grader's box: "UID:GID:DIR"; or, in a grader that
// is not root, where and in what box: a Subject as JSON, with Dir and Keep. The grader's script
// commands set it (the mock hub is the judge, the player the subject, and the two never
// share a user); it is not passed on to the player.
const SubjectEnv = "GAUNTLET_SUBJECT"

// Main is the mockhub command. Besides its report, it gives its account to the file
// outcome.Var names, when it names one (see package outcome): the failed step's record when
// the player diverged, a harness record when the mock hub itself failed (exit 2).
func Main(args []string, stdout, stderr io.Writer) int {
	rep := outcome.Reporter(outcome.TakeVar())
	// harnessError reports the mock hub's own failure, and returns its exit status.
	harnessError := func(format string, a ...any) int {
		msg := fmt.Sprintf(format, a...)
		fmt.Fprintln(stderr, msg)
		rep.Report("mockhub", outcome.Record{Kind: outcome.Harness, Message: msg})
		return 2
	}
	subject, err := SubjectFromEnv()
	if err != nil {
		return harnessError("mockhub: $%s: %v", SubjectEnv, err)
	}
	// Nothing of the same user may trace this process or read its memory: it holds the
	// conversation the player is judged by.
	if err := Undumpable(subject); err != nil {
		return harnessError("mockhub: cannot make itself undumpable: %v", err)
	}
	fs := flag.NewFlagSet("mockhub", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	timeout := fs.Duration("timeout", 0, "how long to wait for the player at one step (default 5s)")
	var alternatives alts
	fs.Var(&alternatives, "alt", "an allowed alternative `CONVERSATION`, tried when the player diverges from the main one (repeatable)")
	if err := fs.Parse(args); err != nil {
		rep.Report("mockhub", outcome.Record{Kind: outcome.Harness, Message: "mockhub: " + err.Error()})
		return 2
	}
	if fs.NArg() != 2 {
		fs.Usage()
		rep.Report("mockhub", outcome.Record{Kind: outcome.Harness, Message: "mockhub: usage"})
		return 2
	}
	convs := make([]*Conversation, 0, 1+len(alternatives))
	for _, file := range append([]string{fs.Arg(0)}, alternatives...) {
		text, err := os.ReadFile(file)
		if err != nil {
			return harnessError("mockhub: %v", err)
		}
		conv, err := Parse(string(text))
		if err != nil {
			return harnessError("mockhub: %s: %v", file, err)
		}
		convs = append(convs, conv)
	}
	if len(convs) == 1 {
		res, err := Run(convs[0], fs.Arg(1), Options{StepTimeout: *timeout, Stderr: stderr, Subject: subject})
		if err != nil {
			return harnessError("mockhub: %v", err)
		}
		fmt.Fprintln(stdout, res.Report())
		if !res.OK {
			rep.Report("mockhub", res.Record())
			return 1
		}
		return 0
	}
	// Each run's stderr is kept apart, and only the reported run's is copied. When every
	// conversation fails, the one the player followed furthest is reported (the main one on
	// a tie): its divergence is the player's fault, where the others' may be a reading it
	// did not take.
	var best Result
	var bestErr []byte
	bestAt := -1
	for i, conv := range convs {
		var buf boundedBuffer
		res, err := Run(conv, fs.Arg(1), Options{StepTimeout: *timeout, Stderr: &buf, Subject: subject})
		if err != nil {
			return harnessError("mockhub: %v", err)
		}
		switch {
		case res.OK && i == 0:
			stderr.Write(buf.b)
			fmt.Fprintln(stdout, res.Report())
			return 0
		case res.OK:
			stderr.Write(buf.b)
			fmt.Fprintln(stdout, AltPrefix+alternatives[i-1]+": "+strings.TrimPrefix(res.Report(), "ok: "))
			return AltStatus
		case bestAt < 0 || res.Steps > best.Steps:
			best, bestErr, bestAt = res, buf.b, i
		}
	}
	stderr.Write(bestErr)
	report := best.Report()
	if bestAt > 0 {
		line, rest, _ := strings.Cut(report, "\n")
		report = line + "; the closest allowed conversation: " + alternatives[bestAt-1]
		if rest != "" {
			report += "\n" + rest
		}
	}
	fmt.Fprintln(stdout, report)
	rec := best.Record()
	rec.Message, _, _ = strings.Cut(report, "\n")
	rep.Report("mockhub", rec)
	return 1
}

// boundedBuffer keeps the first MaxStderr bytes written to it.
type boundedBuffer struct{ b []byte }

// MaxStderr bounds the player's stderr a mock hub with alternatives keeps from each run.
const MaxStderr = 1 << 20

func (w *boundedBuffer) Write(p []byte) (int, error) {
	if room := MaxStderr - len(w.b); room > 0 {
		w.b = append(w.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// SubjectFromEnv reads SubjectEnv, and removes it from the environment the player gets.
func SubjectFromEnv() (*Subject, error) {
	v, ok := os.LookupEnv(SubjectEnv)
	if !ok {
		return nil, nil
	}
	os.Unsetenv(SubjectEnv)
	if strings.HasPrefix(v, "{") {
		// A rootless grade's subject: {"Dir": ..., "Keep": [...]}, the judge's user.
		var s Subject
		if err := json.Unmarshal([]byte(v), &s); err != nil || s.Dir == "" || len(s.Keep) == 0 || s.UID != 0 {
			return nil, fmt.Errorf("want a rootless subject's folder and box, got %q", v)
		}
		return &s, nil
	}
	f := strings.SplitN(v, ":", 3)
	if len(f) != 3 {
		return nil, fmt.Errorf("want UID:GID:DIR, got %q", v)
	}
	uid, err1 := strconv.ParseUint(f[0], 10, 32)
	gid, err2 := strconv.ParseUint(f[1], 10, 32)
	if err1 != nil || err2 != nil || uid == 0 || f[2] == "" {
		return nil, fmt.Errorf("want UID:GID:DIR with a UID other than root, got %q", v)
	}
	return &Subject{UID: uint32(uid), GID: uint32(gid), Dir: f[2]}, nil
}

// Undumpable makes this judge undumpable: nothing of the same user may trace it or read its
// memory, which holds what the subject is judged by. Not for a rootless subject (the
// judge's user, in a box of its own): the subject's user namespace and PID namespace
// already keep the judge out of its reach, and the judge must write the namespace's user
// map, which the kernel hides from an undumpable parent.
func Undumpable(subj *Subject) error {
	if subj != nil && subj.UID == 0 && len(subj.Keep) > 0 {
		return nil
	}
	return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
}
