package grade

import (
	"strings"
	"testing"
	"time"

	"gauntlet/harness/grading/build"
)

// The toy game's cases (grade_test.go) as outcomes, for the writers' tests.
var (
	caseHub     = Case{ID: "hub_pairs", Game: "toy", Title: "The hub relays.", Section: "Hub", Category: "hub/basics"}
	casePlayer  = Case{ID: "echo", Game: "toy", Title: "The player echoes.", Section: "Player", Category: "player/basics", Requirement: `"echo what you read"`}
	caseLenient = Case{ID: "exit", Game: "toy", Title: "The player exits 5.", Section: "Player", Category: "player/basics", Accept: "exit 0 too"}
)

// sampleReport makes a report of the toy game: subject "good" passes everything (one case
// leniently), "bad" fails in several ways (a binary byte in a log included) and meets a
// harness error, "nobuild" did not build.
func sampleReport(subject string) *Report {
	started := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	b := &build.Result{OK: true, Warnings: 1, Duration: 1500 * time.Millisecond}
	o := func(c *Case, p Pairing, counted bool, v Verdict, detail, log string) Outcome {
		return Outcome{Case: c, Pairing: p, Counted: counted, Verdict: v, Detail: detail, Log: log,
			Duration: 250 * time.Millisecond}
	}
	var outs []Outcome
	switch subject {
	case "good":
		outs = []Outcome{
			o(&caseHub, TheirHub, true, Pass, "", ""),
			o(&caseHub, TheirPlayers, false, Pass, "", ""),
			o(&caseHub, TheirHubTheir, false, Pass, "", ""),
			o(&casePlayer, Theirs, true, Pass, "", ""),
			o(&caseLenient, Theirs, true, PassLenient, "exit status 0 (the alternative)", "> run\n"),
		}
	case "bad":
		outs = []Outcome{
			o(&caseHub, TheirHub, true, WrongStdout, `at line 1, want "a", got "b"`, "> run $HUB\n[stdout]\nb\x00\x07\nFAIL: hub_pairs.txtar:3: no match\n"),
			o(&caseHub, TheirPlayers, false, Pass, "", ""),
			o(&caseHub, TheirHubTheir, false, Crash, "got signal:SEGV", "> run\nFAIL: x:2: run: $HUB: want exit 0, got signal:SEGV\n"),
			o(&casePlayer, Theirs, true, HarnessError, "unknown command \"frob\"", "> frob\nFAIL: x:2: unknown command \"frob\"\n"),
			o(&caseLenient, Theirs, true, WrongExit, "want exit 5, got 3", "> run -status 5,0 $PLAYER\nFAIL: x:2: run: $PLAYER: want exit 5, got 3\n"),
		}
	case "nobuild":
		b = &build.Result{OK: false, Problem: "make exited with status 2", Warnings: 2,
			Missing: []string{"toyhub", "toyplayer"}, Duration: 300 * time.Millisecond, Log: "cc -c hub.c\nhub.c:1:1: error: <oops> & \"quoted\"\n"}
		outs = []Outcome{
			o(&caseHub, TheirHub, true, BuildFail, "program not built: toyhub", ""),
			o(&caseHub, TheirPlayers, false, BuildFail, "program not built: toyplayer", ""),
			o(&caseHub, TheirHubTheir, false, BuildFail, "program not built: toyhub", ""),
			o(&casePlayer, Theirs, true, BuildFail, "program not built: toyplayer", ""),
			o(&caseLenient, Theirs, true, BuildFail, "program not built: toyplayer", ""),
		}
	}
	return NewReport(toy, "/subs/"+subject, started, b, outs)
}

func TestCountsLine(t *testing.T) {
	tests := []struct {
		subject, want string
	}{
		{"good", "PASS 4, PASS-LENIENT 1"},
		{"bad", "PASS 1, WRONG-STDOUT 1, WRONG-EXIT 1, CRASH 1, HARNESS-ERROR 1"},
		{"nobuild", "BUILD-FAIL 5"},
	}
	for _, tc := range tests {
		if got := sampleReport(tc.subject).CountsLine(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.subject, got, tc.want)
		}
	}
}

func TestCohortTable(t *testing.T) {
	c := NewCohort(toy)
	c.Rows = []CohortRow{
		{Name: "good", State: Graded, Report: sampleReport("good")},
		{Name: "bad", State: Resumed, Report: sampleReport("bad")},
		{Name: "nobuild", State: Graded, Report: sampleReport("nobuild")},
		{Name: "late", State: Interrupted, Problem: "interrupted after 1 of 3 cases"},
	}
	var b strings.Builder
	if err := c.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := [][]string{
		{"submission", "state", "build", "warnings", "hub/basics (4)", "player/basics (2)", "total/6", "cases"},
		// hub: 1 counted case, passed; player: 2 counted, both passed (one leniently).
		{"good", "graded", "ok", "1", "4.00", "2.00", "6.00", "PASS 4, PASS-LENIENT 1"},
		// hub failed; the player's harness error leaves its category and the grade with no
		// mark (until 2026-12-07: 0.00, the category marked on its other case alone).
		{"bad", "resumed", "ok", "1", "0.00", "?", "incomplete", "PASS 1, WRONG-STDOUT 1, WRONG-EXIT 1, CRASH 1, HARNESS-ERROR 1"},
		{"nobuild", "graded", "BUILD-FAIL", "2", "0.00", "0.00", "0.00", "BUILD-FAIL 5"},
		{"late", "interrupted", "-", "-", "-", "-", "-", "interrupted after 1 of 3 cases"},
	}
	if len(lines) != len(want) {
		t.Fatalf("table:\n%s", b.String())
	}
	for i, w := range want {
		// Cells are separated by two or more spaces; the last cell may hold single spaces.
		var cells []string
		for _, f := range strings.Split(lines[i], "  ") {
			if f = strings.TrimSpace(f); f != "" {
				cells = append(cells, f)
			}
		}
		if strings.Join(cells, "|") != strings.Join(w, "|") {
			t.Errorf("row %d: %q, want %q", i, cells, w)
		}
	}
	// The columns line up: every row's "cases" cell starts at the same column.
	col := strings.Index(lines[0], "cases")
	for _, l := range lines[1:5] {
		if len(l) < col || l[col-1] != ' ' || l[col] == ' ' {
			t.Errorf("misaligned row %q (cases column at %d)", l, col)
		}
	}
}

func TestMissingProgramsInTable(t *testing.T) {
	r := sampleReport("good")
	r.Build.Missing = []string{"toyplayer"}
	c := NewCohort(toy)
	c.Rows = []CohortRow{{Name: "x", State: Graded, Report: r}}
	var b strings.Builder
	c.WriteTable(&b)
	if !strings.Contains(b.String(), "ok, missing toyplayer") {
		t.Errorf("table does not say what was not built:\n%s", b.String())
	}
}
