package grade

import (
	"strconv"
	"strings"
	"testing"

	"gauntlet/harness/grading/scriptcmds"
)

func TestDivergence(t *testing.T) {
	const header = "stderr, line by line, up to the first divergence from the expected:\n"
	tests := []struct{ name, log, want string }{
		{"whole output from the command's block",
			"> run hub\n[stderr]\nA rolled 1\nB rolled 2\nC rolled 3\nA wins\n\n> cmp stderr w\ndiff stderr w\n--- stderr\n+++ w\n@@ -1,4 +1,4 @@\n A rolled 1\n B rolled 2\n C rolled 3\n-A wins\n+B wins\n\nFAIL: x.txtar:2: stderr and w differ\n",
			header + "       1  A rolled 1\n       2  B rolled 2\n       3  C rolled 3\n  >    4  A wins\n    want  B wins\n"},
		{"output ended early, without a final newline",
			"> run hub\n[stdout]\nout\n\n[stderr]\nA rolled 1\n> cmp stderr w\ndiff stderr w\n--- stderr\n+++ w\n@@ -1 +1,2 @@\n A rolled 1\n+A wins\n\nFAIL: x.txtar:2: stderr and w differ\n",
			header + "       1  A rolled 1\n  >    2  (nothing more)\n    want  A wins\n"},
		{"stdout block followed by a stderr block",
			"> run hub\n[stdout]\na\nb\n\n[stderr]\nnoise\n\n> cmp stdout w\ndiff stdout w\n--- stdout\n+++ w\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\nFAIL: x.txtar:2: stdout and w differ\n",
			"stdout, line by line, up to the first divergence from the expected:\n       1  a\n  >    2  b\n    want  c\n"},
		{"block disagreeing with the diff: the diff's context only",
			"> run hub\n[stderr]\nsomething else\n\n> cmp stderr w\ndiff stderr w\n--- stderr\n+++ w\n@@ -6,3 +6,3 @@\n x\n y\n-z\n+Z\n\nFAIL: x.txtar:2: stderr and w differ\n",
			header + "       6  x\n       7  y\n  >    8  z\n    want  Z\n"},
		{"control bytes escaped",
			"> run hub\n[stderr]\nA\tB\x01\n\n> cmp stderr w\ndiff stderr w\n--- stderr\n+++ w\n@@ -1 +1 @@\n-A\tB\x01\n+A B\n\nFAIL: x.txtar:2: stderr and w differ\n",
			header + "  >    1  A\\tB\\x01\n    want  A B\n"},
		{"the first hunk of the last diff",
			"> cmp stderr w\ndiff stderr w\n--- stderr\n+++ w\n@@ -1,2 +1,2 @@\n-p\n+q\n a\n@@ -20,2 +20,2 @@\n b\n-r\n+s\n\nFAIL: x.txtar:2: stderr and w differ\n",
			header + "  >    1  p\n    want  q\n"},
		{"cmpalt",
			"> run hub\n[stderr]\nbad\n\n> cmpalt stderr w alt\ndiff stderr alt\n--- stderr\n+++ alt\n@@ -1 +1 @@\n-bad\n+other\n\ndiff stderr w\n--- stderr\n+++ w\n@@ -1 +1 @@\n-bad\n+good\n\nFAIL: x.txtar:2: cmpalt: stderr matches none of w, alt\n",
			header + "  >    1  bad\n    want  good\n"},
		{"cmpaltenv",
			"> run manager\n[stdout]\n/m/red RED ILLEGAL 0 148 148\n\n> cmpaltenv stdout want.stdout\ndiff stdout want.stdout\n--- stdout\n+++ want.stdout\n@@ -1 +1 @@\n-/m/red RED ILLEGAL 0 148 148\n+/m/red RED ILLEGAL 1 148 148\n\nFAIL: x.txtar:2: cmpaltenv: stdout matches none of want.stdout\n",
			"stdout, line by line, up to the first divergence from the expected:\n  >    1  /m/red RED ILLEGAL 0 148 148\n    want  /m/red RED ILLEGAL 1 148 148\n"},
		{"the mock hub's conversation",
			"> run mockhub conv $P\n[stdout]\nFAIL at step 2 (line 4 of the conversation: expect \"X\"): want \"X\\n\", got \"Y\\n\"; player: exit status 0\nthe conversation, step by step, up to the first divergence from the engine's:\n         1  hub -> player | go\n  >    2  player -> hub | Y\n    want  player -> hub | X\n\n[stderr]\nFAIL: x.txtar:1: run: mockhub: want exit 0, got 1\n",
			"the conversation, step by step, up to the first divergence from the engine's:\n         1  hub -> player | go\n  >    2  player -> hub | Y\n    want  player -> hub | X\n"},
		{"the same text but for the final newline",
			"> run -status 2 $EAIT 1 A\n[stderr]\nInvalid player count\n> ! stdout .\n> cmp stderr count.txt\ndiff stderr count.txt\n--- stderr\n+++ count.txt\n@@ -1,1 +1,1 @@\n-Invalid player count\n\\ No newline at end of file\n+Invalid player count\n\nFAIL: x.txtar:8: stderr and count.txt differ\n",
			header + "  >    1  Invalid player count [no newline]\n    want  Invalid player count\n"},
		{"an exit status: nothing to show",
			"> run -status 2 hub\nFAIL: x.txtar:1: run: hub: want exit 2, got 1\n", ""},
		{"cmp of two files: not the subject's output",
			"> cmp a b\ndiff a b\n--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n\nFAIL: x.txtar:1: a and b differ\n", ""},
	}
	for _, tc := range tests {
		script, judged := scriptOf(tc.log)
		if got := Divergence(tc.log, script, judged, runsOf(tc.log)); got != tc.want {
			t.Errorf("%s:\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
}

// runsOf is the account of runs (scriptcmds.Runs) of a log made by hand: the output of its
// last run, as the log's blocks show it (testscript ends each with a newline of its own).
func runsOf(log string) *scriptcmds.Runs {
	runs := scriptcmds.NewRuns()
	var out [2]string
	found := false
	for _, block := range strings.Split("\n"+log, "\n> ")[1:] {
		line, rest, _ := strings.Cut(block, "\n")
		if !strings.HasPrefix(line, "run ") {
			continue
		}
		found, out = true, [2]string{}
		if o, ok := strings.CutPrefix(rest, "[stdout]\n"); ok {
			out[0], rest, _ = strings.Cut(o, "\n[stderr]\n")
			rest = "[stderr]\n" + rest
		}
		if e, ok := strings.CutPrefix(rest, "[stderr]\n"); ok {
			out[1] = e
		}
	}
	if found {
		runs.SetOutput([]byte(strings.TrimSuffix(out[0], "\n")), []byte(strings.TrimSuffix(out[1], "\n")))
	}
	return runs
}

// scriptOf is a script whose line the log's FAIL line names is the log's last command
// (in these logs, made by hand, the last line that starts "> "), and the output of the
// judge when that command ran the mock hub (the stdout it printed).
func scriptOf(log string) (script []byte, judged string) {
	cmd, out := "", ""
	for _, block := range strings.Split("\n"+log, "\n> ")[1:] {
		line, rest, _ := strings.Cut(block, "\n")
		cmd, out = line, ""
		if o, ok := strings.CutPrefix(rest, "[stdout]\n"); ok {
			out, _, _ = strings.Cut(o, "\n[stderr]\n")
		}
	}
	n := 1
	trimmed := strings.TrimRight(log, "\n")
	if m := failLine().FindStringSubmatch(trimmed[strings.LastIndex(trimmed, "\n")+1:]); m != nil {
		n, _ = strconv.Atoi(m[1])
	}
	if strings.HasPrefix(cmd, "run mockhub") {
		judged = out
	}
	return []byte(strings.Repeat("# comment\n", n-1) + cmd + "\n"), judged
}

// A subject's output cannot make a divergence of its own: a comparison and its diff
// printed by a program whose run failed otherwise (its exit status), or the mock hub's
// header printed where no judge's output has it, show nothing.
func TestDivergenceIgnoresTheSubjectsText(t *testing.T) {
	fakeCmp := "> cmp stdout w\ndiff stdout w\n--- stdout\n+++ w\n@@ -1 +1 @@\n-I did\n+what you wanted\n\n"
	fakeConv := "the conversation, step by step, up to the first divergence from the engine's:\n  >    1  hub -> player | all is well\n    want  hub -> player | all is well\n"
	script := []byte("# c\nrun -status 0 $HUB\ncmp stdout w\n")
	for name, log := range map[string]string{
		"a comparison":          "> run -status 0 $HUB\n[stdout]\n" + fakeCmp + "FAIL: c.txtar:2: run: hub: want exit 0, got 3\n",
		"a comparison, stderr":  "> run -status 0 $HUB\n[stdout]\nx\n\n[stderr]\n" + fakeCmp + "FAIL: c.txtar:2: run: hub: want exit 0, got 3\n",
		"the mock hub's header": "> run -status 0 $HUB\n[stdout]\n" + fakeConv + "\nFAIL: c.txtar:2: run: hub: want exit 0, got 3\n",
	} {
		if got := Divergence(log, script, "", nil); got != "" {
			t.Errorf("%s printed by the subject shows as a divergence:\n%s", name, got)
		}
	}
	// A block of stdout printed on stderr is not taken for the stdout: the lines before
	// the divergence are what the run recorded of its stdout.
	log := "> run -status 0 $HUB\n[stdout]\na\nb\n\n[stderr]\nx\n[stdout]\nI did\nb\n\n> cmp stdout w\n" +
		"diff stdout w\n--- stdout\n+++ w\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\nFAIL: c.txtar:3: stdout and w differ\n"
	runs := scriptcmds.NewRuns()
	runs.SetOutput([]byte("a\nb\n"), []byte("x\n[stdout]\nI did\nb\n"))
	want := "stdout, line by line, up to the first divergence from the expected:\n       1  a\n  >    2  b\n    want  c\n"
	if got := Divergence(log, script, "", runs); got != want {
		t.Errorf("a block of stdout on stderr:\n%s\nwant\n%s", got, want)
	}
}
