package grade

import (
	"strings"
	"testing"

	"gauntlet/harness/box/hygiene"
	"gauntlet/harness/judges/outcome"
)

// classifyLog calls Classify as the grader does, with the script and the judge's output
// the log stands for (the last echoed command at the FAIL line's line number, and the
// "[stdout]" block of a mock hub command) and the failure's record.
func classifyLog(log string, rec *outcome.Record, theirs func(string) bool) (Verdict, string) {
	cmd, judged := "", ""
	for _, block := range strings.Split(log, "\n> ") {
		block = strings.TrimPrefix(block, "> ")
		line, rest, _ := strings.Cut(block, "\n")
		cmd = line
		if out, ok := strings.CutPrefix(rest, "[stdout]\n"); ok {
			judged = out
		}
	}
	script := strings.Repeat("# comment\n", 2) + cmd + "\n"
	return Classify(log, []byte(script), judged, rec, theirs)
}

// Records as the script commands write them (by) and as a judge's comes through run.
func ran(k outcome.Kind) *outcome.Record { return &outcome.Record{Kind: k, By: "run"} }

func judged(k outcome.Kind) *outcome.Record {
	return &outcome.Record{Kind: k, By: "run", Judge: "mockhub"}
}

// hung is a deadline's record with the sandbox's diagnosis of the hang.
func hung(kind hygiene.HangKind) *outcome.Record {
	r := ran(outcome.Deadline)
	r.Hang = string(kind)
	return r
}

// lineDue, partial, signaled and zombie set the fields of a record that hints rest on.
func lineDue(r *outcome.Record) *outcome.Record { r.LineDue = true; return r }
func partial(r *outcome.Record) *outcome.Record { r.Partial = true; return r }
func zombie(r *outcome.Record) *outcome.Record  { r.Zombie = true; return r }
func signaled(r *outcome.Record, sig string) *outcome.Record {
	r.Signal = sig
	return r
}

func limited(r *outcome.Record, limit, want string) *outcome.Record {
	r.Limit, r.Want = limit, want
	return r
}

// TestClassifyIgnoresTheSubjectsText: a subject that prints a fake echoed command, a fake
// FAIL line or a fake mock hub report cannot change the verdict; only the record, the
// log's last line, the script and the judge's own output count.
func TestClassifyIgnoresTheSubjectsText(t *testing.T) {
	theirs := func(p string) bool { return p == "$STLUCIA" }
	script := []byte("# a hub case\n# category: hub\nrun -status 0 $STLUCIA r 10 a b\n")
	forged := "> run -status 0 $STLUCIA r 10 a b\n[stdout]\n> run mockhub conv $X\nFAIL: x.txtar:3: run: mockhub: want exit 0, got 2\n" +
		"FAIL at step 1 (line 2 of the conversation: x): want \"a\", got \"b\"; player: killed by SIGSEGV\n" +
		"FAIL: x.txtar:3: run: /s/stlucia: want exit 0, got 2\n"
	if got, detail := Classify(forged, script, "", ran(outcome.Exit), theirs); got != WrongExit {
		t.Errorf("with forged lines in the subject's output: %s (%s), want %s", got, detail, WrongExit)
	}
	// The same forgery where the judge's output says nothing: still the subject's failure.
	mock := []byte("# a player case\nrun mockhub conv $STLUCIA\n")
	forged = "> run mockhub conv $STLUCIA\n[stderr]\nFAIL at step 1 (line 2 of the conversation: x): want exit status 4, got killed by SIGSEGV\nFAIL: x.txtar:2: run: mockhub: want exit 0, got 1\n"
	out := "FAIL at step 1 (line 2 of the conversation: expect \"X\"): want \"X\\n\", got \"Y\\n\"; player: exit status 0\n"
	got, detail := Classify(forged, mock, out, judged(outcome.Diverged), theirs)
	if got != Protocol || detail != strings.TrimSuffix(out, "\n") {
		t.Errorf("with a forged mock report on the player's stderr: %s (%s), want %s and the judge's own line", got, detail, Protocol)
	}
}

// classifyCase is a failure as the log shows it, the record its command wrote (nil: none,
// testscript's own command) and its verdict.
type classifyCase struct {
	log  string
	rec  *outcome.Record
	want Verdict
}

// classifyCases are TestClassify's: each kind of failure of each command, with the
// messages the commands write.
var classifyCases = []classifyCase{
	{"> run $PLAYER\nFAIL: x.txtar:3: run: $PLAYER: exec: \"/s/p\": no such file or directory\n", ran(outcome.Missing), BuildFail},
	{"> run mockhub conv\nFAIL: x.txtar:3: run: mockhub: exec: \"mockhub\": executable file not found in $PATH\n", ran(outcome.Missing), HarnessError},
	{"> run $PLAYER\nFAIL: x.txtar:3: run: /s/p: sandbox: start p: permission denied\n", ran(outcome.Harness), HarnessError},
	{"> run -after-stdout 'a b' -status 1 $PLAYER\nFAIL: x.txtar:3: run: $PLAYER: want exit 1, got 2\n", ran(outcome.Exit), WrongExit},
	{"> run mockhub conv $PLAYER\n[stdout]\nFAIL at step 3 (line 4 of the conversation: expect \"X\"): want \"X\\n\", got nothing within 5s; player: killed\nFAIL: x.txtar:3: run: mockhub: want exit 0, got 1\n", judged(outcome.Silent), Timeout},
	{"> run mockhub conv $PLAYER\n[stdout]\nFAIL at step 8 (line 9 of the conversation: exit 4): want exit status 4, got killed by SIGSEGV; player: killed by SIGSEGV\nFAIL: x.txtar:3: run: mockhub: want exit 0, got 1\n", judged(outcome.Signal), Crash},
	{"> run mockhub conv $PLAYER\n[stdout]\nFAIL at step 8 (line 9 of the conversation: exit 4): want exit status 4, got exit status 3; player: exit status 3\nFAIL: x.txtar:3: run: mockhub: want exit 0, got 1\n", judged(outcome.Exit), WrongExit},
	{"> run mockhub conv $PLAYER\n[stdout]\nFAIL at step 8 (line 9 of the conversation: exit signal TERM): want killed by SIGTERM, got exit status 0; player: exit status 0\nFAIL: x.txtar:3: run: mockhub: want exit 0, got 1\n", judged(outcome.Exit), WrongExit},
	{"> run mockhub conv $PLAYER\n[stdout]\nFAIL at step 3 (line 4 of the conversation: expect \"X\"): want \"X\\n\", got \"Y\\n\"; player: killed by the mock hub at the end (killed by SIGKILL)\nFAIL: x.txtar:3: run: mockhub: want exit 0, got 1\n", judged(outcome.Diverged), Protocol},
	// A judge that exits 1 without a record of its own: run's record says it diverged.
	{"> run mockclients -- $PLAYER 0\nFAIL: x.txtar:3: run: mockclients: want exit 0, got 1\n", &outcome.Record{Kind: outcome.Diverged, By: "run", Judge: "mockclients"}, Protocol},
	{"> cmpalt stderr a b\nFAIL: x.txtar:3: cmpalt: stderr matches none of a, b\n", &outcome.Record{Kind: outcome.Mismatch, By: "cmpalt", Output: "stderr"}, WrongStderr},
	{"> cmpprefix stderr a\nFAIL: x.txtar:3: cmpprefix: stderr does not begin with a\n", &outcome.Record{Kind: outcome.Mismatch, By: "cmpprefix", Output: "stderr"}, WrongStderr},
	{"> cmpalt stdout a b\nFAIL: x.txtar:3: cmpalt: stdout matches none of a, b\n", &outcome.Record{Kind: outcome.Mismatch, By: "cmpalt", Output: "stdout"}, WrongStdout},
	// A file the subject was to write: the script's line says which output it is.
	{"> cmpalt out.txt a\nFAIL: x.txtar:3: open $WORK/out.txt: no such file or directory\n", &outcome.Record{Kind: outcome.Mismatch, By: "cmpalt", Output: "out.txt"}, WrongStdout},
	{"> cmpexcept ' scored ' player1.stderr a\nFAIL: x.txtar:3: cmpexcept: player1.stderr matches none of a\n", &outcome.Record{Kind: outcome.Mismatch, By: "cmpexcept", Output: "player1.stderr"}, WrongStderr},
	// A case with allowed alternative conversations: the mock hub's exit 1 is still the
	// player's divergence.
	{"> run -status 0,3 mockhub -alt alt.conv conv $PLAYER\n[stdout]\nFAIL at step 3 (line 4 of the conversation: expect \"X\"): want \"X\\n\", got \"Y\\n\"; player: exit status 0\nFAIL: x.txtar:3: run: mockhub: want exit 0 or 3, got 1\n", judged(outcome.Diverged), Protocol},
	{"> run -status 0,3 mockhub -alt alt.conv conv $PLAYER\nFAIL: x.txtar:3: run: mockhub: want exit 0 or 3, got 2\n", judged(outcome.Harness), HarnessError},
	{"> frob\nFAIL: x.txtar:3: unknown command \"frob\"\n", nil, HarnessError},
	{"> run $PLAYER\nFAIL: x.txtar:3: run: /s/p ran into the cpu limit (signal:XCPU)\n", limited(ran(outcome.Limit), "cpu", ""), Limit},
	{"> run $PLAYER\nFAIL: x.txtar:3: run: /s/p wrote more than 1048576 bytes (stdout 5 and stderr 0 bytes over)\n", limited(ran(outcome.Limit), "output", ""), Limit},
	{"> run mockhub conv $PLAYER\n[stdout]\nFAIL at step 3 (line 4 of the conversation: expect \"X\"): want \"X\\n\", got killed by SIGXCPU; player: killed by SIGXCPU\nFAIL: x.txtar:3: run: mockhub: want exit 0, got 1\n", limited(judged(outcome.Limit), "cpu", ""), Limit},
	// A limit that killed is LIMIT wherever it shows: after the EOF its death made, or as
	// the signal of a plain run.
	{"> run mockhub conv $PLAYER\n[stdout]\nFAIL at step 3 (line 4 of the conversation: expect \"X\"): want \"X\\n\", got EOF; player: killed by SIGXCPU\nFAIL: x.txtar:3: run: mockhub: want exit 0, got 1\n", limited(judged(outcome.Limit), "cpu", ""), Limit},
	{"> run $PLAYER\nFAIL: x.txtar:3: run: /s/p: want exit 0, got signal:XCPU\n", limited(ran(outcome.Limit), "cpu", "0"), Limit},
	{"> run $PLAYER\nFAIL: x.txtar:3: run: /s/p: want exit 0, got signal:SEGV\n", ran(outcome.Signal), Crash},
	{"> run $PLAYER\nFAIL: x.txtar:3: run: /s/p did not finish within 10s (killed)\n", ran(outcome.Deadline), Timeout},
	{"> run $PLAYER\nFAIL: x.txtar:3: run: /s/p exited but left processes running or files behind: sleep (pid 7)\n", ran(outcome.Left), Hygiene},
	{"> noprocs\nFAIL: x.txtar:3: noprocs: still running: pid 7 (sleep)\n", &outcome.Record{Kind: outcome.Left, By: "noprocs"}, Hygiene},
	// Until the records, these three fell through to WRONG-STDOUT (none of the messages
	// the old patterns looked for): the harness's own error, a program that ended before
	// its signal's moment, a server that never listened.
	{"> run -after-stdout x $PLAYER\nFAIL: x.txtar:3: run: harness error: results: permission denied\n", ran(outcome.Harness), HarnessError},
	{"> run -signal HUP -after-stdout x $PLAYER\nFAIL: x.txtar:3: run: /s/p ended (0) before the moment to send hangup came\n", ran(outcome.Early), WrongExit},
	{"> waitport $PORT\nFAIL: x.txtar:3: waitport: nothing listens on 127.0.0.1:4000 after 5s\n", &outcome.Record{Kind: outcome.Silent, By: "waitport"}, Timeout},
	// testscript's own commands write no record: the script's line tells them.
	{"> cmp stdout want\ndiff stdout want\n--- stdout\n+++ want\n@@ -1 +1 @@\n-a\n+b\n\nFAIL: x.txtar:3: stdout and want differ\n", nil, WrongStdout},
	{"> stderr 'usage'\nFAIL: x.txtar:3: no match for `usage` found in stderr\n", nil, WrongStderr},
	{"> exists out.txt\nFAIL: x.txtar:3: out.txt does not exist\n", nil, WrongStdout},
	{"no failure line at all", nil, HarnessError},
	{"no failure line, but a record", ran(outcome.Deadline), Timeout},
}

func TestClassify(t *testing.T) {
	theirs := func(p string) bool { return p == "$PLAYER" }
	for _, tc := range classifyCases {
		if got, detail := classifyLog(tc.log, tc.rec, theirs); got != tc.want {
			t.Errorf("Classify(%q, %+v) = %s (%s), want %s", tc.log, tc.rec, got, detail, tc.want)
		}
	}
}

// rot13 rewords a text beyond recognition, keeping its shape.
func rot13(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return 'a' + (r-'a'+13)%26
		case r >= 'A' && r <= 'Z':
			return 'A' + (r-'A'+13)%26
		}
		return r
	}, s)
}

// reword rewrites a case's log and the judge's output in it as a change of the harness's
// messages would: the FAIL line's message and the judge's report.
func reword(log string, with func(string) string) string {
	lines := strings.Split(strings.TrimRight(log, "\n"), "\n")
	inJudge := false
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "> "):
			inJudge = false
		case l == "[stdout]":
			inJudge = true
		case strings.HasPrefix(l, "FAIL: x.txtar:3: "):
			lines[i] = "FAIL: x.txtar:3: " + with(strings.TrimPrefix(l, "FAIL: x.txtar:3: "))
		case inJudge:
			lines[i] = with(l)
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// TestClassifyIgnoresTheMessages: rewording every message of the harness and its judges
// (their letters rotated, or each replaced by one sentence that says nothing) leaves every
// verdict as it was. Before the records (75e03c9), rotating the letters changed 17 of the
// 19 verdicts of the old TestClassify, every one to WRONG-STDOUT: BUILD-FAIL, CRASH,
// HARNESS-ERROR, LIMIT, PROTOCOL, TIMEOUT and WRONG-EXIT all came from the messages' words.
func TestClassifyIgnoresTheMessages(t *testing.T) {
	theirs := func(p string) bool { return p == "$PLAYER" }
	rewordings := map[string]func(string) string{
		"rot13":   rot13,
		"nothing": func(string) string { return "something happened" },
	}
	for name, with := range rewordings {
		for _, tc := range classifyCases {
			if !strings.Contains(tc.log, "FAIL: x.txtar:3: ") {
				continue
			}
			log := reword(tc.log, with)
			if log == tc.log {
				t.Fatalf("%s did not reword %q", name, tc.log)
			}
			if got, detail := classifyLog(log, tc.rec, theirs); got != tc.want {
				t.Errorf("reworded (%s): Classify(%q, %+v) = %s (%s), want %s", name, log, tc.rec, got, detail, tc.want)
			}
		}
	}
}

// TestEveryKindHasAVerdict lists every kind of record and the verdict it makes, as a
// script command's and as a judge's: a new kind must be given one here.
func TestEveryKindHasAVerdict(t *testing.T) {
	theirs := func(p string) bool { return p == "$PLAYER" }
	want := map[outcome.Kind][2]Verdict{ // a script command's, a judge's
		outcome.Diverged: {Protocol, Protocol},
		outcome.Silent:   {Timeout, Timeout},
		outcome.Exit:     {WrongExit, WrongExit},
		outcome.Signal:   {Crash, Crash},
		outcome.Limit:    {Limit, Limit},
		outcome.Deadline: {Timeout, Protocol},
		outcome.Early:    {WrongExit, Protocol},
		outcome.Left:     {Hygiene, Protocol},
		outcome.Held:     {Hygiene, Protocol},
		outcome.Mismatch: {WrongStdout, Protocol},
		outcome.Missing:  {BuildFail, Protocol},
		outcome.Harness:  {HarnessError, HarnessError},
	}
	if len(want) != len(outcome.Kinds()) {
		t.Errorf("%d kinds have a verdict here, outcome.Kinds has %d", len(want), len(outcome.Kinds()))
	}
	log := "> run mockhub conv $PLAYER\nFAIL: x.txtar:3: something happened\n"
	for _, k := range outcome.Kinds() {
		w, ok := want[k]
		if !ok {
			t.Errorf("kind %s has no verdict in this test", k)
			continue
		}
		rec := &outcome.Record{Kind: k, By: "run"}
		if got, _ := classifyLog(strings.Replace(log, "mockhub conv ", "", 1), rec, theirs); got != w[0] {
			t.Errorf("a script command's %s: %s, want %s", k, got, w[0])
		}
		rec = &outcome.Record{Kind: k, By: "run", Judge: "mockhub"}
		if got, _ := classifyLog(log, rec, theirs); got != w[1] {
			t.Errorf("a judge's %s: %s, want %s", k, got, w[1])
		}
	}
}

// The detail of a verdict says what a student needs: the command as the case ran it, not a
// path in a scratch folder, and a hint where a player stayed silent.
func TestClassifyDetail(t *testing.T) {
	theirs := func(p string) bool { return p == "$EAIT" }
	tests := []struct {
		log  string
		rec  *outcome.Record
		want string
	}{
		{"> run -status 1 $EAIT 2 A B\nFAIL: x.txtar:3: run: /tmp/g/build-1/EAIT: want exit 1, got 4\n", ran(outcome.Exit),
			"run $EAIT 2 A B: want exit 1, got 4"},
		{"> run -status 2 -timeout 10s $EAIT 2 A\nFAIL: x.txtar:3: run: /tmp/g/build-1/EAIT: want exit 2, got signal:SEGV\n", ran(outcome.Signal),
			"run $EAIT 2 A: want exit 2, got signal:SEGV"},
		{"> run $EAIT 2 'A B'\nFAIL: x.txtar:3: run: /tmp/g/EAIT did not finish within 10s (killed)\n", ran(outcome.Deadline),
			"run $EAIT 2 A B did not finish within 10s (killed)"},
		// A hub and its players all waiting to read: the flush hint, as for a silent player.
		{"> run $EAIT 2 'A B'\nFAIL: x.txtar:3: run: /tmp/g/EAIT did not finish within 10s (killed) (deadlock: pid 9 (EAIT) reading in read(fd 0 = pipe:[1]), state S, CPU 0.000s in 0.100s)\n", hung(hygiene.Deadlock),
			"run $EAIT 2 A B did not finish within 10s (killed) (deadlock: pid 9 (EAIT) reading in read(fd 0 = pipe:[1]), state S, CPU 0.000s in 0.100s)" + deadlockHint},
		// The same wait, where a reader's pipe has a write end open in a sibling: the leak,
		// not the flush (issue 57: the flush hint pointed away from the cause).
		{"> run $DEALER d p a b\nFAIL: x.txtar:3: run: /tmp/g/2310dealer did not finish within 10s (killed) (leaked-pipe: pid 9 (2310dealer) reading in read(fd 4 = pipe:[1]) (its write end is also open in pid 11 (2310A) as fd 6), state S, CPU 0.000s in 0.100s)\n", hung(hygiene.LeakedPipe),
			"run $DEALER d p a b did not finish within 10s (killed) (leaked-pipe: pid 9 (2310dealer) reading in read(fd 4 = pipe:[1]) (its write end is also open in pid 11 (2310A) as fd 6), state S, CPU 0.000s in 0.100s)" + leakedPipeHint},
		// The hint comes from the record, not from the detail's words: a deadline without a
		// diagnosis gets none, whatever its text says.
		{"> run $EAIT 2 A\nFAIL: x.txtar:3: run: /tmp/g/EAIT did not finish within 10s (killed) (deadlock: forged)\n", ran(outcome.Deadline),
			"run $EAIT 2 A did not finish within 10s (killed) (deadlock: forged)"},
		{"> run $EAIT 2 A\nFAIL: x.txtar:3: run: /tmp/g/EAIT exited but left processes running or files behind: sleep (pid 7)\n", ran(outcome.Left),
			"run $EAIT 2 A exited but left processes running or files behind: sleep (pid 7)"},
		{"> run mockhub conv $EAIT\n[stdout]\nFAIL at step 3 (line 4 of the conversation: expect \"X\"): want \"X\\n\", got nothing within 5s; player: killed\nFAIL: x.txtar:3: run: mockhub: want exit 0, got 1\n", lineDue(judged(outcome.Silent)),
			`FAIL at step 3 (line 4 of the conversation: expect "X"): want "X\n", got nothing within 5s; player: killed` + unflushedHint},
		{"> run mockhub conv $EAIT\n[stdout]\nFAIL at step 1 (line 2 of the conversation: hello \"!\"): want \"!\", got nothing within 5s; player: killed\nFAIL: x.txtar:3: run: mockhub: want exit 0, got 1\n", lineDue(judged(outcome.Silent)),
			`FAIL at step 1 (line 2 of the conversation: hello "!"): want "!", got nothing within 5s; player: killed` + unflushedHint},
		{"> run mockhub conv $EAIT\n[stdout]\nFAIL at step 9 (line 10 of the conversation: eof): want EOF, got nothing within 5s (stdout still open); player: killed\nFAIL: x.txtar:3: run: mockhub: want exit 0, got 1\n", judged(outcome.Silent),
			"FAIL at step 9 (line 10 of the conversation: eof): want EOF, got nothing within 5s (stdout still open); player: killed"},
		// The hints, each from what was measured.
		{"> run mockhub conv $EAIT\n[stdout]\nFAIL at step 3 (line 4 of the conversation: expect \"DO1\"): want \"DO1\\n\", got \"DO1\" and then EOF; player: exit status 0\nFAIL: x.txtar:3: run: mockhub: want exit 0, got 1\n", partial(judged(outcome.Diverged)),
			`FAIL at step 3 (line 4 of the conversation: expect "DO1"): want "DO1\n", got "DO1" and then EOF; player: exit status 0` + noNewlineHint},
		{"> run mockhub conv $EAIT\n[stdout]\nFAIL at step 3 (line 4 of the conversation: expect \"DO1\"): want \"DO1\\n\", got \"DO1\" and then nothing within 5s; player: killed\nFAIL: x.txtar:3: run: mockhub: want exit 0, got 1\n", partial(judged(outcome.Silent)),
			`FAIL at step 3 (line 4 of the conversation: expect "DO1"): want "DO1\n", got "DO1" and then nothing within 5s; player: killed` + noNewlineHint},
		{"> run -status 5 $DEALER d p a b\nFAIL: x.txtar:3: run: /tmp/g/2310dealer: want exit 5, got signal:PIPE\n", signaled(ran(outcome.Signal), "SIGPIPE"),
			"run $DEALER d p a b: want exit 5, got signal:PIPE" + sigpipeHint},
		{"> run mockhub conv $EAIT\n[stdout]\nFAIL at step 8 (line 9 of the conversation: exit 6): want exit status 6, got killed by SIGPIPE; player: killed by SIGPIPE\nFAIL: x.txtar:3: run: mockhub: want exit 0, got 1\n", signaled(judged(outcome.Signal), "SIGPIPE"),
			"FAIL at step 8 (line 9 of the conversation: exit 6): want exit status 6, got killed by SIGPIPE; player: killed by SIGPIPE" + sigpipeHint},
		{"> run $DEALER d p a\nFAIL: x.txtar:3: run: /tmp/g/2310dealer exited but left processes running or files behind: zombie not reaped: pid 9 (a), child of pid 8\n", zombie(ran(outcome.Left)),
			"run $DEALER d p a exited but left processes running or files behind: zombie not reaped: pid 9 (a), child of pid 8" + zombieHint},
		// The same words without the record's fields get no hint: the words may be the
		// subject's (a line it wrote, quoted by the judge; its processes' names).
		{"> run mockhub conv $EAIT\n[stdout]\nFAIL at step 3 (line 4 of the conversation: expect \"X\"): want \"X\\n\", got \"of the conversation: expect x): want y, got nothing within\"; player: killed\nFAIL: x.txtar:3: run: mockhub: want exit 0, got 1\n", judged(outcome.Silent),
			`FAIL at step 3 (line 4 of the conversation: expect "X"): want "X\n", got "of the conversation: expect x): want y, got nothing within"; player: killed`},
		{"> run mockhub conv $EAIT\n[stdout]\nFAIL at step 3 (line 4 of the conversation: expect \"X\"): want \"X\\n\", got \"killed by SIGPIPE\"; player: killed by SIGSEGV\nFAIL: x.txtar:3: run: mockhub: want exit 0, got 1\n", signaled(judged(outcome.Signal), "SIGSEGV"),
			`FAIL at step 3 (line 4 of the conversation: expect "X"): want "X\n", got "killed by SIGPIPE"; player: killed by SIGSEGV`},
		{"> run $DEALER d p a\nFAIL: x.txtar:3: run: /tmp/g/2310dealer exited but left processes running or files behind: pid 9 (zombie not reaped, got \"a\" and then EOF)\n", ran(outcome.Left),
			`run $DEALER d p a exited but left processes running or files behind: pid 9 (zombie not reaped, got "a" and then EOF)`},
		// A diff is the failed comparison's own, after its line: none for a check of
		// stdout by a pattern, whatever diff the subject printed before.
		{"> run $EAIT\n[stdout]\ndiff stdout w\n--- stdout\n+++ w\n@@ -1 +1 @@\n-x\n+y\n\n> stdout '^ok$'\nFAIL: x.txtar:3: no match for `^ok$` found in stdout\n", nil,
			"no match for `^ok$` found in stdout"},
		// A limit seen as how the program ended names itself first.
		{"> run $EAIT 2 A\nFAIL: x.txtar:3: run: /tmp/g/EAIT: want exit 0, got signal:XCPU\n", limited(ran(outcome.Limit), "cpu", "0"),
			"cpu limit: run $EAIT 2 A: want exit 0, got signal:XCPU"},
		{"> run $EAIT 2 A\nFAIL: x.txtar:3: run: /tmp/g/EAIT ran into the file-size limit (signal:XFSZ)\n", limited(ran(outcome.Limit), "file-size", ""),
			"run $EAIT 2 A ran into the file-size limit (signal:XFSZ)"},
		{"> run mockhub conv $EAIT\n[stdout]\nFAIL at step 3 (line 4 of the conversation: expect \"X\"): want \"X\\n\", got EOF; player: killed by SIGXFSZ\nFAIL: x.txtar:3: run: mockhub: want exit 0, got 1\n", limited(judged(outcome.Limit), "file-size", ""),
			`file size limit: FAIL at step 3 (line 4 of the conversation: expect "X"): want "X\n", got EOF; player: killed by SIGXFSZ`},
	}
	for _, tc := range tests {
		if _, got := classifyLog(tc.log, tc.rec, theirs); got != tc.want {
			t.Errorf("Classify(%q) detail\n%s\nwant\n%s", tc.log, got, tc.want)
		}
	}
}
