package grade

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestGradescope(t *testing.T) {
	// test is one expected Gradescope test: its name, score, max_score and status, and a
	// text its output must hold.
	type test struct {
		name          string
		score, max    float64
		status, holds string
	}
	tests := []struct {
		subject string
		score   float64
		tests   []test
	}{
		{"good", 6, []test{
			{"hub/basics", 4, 4, "passed", "1 of 1 cases passed"},
			{"player/basics", 2, 2, "passed", "2 of 2 cases passed"},
			{"[PASS-LENIENT] toyplayer, player/basics: The player exits 5. (exit)", 0, 0, "passed", "allowed alternative: exit status 0"},
		}},
		// A marked HARNESS-ERROR: the grade is incomplete, said first; its category has no
		// mark.
		{"bad", 0, []test{
			{"INCOMPLETE: not a grade", 0, 0, "failed", "a marked case was not judged"},
			{"hub/basics", 0, 4, "failed", "0 of 1 cases passed"},
			{"player/basics", 0, 2, "failed", "1 of 2 cases not judged (HARNESS-ERROR): no mark"},
			{"[WRONG-STDOUT] toyhub, hub/basics: The hub relays. (hub_pairs@their-hub+ref-players)", 0, 0, "failed", "FAIL: hub_pairs.txtar:3"},
			// A pairing that costs no marks is never a red failure.
			{"[not marked] [CRASH] toyhub, hub/basics: The hub relays. (hub_pairs@their-hub+their-players)", 0, 0, "passed", GradescopeUnmarkedText},
			// The grader's own fault: named as the staff's problem, worth nothing.
			{"HARNESS-ERROR, the course staff's problem, not yours: echo", 0, 0, "failed", "not in your submission. The case was run again and failed again"},
			{"[WRONG-EXIT] toyplayer, player/basics: The player exits 5. (exit)", 0, 0, "failed", "also accepted: exit 0 too"},
		}},
		{"nobuild", 0, []test{
			{"hub/basics", 0, 4, "failed", "0 of 1"},
			{"player/basics", 0, 2, "failed", "0 of 2"},
			{"build", 0, 0, "failed", "hub.c:1:1: error"},
			// One test per missing program, listing the cases it cost.
			{"BUILD-FAIL: program not built: toyhub (2 cases)", 0, 0, "failed", "cases: hub_pairs@their-hub+ref-players hub_pairs@their-hub+their-players\n"},
			{"BUILD-FAIL: program not built: toyplayer (3 cases)", 0, 0, "failed", "cases: hub_pairs@ref-hub+their-players echo exit\n"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.subject, func(t *testing.T) {
			var b strings.Builder
			if err := sampleReport(tc.subject).WriteGradescope(&b); err != nil {
				t.Fatal(err)
			}
			// Decode loosely, so a misspelt key shows as a missing one.
			var doc map[string]any
			if err := json.Unmarshal([]byte(b.String()), &doc); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, b.String())
			}
			if doc["score"] != tc.score {
				t.Errorf("score %v, want %v", doc["score"], tc.score)
			}
			if out, _ := doc["output"].(string); !strings.HasPrefix(out, "gauntlet grade toy: /subs/"+tc.subject) {
				t.Errorf("output %.80q: want the summary", out)
			}
			if _, ok := doc["execution_time"].(float64); !ok {
				t.Errorf("execution_time %v", doc["execution_time"])
			}
			got, _ := doc["tests"].([]any)
			if len(got) != len(tc.tests) {
				t.Fatalf("%d tests, want %d:\n%s", len(got), len(tc.tests), b.String())
			}
			for i, w := range tc.tests {
				g, _ := got[i].(map[string]any)
				if len(g) != 6 {
					t.Errorf("test %d has keys %v, want name, score, max_score, status, output, visibility", i, g)
				}
				out, _ := g["output"].(string)
				if g["name"] != w.name || g["score"] != w.score || g["max_score"] != w.max || g["status"] != w.status ||
					g["visibility"] != "visible" || !strings.Contains(out, w.holds) {
					t.Errorf("test %d = %v\nwant %+v", i, g, w)
				}
			}
		})
	}
}

// A student with full marks sees no failed test, though a pairing that is not marked failed
// (issue 60: a red failed 0/0 test for an unmarked pairing).
func TestGradescopeFullMarksShowsNoFailure(t *testing.T) {
	r := sampleReport("good")
	r.Cases = append(r.Cases, CaseReport{ID: "hub_pairs", Pairing: string(TheirHubTheir), Counted: false,
		Category: "hub/basics", Title: "The hub relays.", Verdict: Crash, Detail: "killed by SIGSEGV"})
	var b strings.Builder
	if err := r.WriteGradescope(&b); err != nil {
		t.Fatal(err)
	}
	var doc gsResults
	if err := json.Unmarshal([]byte(b.String()), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Score != 6 {
		t.Errorf("score %g, want 6", doc.Score)
	}
	unmarked := 0
	for _, ts := range doc.Tests {
		if ts.Status != "passed" {
			t.Errorf("test %q is %s", ts.Name, ts.Status)
		}
		if strings.HasPrefix(ts.Name, "[not marked] [CRASH]") {
			unmarked++
		}
	}
	if unmarked != 1 {
		t.Errorf("%d tests for the unmarked pairing, want 1:\n%s", unmarked, b.String())
	}
}

// Category marks add up to the report's, and max_score to the game's marks.
func TestGradescopeScores(t *testing.T) {
	var b strings.Builder
	sampleReport("good").WriteGradescope(&b)
	var doc gsResults
	if err := json.Unmarshal([]byte(b.String()), &doc); err != nil {
		t.Fatal(err)
	}
	score, max := 0.0, 0.0
	for _, ts := range doc.Tests {
		score += ts.Score
		max += ts.MaxScore
	}
	if score != doc.Score || max != 6 {
		t.Errorf("tests add up to %g of %g; score %g of 6", score, max, doc.Score)
	}
}

func TestClip(t *testing.T) {
	long := strings.Repeat("line of text\n", 1000) // 13000 bytes
	tests := []struct {
		in      string
		n       int
		same    bool
		maxSize int
	}{
		{"short\n", 100, true, 6},
		{long, len(long), true, len(long)},
		{long, 1000, false, 1100},
	}
	for _, tc := range tests {
		got := clip(tc.in, tc.n)
		if (got == tc.in) != tc.same || len(got) > tc.maxSize {
			t.Errorf("clip(%d bytes, %d) = %d bytes", len(tc.in), tc.n, len(got))
		}
		if !tc.same {
			if !strings.HasPrefix(got, "line of text\n") || !strings.HasSuffix(got, "line of text\n") ||
				!strings.Contains(got, "bytes left out ...]\nline") {
				t.Errorf("clip keeps no whole lines at both ends: %q", got)
			}
		}
	}
}

// A HARNESS-ERROR test stays visible whatever the visibility chosen (the student must see
// that the fault is not theirs); the others take the visibility chosen.
func TestGradescopeHarnessErrorVisible(t *testing.T) {
	var b strings.Builder
	if err := sampleReport("bad").WriteGradescopeVisible(&b, "after_due_date"); err != nil {
		t.Fatal(err)
	}
	var doc gsResults
	if err := json.Unmarshal([]byte(b.String()), &doc); err != nil {
		t.Fatal(err)
	}
	harness := 0
	for _, ts := range doc.Tests {
		want := "after_due_date"
		if strings.HasPrefix(ts.Name, GradescopeHarnessTest) {
			want = "visible"
			harness++
		}
		if ts.Visibility != want {
			t.Errorf("test %q: visibility %q, want %q", ts.Name, ts.Visibility, want)
		}
	}
	if harness != 1 || doc.Visibility != "after_due_date" {
		t.Errorf("%d HARNESS-ERROR tests (want 1), visibility %q:\n%s", harness, doc.Visibility, b.String())
	}
}
