package scriptcmds

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"gauntlet/harness/box/hygiene"
	"gauntlet/harness/box/sandbox"
	"gauntlet/harness/grading/suite"
	"gauntlet/harness/judges/outcome"
	"gauntlet/internal/buildtest"
)

// runScript runs one script text through testscript with these commands.
func runScript(t *testing.T, script string) suite.Result {
	t.Helper()
	r, _ := runScriptRecords(t, script)
	return r
}

// runCase writes script as dir/case.txtar and runs it, with dir as the work root, as the
// one case of a suite (suite.Run), a command needing an explicit exec as in a grader's.
// The case is set up by p.Setup (nil: the package's Setup; a test's own calls Setup
// itself) and has the commands p.Cmds (nil: the package's Commands).
func runCase(t *testing.T, dir, script string, p testscript.Params) suite.Result {
	t.Helper()
	path := filepath.Join(dir, "case.txtar")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	p.Files = []string{path}
	p.WorkdirRoot = dir
	p.RequireExplicitExec = true
	if p.Setup == nil {
		p.Setup = Setup
	}
	if p.Cmds == nil {
		p.Cmds = Commands()
	}
	res := suite.Run(p)
	if len(res) != 1 {
		t.Fatalf("got %d results", len(res))
	}
	return res[0]
}

// runScriptRecords runs one script and returns the records its commands wrote (package
// outcome).
func runScriptRecords(t *testing.T, script string) (suite.Result, []outcome.Record) {
	t.Helper()
	dir := t.TempDir()
	res := runCase(t, dir, script, testscript.Params{})
	recs, err := outcome.Read(filepath.Join(dir, outcome.File))
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs { // as the log shows the script's folder
		recs[i].Message = strings.ReplaceAll(recs[i].Message, filepath.Join(dir, "script-case"), "$WORK")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "judge-outcome-*")); len(left) > 0 {
		t.Errorf("judges' record files left behind: %q", left)
	}
	return res, recs
}

// Each command must fail when its expectation is not met, with a message that says why.
// commandFailures are TestCommandsFail's: each way a command fails, and its record.
var commandFailures = []struct {
	name, script, why string
	kind              outcome.Kind // of the failure's record
}{
	{"wrong status", "run -status 0 sh -c 'exit 3'\n", "want exit 0, got 3", outcome.Exit},
	{"wrong alternative status", "run -status 4,6 sh -c 'exit 5'\n", "want exit 4 or 6, got 5", outcome.Exit},
	{"signal death when a status was wanted", "run -status 0 sh -c 'kill -SEGV $$'\n", "got signal:SEGV", outcome.Signal},
	{"deadline", "run -timeout 200ms sleep 30\n", "did not finish within 200ms", outcome.Deadline},
	// The diagnosis names the program it saw, not a role ("subject") it may not have.
	{"deadline names the program", "run -timeout 1s sleep 30\n", "(sleep) sleeping", outcome.Deadline},
	{"signal moment never came", "run -signal HUP -after-stdout never sh -c 'echo x'\n", "before the moment to send", outcome.Early},
	{"left a process in its group", "run sh -c 'sleep 30 & exit 0'\n", "left processes running", outcome.Left},
	{"endless output", "run -status any sh -c 'yes'\n", "wrote more than", outcome.Limit},
	{"a program killed by SIGXCPU", "run sh -c 'kill -XCPU $$'\n", "ran into the cpu limit", outcome.Limit},
	{"cmpalt mismatch", "run sh -c 'echo c'\ncmpalt stdout a.txt b.txt\n-- a.txt --\na\n-- b.txt --\nb\n", "matches none of a.txt, b.txt", outcome.Mismatch},
	{"cmpalt on a file never written", "cmpalt out.txt a.txt\n-- a.txt --\na\n", "no such file or directory", outcome.Mismatch},
	{"cmpprefix mismatch", "run sh -c 'printf \"a\\\\nc\\\\nd\\\\n\"'\ncmpprefix stdout w.txt\n-- w.txt --\na\nb\n", "stdout does not begin with w.txt", outcome.Mismatch},
	{"cmpprefix shorter output", "run sh -c 'echo a'\ncmpprefix stdout w.txt\n-- w.txt --\na\nb\n", "does not begin with", outcome.Mismatch},
	{"run finds an escaped process", "run sh -c 'setsid sleep 30 >/dev/null 2>&1 < /dev/null & sleep 0.3; exit 0'\n", "process left running", outcome.Left},
	{"noprocs finds an escaped process", "exec sh -c 'setsid sleep 30 >/dev/null 2>&1 < /dev/null & sleep 0.3; exit 0'\nnoprocs\n", "noprocs: still running", outcome.Left},
	{"a program not in PATH", "run no-such-program-here\n", "executable file not found", outcome.Missing},
	{"a program path that is not there", "run ./gone\n", "no such file or directory", outcome.Missing},
	// A script whose interpreter is missing: the program's fault, told from the file.
	{"a script whose interpreter is not there", "chmod 755 prog\nrun ./prog\n-- prog --\n#!/no/such/interpreter\n", "no such file or directory", outcome.Missing},
	{"a usage error", "run -status\n", "flag needs an argument", outcome.Harness},
	// A mock player's record that is not there is a player the hub never started (a hub
	// that ran player 0's program for every player); one that does not read, a mock cut off
	// mid-line: the subject's doing, not the harness's (until 2026-12-07: a harness record,
	// "open $WORK/p1.rec").
	{"a conversation never recorded", "transcript p1.rec\n", "no conversation was recorded", outcome.Diverged},
	{"a conversation cut off", "transcript p1.rec\n-- p1.rec --\n{\"t\":1,\"from\n", "the recorded conversation does not read", outcome.Diverged},
	{"nothing listens", "waitport -timeout 100ms 1\n", "nothing listens", outcome.Silent},
	{"a server that ended without listening", "run sh -c 'exit 0' &srv&\nwaitport -timeout 5s 1\n", "every run in the background has ended", outcome.Early},
	// A failure of a command that wrote no record of its own (ts.Check on the script's
	// file): the wrapper's harness record.
	{"a stdin the script does not have", "run -stdin missing.txt sh -c 'exit 0'\n", "no such file or directory", outcome.Harness},
}

func TestCommandsFail(t *testing.T) {
	t.Parallel()
	tests := commandFailures
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, recs := runScriptRecords(t, tc.script)
			if r.Passed {
				t.Fatalf("script passed; want a failure mentioning %q\n%s", tc.why, r.Log)
			}
			if !strings.Contains(r.Log, tc.why) {
				t.Fatalf("failure does not mention %q:\n%s", tc.why, r.Log)
			}
			if len(recs) != 1 || recs[0].Kind != tc.kind {
				t.Fatalf("records %+v, want one of kind %s\n%s", recs, tc.kind, r.Log)
			}
			// The record's message is the log's FAIL line (but the wrapper's, which has none).
			wrapped := strings.HasSuffix(recs[0].Message, "failed without a record of why (see the log)")
			if !wrapped && !strings.Contains(r.Log, ": "+recs[0].Message+"\n") || recs[0].By == "" {
				t.Errorf("record %+v: its message is not the FAIL line's, or it names no command:\n%s", recs[0], r.Log)
			}
		})
	}
}

func TestLenientIsReported(t *testing.T) {
	t.Parallel()
	r := runScript(t, "run -status 4,6 sh -c 'exit 6'\n")
	if !r.Passed || len(r.Lenient) != 1 || r.Lenient[0] != "exit 6 accepted instead of 4" {
		t.Fatalf("result %+v", r)
	}
	r = runScript(t, "run -status 4,6 sh -c 'exit 4'\n")
	if !r.Passed || len(r.Lenient) != 0 {
		t.Fatalf("result %+v", r)
	}
}

// cmpprefix passes on an output that begins with the wanted text, whatever follows, and
// shows the differing line of one that does not.
func TestCmpPrefix(t *testing.T) {
	if r := runScript(t, "run sh -c 'printf \"a\\\\nb\\\\nEarly game over\\\\n\"'\ncmpprefix stdout w.txt\n-- w.txt --\na\nb\n"); !r.Passed || len(r.Lenient) != 0 {
		t.Fatalf("an output beginning with the wanted text failed:\n%s", r.Log)
	}
	r := runScript(t, "run sh -c 'printf \"a\\\\nc\\\\nd\\\\n\"'\ncmpprefix stdout w.txt\n-- w.txt --\na\nb\n")
	if r.Passed || !strings.Contains(r.Log, "-c\n+b\n") || strings.Contains(r.Log, "-d") {
		t.Fatalf("want a diff of the two first lines:\n%s", r.Log)
	}
}

func TestRunAllowsNamedLeftovers(t *testing.T) {
	t.Parallel()
	r := runScript(t, "run -allow sleep sh -c 'sleep 30 & exit 0'\n")
	if !r.Passed || !strings.Contains(r.Log, "allowed and killed") {
		t.Fatalf("allowed leftover failed the case:\n%s", r.Log)
	}
	r = runScript(t, "run -allow cat sh -c 'sleep 30 & exit 0'\n")
	if r.Passed {
		t.Fatalf("a leftover of another name passed:\n%s", r.Log)
	}
}

func TestDefaultLimitsLetSmallFilesThrough(t *testing.T) {
	t.Parallel()
	if r := runScript(t, "run sh -c 'head -c 5000 /dev/zero > big'\n"); !r.Passed {
		t.Fatalf("a 5000-byte file failed under the default limits:\n%s", r.Log)
	}
}

// A run whose program leaves something holding its output open that the sandbox cannot
// find (a process of the harness's own user in a session of its own, its environment
// wiped, orphaned: escapee.c with "keep") ends all the same: the output is cut off a moment
// after the run, and the case fails as what the program left behind, its own doing (a
// record of kind Left; until 2026-12-07 the harness's own failure, a HARNESS-ERROR that a
// hub could cause at will). Before that, the case waited for ever. A sweep that happens to
// look while the process still descends from the program (between its parent's fork and
// exit) finds it after all: the case then fails for the process left running, which is
// killed, and does not wait either.
func TestRunDoesNotWaitOnOutputHeldOpen(t *testing.T) {
	t.Parallel()
	buildtest.Long(t) // waits out the 2 s output drain
	escapee := buildtest.HostileProgram(t, "escapee")
	mark := hygiene.MarkPids()
	defer func() {
		// The escaped process lives on (docs/harness.md, known gaps): the test ends it. It
		// is known by its command line: its name (Comm) is the first 15 bytes of the
		// built program's file name, which is not "escapee".
		procs, _ := hygiene.ScanSince(&mark, nil, nil, nil)
		for _, p := range procs {
			if strings.HasPrefix(hygiene.Cmdline(p.Pid), escapee+" ") {
				syscall.Kill(p.Pid, syscall.SIGKILL)
			}
		}
	}()
	var r suite.Result
	var recs []outcome.Record
	buildtest.Returns(t, "the case waits on the output held open", func() {
		r, recs = runScriptRecords(t, "run -status any "+escapee+" keep\n")
	})
	heldOpen := strings.Contains(r.Log, "its output still held open")
	found := strings.Contains(r.Log, "process left running")
	if r.Passed || heldOpen && (len(recs) != 1 || recs[0].Kind != outcome.Held) || !heldOpen && (!found || len(recs) != 1 || recs[0].Kind != outcome.Left) {
		t.Errorf("records %+v; want the output held open (or the process found left running), the program's doing:\n%s", recs, r.Log)
	}
}

// The sandbox's notes about a judge's own run stay out of the case's log; a subject's stay.
func TestRunNotesLeaveOutTheJudge(t *testing.T) {
	w := []string{"running as root without a sandbox user: the process limit is not enforced"}
	if got := runNotes(w, true); len(got) != 0 {
		t.Errorf("a judge's notes %q, want none", got)
	}
	if got := runNotes(w, false); len(got) != 1 {
		t.Errorf("a subject's notes %q, want the warning", got)
	}
}

// A judge's account becomes the case's record when run fails on the judge's verdict: the
// kind the mock hub found at its step, with the judge named; the mock hub's own failure is
// a harness record. A judge whose divergence the script expected leaves no record.
// judgeScript is a script in which the mock hub judges a player whose shell body is
// given, on a conversation of a handshake, a line and an exit; %s stands for the run.
func judgeScript(body string) string {
	return "chmod 755 player\n%s\n-- player --\n#!/bin/sh\nprintf '^'\n" + body +
		"\n\n-- conv.txt --\nhello \"^\"\nexpect \"X\"\nexit 0\n"
}

// judgeFailures are TestJudgesRecordBecomesTheCases': each kind the mock hub reports.
var judgeFailures = []struct {
	name, script string
	want         outcome.Record
}{
	{"diverged", judgeScript("echo Y"), outcome.Record{Kind: outcome.Diverged, Step: 2, Want: `"X\n"`, Got: `"Y\n"`}},
	{"silent", judgeScript("sleep 5"), outcome.Record{Kind: outcome.Silent, Step: 2, Want: `"X\n"`, Got: "nothing within 300ms", Signal: "SIGKILL", LineDue: true}}, // killed by the mock hub at the end
	{"wrong exit", judgeScript("echo X; exit 4"), outcome.Record{Kind: outcome.Exit, Step: 3, Want: "exit status 0", Got: "exit status 4"}},
	{"killed", judgeScript("echo X; kill -SEGV $$"), outcome.Record{Kind: outcome.Signal, Step: 3, Want: "exit status 0", Got: "killed by SIGSEGV", Signal: "SIGSEGV"}},
	{"cpu limit", judgeScript("kill -XCPU $$"), outcome.Record{Kind: outcome.Limit, Step: 2, Want: `"X\n"`, Got: "EOF", Signal: "SIGXCPU", Limit: "cpu"}},
	{"the judge's own failure", "%s\n", outcome.Record{Kind: outcome.Harness, Want: "0", Got: "2"}},
}

func TestJudgesRecordBecomesTheCases(t *testing.T) {
	t.Parallel()
	tests := judgeFailures
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			script := fmt.Sprintf(tc.script, "run mockhub -timeout 300ms conv.txt $WORK/player")
			if tc.want.Kind == outcome.Harness {
				script = fmt.Sprintf(tc.script, "run mockhub -timeout 300ms no-such.conv $WORK/player")
			}
			r, recs := runScriptRecords(t, script)
			if r.Passed || len(recs) != 1 {
				t.Fatalf("passed %v, records %+v\n%s", r.Passed, recs, r.Log)
			}
			got := recs[0]
			if got.Judge != "mockhub" || got.By != "run" || !strings.Contains(r.Log, ": "+got.Message+"\n") {
				t.Errorf("record %+v: want the mock hub's, passed on by run with run's message", got)
			}
			got.Judge, got.By, got.Program, got.Message = "", "", "", ""
			if got != tc.want {
				t.Errorf("record\n%+v\nwant\n%+v\n%s", got, tc.want, r.Log)
			}
		})
	}
	r, recs := runScriptRecords(t, fmt.Sprintf(judgeScript("echo Y"), "run -status 1 mockhub -timeout 300ms conv.txt $WORK/player"))
	if !r.Passed || len(recs) != 0 {
		t.Errorf("an expected divergence: passed %v, records %+v\n%s", r.Passed, recs, r.Log)
	}
}

// Every kind of record is one some failure writes: TestCommandsFail's and
// TestJudgesRecordBecomesTheCases' failures together produce them all, but an output held
// open (outcome.Held), which needs a process that escapes the sandbox and 2 s of waiting:
// TestRunDoesNotWaitOnOutputHeldOpen's.
func TestEveryKindIsProduced(t *testing.T) {
	produced := map[outcome.Kind]bool{outcome.Held: true}
	for _, f := range commandFailures {
		produced[f.kind] = true
	}
	for _, f := range judgeFailures {
		produced[f.want.Kind] = true
	}
	for _, k := range outcome.Kinds() {
		if !produced[k] {
			t.Errorf("no failure of these tests writes a record of kind %s", k)
		}
	}
	if len(produced) != len(outcome.Kinds()) {
		t.Errorf("%d kinds produced, outcome.Kinds lists %d", len(produced), len(outcome.Kinds()))
	}
}

// notThere reads the "#!" line of a program that would not start, and nothing that is not a
// regular file: a FIFO in the program's place does not block it.
func TestNotThere(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o755); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{
		filepath.Join(dir, "gone"):                    true,
		write("noint", "#!/no/such/interpreter -x\n"): true,
		write("sh", "#!/bin/sh\nexit 0\n"):            false,
		write("junk", "\x01\x02 not a program\n"):     false,
		fifo: false,
	} {
		if got := notThere(path); got != want {
			t.Errorf("notThere(%s) = %v, want %v", filepath.Base(path), got, want)
		}
	}
}

// A run's deadline counts as a wait only when every program was waiting for something
// (input, a child, a timer) in interruptible sleep: a busy loop, a blocked writer (its
// reader is the harness, slowed by the machine), what the sandbox could not tell, and a
// process held in the kernel (state D, as reads of
// /proc/PID/mountinfo were while many boxes changed their mounts under load) are not, and
// their TIMEOUT is confirmed alone. One run that was not waiting makes the case's
// deadlines not a wait.
func TestWaitingAtDeadline(t *testing.T) {
	proc := func(state byte) hygiene.ProcDiag { return hygiene.ProcDiag{State: state} }
	for _, c := range []struct {
		d    hygiene.Diagnosis
		want bool
	}{
		{hygiene.Diagnosis{Kind: hygiene.Deadlock, Procs: []hygiene.ProcDiag{proc('S'), proc('S')}}, true},
		{hygiene.Diagnosis{Kind: hygiene.Sleeping, Procs: []hygiene.ProcDiag{proc('S')}}, true},
		{hygiene.Diagnosis{Kind: hygiene.BlockedWrite, Procs: []hygiene.ProcDiag{proc('S')}}, false},
		{hygiene.Diagnosis{Kind: hygiene.Deadlock, Procs: []hygiene.ProcDiag{proc('S'), proc('D')}}, false},
		{hygiene.Diagnosis{Kind: hygiene.BusyLoop, Procs: []hygiene.ProcDiag{proc('R')}}, false},
		{hygiene.Diagnosis{Kind: hygiene.Unknown}, false},
	} {
		if got := waitingHang(c.d); got != c.want {
			t.Errorf("%s: waiting %v, want %v", c.d, got, c.want)
		}
	}
	a := &Activity{}
	if passed, _ := a.AtDeadlines(); passed {
		t.Error("no deadline passed, yet AtDeadlines says one did")
	}
	a.deadlinePassed(true)
	if passed, waiting := a.AtDeadlines(); !passed || !waiting {
		t.Errorf("one waiting deadline: passed %v, waiting %v", passed, waiting)
	}
	a.deadlinePassed(false)
	if passed, waiting := a.AtDeadlines(); !passed || waiting {
		t.Errorf("a working deadline after it: passed %v, waiting %v; want passed, not waiting", passed, waiting)
	}

	// The witnessed mock players, outside the sandbox's diagnosis: working when last seen
	// running, the hub's wait on them is no wait; quiet, it is, also once they are gone.
	othersQuiet, othersRunning := time.Duration(0), true
	others := func() (time.Duration, bool) { return othersQuiet, othersRunning }
	b := &Activity{}
	b.watch(others)
	b.othersQuiet()
	b.deadlinePassed(true)
	if _, waiting := b.AtDeadlines(); waiting {
		t.Error("a deadline while the mock players worked counts as a wait")
	}
	c := &Activity{}
	c.watch(others)
	othersQuiet = time.Second
	c.othersQuiet()
	othersRunning = false
	c.othersQuiet()
	c.deadlinePassed(true)
	if _, waiting := c.AtDeadlines(); !waiting {
		t.Error("a deadline while the mock players waited counts as work")
	}
}

// cmpalt's -prefix makes the next alternative a prefix: an output that begins with it
// passes leniently, while the main WANT is still compared whole.
func TestCmpAltPrefixAlternative(t *testing.T) {
	t.Parallel()
	const files = "-- w.txt --\na\nend\n-- alt.txt --\na\nb\n"
	r := runScript(t, "run sh -c 'printf \"a\\\\nb\\\\nanything\\\\n\"'\ncmpalt stdout w.txt -prefix alt.txt\n"+files)
	if !r.Passed || len(r.Lenient) != 1 || r.Lenient[0] != "stdout matched alt.txt instead of w.txt" {
		t.Fatalf("an output beginning with the prefix alternative failed, or not leniently:\n%s", r.Log)
	}
	if r := runScript(t, "run sh -c 'printf \"a\\\\nend\\\\nmore\\\\n\"'\ncmpalt stdout w.txt -prefix alt.txt\n"+files); r.Passed {
		t.Fatalf("the main WANT was taken as a prefix:\n%s", r.Log)
	}
	if r := runScript(t, "run sh -c 'printf \"a\\\\nb\\\\nmore\\\\n\"'\ncmpalt stdout w.txt alt.txt\n"+files); r.Passed {
		t.Fatalf("an alternative without -prefix was taken as a prefix:\n%s", r.Log)
	}
}

// A run that left a zombie says so in its record (outcome.Record.Zombie), from the
// sandbox's finding: the grader's hint rests on it, not on the words of the message, which
// name the processes as their programs chose. One that left only a process running does not.
func TestLeftRecordsAZombie(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		script string
		zombie bool
	}{
		{"run sh -c 'sleep 0 & exec sleep 3'\n", true}, // (the zombie lives 3 s, as the sandbox's own test's)
		{"run sh -c 'sleep 30 & exit 0'\n", false},
	} {
		r, recs := runScriptRecords(t, tc.script)
		if r.Passed || len(recs) != 1 || recs[0].Kind != outcome.Left || recs[0].Zombie != tc.zombie {
			t.Errorf("%s: passed %v, records %+v; want a left record, zombie %v\n%s", tc.script, r.Passed, recs, tc.zombie, r.Log)
		}
	}
}

// The grader's settings reach the commands as a typed value (Settings), never through the
// script's environment: its limits apply to every run, and a variable of the old names
// that a script sets changes nothing (until 2026-12-07 the limits were the JSON of
// $GAUNTLET_LIMITS, which every program of the case was given, and a case could set).
func TestGradersSettingsApply(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, script string
		set          Settings
		why          string // "": the script passes
	}{
		// head dies of SIGXFSZ, and its shell exits 128 + SIGXFSZ: the limit, not a wrong
		// exit status (until 2026-11-28: "want exit 0, got 153").
		{"the file size limit", "run sh -c 'head -c 5000 /dev/zero > big'\n", Settings{Limits: sandbox.Limits{FileSize: 1000}},
			"ran into the file-size limit (153)"},
		// The same for the CPU time: the inner shell dies of SIGXCPU, the outer exits 152
		// having used (through it) the CPU limit.
		{"a wrapper's CPU kill is the limit", "run -timeout 10m sh -c 'sh -c \"while :; do :; done\"; exit $?'\n",
			Settings{Limits: sandbox.Limits{CPU: time.Second}}, "ran into the cpu limit (152)"},
		{"the deadline", "run sleep 30\n", Settings{Timeout: 200 * time.Millisecond}, "did not finish within 200ms"},
		{"a variable of the script's is no setting",
			"env GAUNTLET_LIMITS='{\"FileSize\":1000}'\nenv GAUNTLET_TIMEOUT=1ms\nrun sh -c 'head -c 5000 /dev/zero > big; sleep 0.1'\n", Settings{}, ""},
		{"no setting in a program's environment", "run sh -c 'env'\n! stdout '^GAUNTLET_(TIMEOUT|LIMITS|SANDBOX|BOX|NO_BOX|MOCKPLAYER)'\n",
			Settings{Timeout: time.Minute, Limits: sandbox.Limits{FileSize: 1 << 20}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			r := runCase(t, dir, tc.script, testscript.Params{Setup: tc.set.Setup})
			recs, err := outcome.Read(filepath.Join(dir, outcome.File))
			switch {
			case err != nil:
				t.Fatal(err)
			case tc.why == "" && !r.Passed:
				t.Errorf("the script failed:\n%s", r.Log)
			case tc.why != "" && (r.Passed || !strings.Contains(r.Log, tc.why) || len(recs) != 1):
				t.Errorf("passed %v, records %+v; want a failure saying %q\n%s", r.Passed, recs, tc.why, r.Log)
			}
		})
	}
}
