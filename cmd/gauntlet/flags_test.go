package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gauntlet/harness/grading/grade"
)

// Every command refuses a flag value it cannot use, with a message naming the flag, and
// exits 2 before it runs anything: a duration of 0 or less never silently means a default.
func TestFlagValuesRefused(t *testing.T) {
	dir := t.TempDir()
	var progs []string
	for _, name := range []string{"one", "two"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		progs = append(progs, p)
	}
	eait := filepath.Join(dir, "EAIT")
	if err := os.WriteFile(eait, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Were a value let through, the run would stay short and write only in dir (which
	// the end of the test checks), never in the source tree.
	out := filepath.Join(dir, "fuzz-out")
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"tournament", "stratego", "-T", "0", progs[0], progs[1]}, "-T 0: want a positive duration"},
		{[]string{"tournament", "stratego", "-T", "fast", progs[0], progs[1]}, "-T fast: want a positive duration"},
		{[]string{"tournament", "referee", "-referee", progs[0], "-T", "-1s", progs[0], progs[1]}, "-T -1s: want a positive duration"},
		{[]string{"tournament", "stratego", "-m", "0", progs[0], progs[1]}, "-m 0: want a positive number of turns"},
		{[]string{"tournament", "stratego", "-j", "0", progs[0], progs[1]}, "want -rounds and -j of at least 1"},
		{[]string{"fuzz", "stlucia", "-role", "player", "-runs", "1", "-out", out, "-timeout", "0", eait}, "-timeout 0s: want a positive duration"},
		{[]string{"fuzz", "stlucia", "-role", "player", "-runs", "1", "-out", out, "-step-timeout", "-5s", eait}, "-step-timeout -5s: want a positive duration"},
		{[]string{"fuzz", "stlucia", "-role", "player", "-runs", "1", "-out", out, "-min-time", "-1m", eait}, "cannot be negative"},
		{[]string{"fuzz", "stlucia", "-role", "player", "-runs", "1", "-out", out, "-j", "0", eait}, "-j must be at least 1"},
		{[]string{"fuzz", "clue", "-role", "client", "-out", out, "-time", "-1s", eait}, "cannot be negative"},
		{[]string{"grade", "stlucia", "-submission-timeout", "0"}, "gauntlet grade: -submission-timeout 0s: want a positive duration such as 10m"},
		{[]string{"grade", "stlucia", "-submission-timeout", "-1m"}, "gauntlet grade: -submission-timeout -1m0s: want a positive duration"},
		{[]string{"adequacy", "stlucia", "-j", "0"}, "gauntlet adequacy: -j 0: want at least 1"},
		{[]string{"adequacy", "chess"}, `gauntlet adequacy: no mutant library for "chess"`},
		{[]string{"adequacy", "stlucia", "extra"}, `gauntlet adequacy: unexpected argument "extra"`},
		{[]string{"adequacy", "stlucia", "-suite", filepath.Join(dir, "nosuch")}, "gauntlet adequacy: -suite " + filepath.Join(dir, "nosuch") + ": stat"},
		{[]string{"adequacy", "stlucia", "-suite", eait}, "not a folder of .txtar cases"},
		{[]string{"tournament", "stratego", "-json", filepath.Join(dir, "nosuch", "t.json"), progs[0], progs[1]}, "-json " + filepath.Join(dir, "nosuch", "t.json") + ": no folder"},
		{[]string{"tournament", "stratego", "-csv", dir, progs[0], progs[1]}, "-csv " + dir + ": is a folder"},
		{[]string{"tournament", "stratego", "-save", filepath.Join(dir, "nosuch", "s.jsonl"), progs[0], progs[1]}, "-save " + filepath.Join(dir, "nosuch", "s.jsonl") + ": no folder"},
	} {
		code, stdout, stderr := gauntlet(tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("gauntlet %s: exit %d, stderr %q; want 2 and %q\n%s", strings.Join(tc.args, " "), code, stderr, tc.stderr, stdout)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Errorf("a refused command left files in %s: %d entries", dir, len(entries))
	}
}

// A bad flag gets its error, a did-you-mean for a flag that is not one, and one line saying
// where the flags are: two lines, never the whole flag list (issue 60: 75 lines for grade).
func TestBadFlagIsTwoLines(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"grade", "stlucia", "-timout", "3s"}, "gauntlet grade: flag provided but not defined: -timout (did you mean -timeout?)\nrun 'gauntlet grade -help' for the flags\n"},
		{[]string{"grade", "stlucia", "-j", "x"}, "gauntlet grade: invalid value \"x\" for flag -j: parse error\nrun 'gauntlet grade -help' for the flags\n"},
		{[]string{"grade", "stlucia", "-zzzzzzzz"}, "gauntlet grade: flag provided but not defined: -zzzzzzzz\nrun 'gauntlet grade -help' for the flags\n"},
		{[]string{"merge", "-jsn", "x.json", "dir"}, "gauntlet merge: flag provided but not defined: -jsn (did you mean -json?)\nrun 'gauntlet merge -help' for the flags\n"},
		{[]string{"tournament", "stratego", "-roundz", "2", "a", "b"}, "gauntlet tournament: flag provided but not defined: -roundz (did you mean -rounds?)\nrun 'gauntlet tournament -help' for the flags\n"},
		{[]string{"adequacy", "stlucia", "-jj", "2"}, "gauntlet adequacy: flag provided but not defined: -jj (did you mean -j?)\nrun 'gauntlet adequacy -help' for the flags\n"},
		{[]string{"fuzz", "stlucia", "-rol", "hub"}, "gauntlet fuzz: flag provided but not defined: -rol (did you mean -role?)\nrun 'gauntlet fuzz -help' for the flags\n"},
		{[]string{"fuzz", "clue", "-rol", "client"}, "gauntlet fuzz clue: flag provided but not defined: -rol (did you mean -role?)\nrun 'gauntlet fuzz clue -help' for the flags\n"},
	} {
		code, stdout, stderr := gauntlet(tc.args...)
		if code != 2 || stderr != tc.want || stdout != "" {
			t.Errorf("gauntlet %s: exit %d, stdout %q, stderr\n%s\nwant exit 2 and\n%s", strings.Join(tc.args, " "), code, stdout, stderr, tc.want)
		}
	}
}

// -events - streams one JSON line per case run as it ends, then one for the report: each a
// whole grade.Event, the case runs as the JSON report has them (docs/report-format.md).
func TestGradeEventsStream(t *testing.T) {
	code, stdout, stderr := gauntlet("grade", "stlucia", "-run", specCase, "-events", "-")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	var cases []string
	for i, line := range lines {
		var ev grade.Event
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&ev); err != nil {
			t.Fatalf("line %d is not an event (%v): %s", i+1, err, line)
		}
		if ev.Submission != "built-in reference programs" {
			t.Errorf("line %d: submission %q", i+1, ev.Submission)
		}
		switch {
		case i < len(lines)-1 && ev.Event == "case" && ev.Case != nil && ev.Case.Verdict == grade.Pass:
			cases = append(cases, ev.Case.Name())
		case i == len(lines)-1 && ev.Event == "report" && ev.Marks != nil && *ev.Marks == 10 && *ev.MaxMarks == 40 && ev.Counts[grade.Pass] == 3:
		default:
			t.Errorf("line %d: unexpected event %s", i+1, line)
		}
	}
	slices.Sort(cases)
	if want := []string{"game_spec_x@ref-hub+their-players", "game_spec_x@their-hub+ref-players", "game_spec_x@their-hub+their-players"}; !slices.Equal(cases, want) {
		t.Errorf("case events %q, want %q", cases, want)
	}
	if !strings.Contains(stderr, "total") {
		t.Errorf("the summary is not on stderr:\n%s", stderr)
	}
}

// -submission-timeout caps a grade: past it no case run starts, and each one not started is
// a TIMEOUT that says why, in the report as in the summary.
func TestSubmissionTimeoutFlag(t *testing.T) {
	code, stdout, stderr := gauntlet("grade", "stlucia", "-run", specCase, "-submission-timeout", "1ns", "-json", "-")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, stderr)
	}
	var r grade.Report
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("not a report (%v):\n%s", err, stdout)
	}
	if len(r.Cases) != 3 || r.Counts[grade.Timeout] != 3 || r.Cases[0].Detail != grade.NotRunDetail(time.Nanosecond) {
		t.Errorf("cases %d, counts %v, first detail %q: want 3 TIMEOUTs not run", len(r.Cases), r.Counts, r.Cases[0].Detail)
	}
	if !strings.Contains(stderr, "-submission-timeout 1ns") {
		t.Errorf("the summary does not say why:\n%s", stderr)
	}
}
