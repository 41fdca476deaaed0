package main

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

// events records, in order, what a grade writes to its two streams and when it first
// takes its own binary (to make the program folders: the first slow step, before make and
// the first case).
type events struct {
	mu   sync.Mutex
	list []string
}

func (e *events) add(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.list = append(e.list, s)
}

type eventWriter struct {
	e    *events
	name string
}

func (w eventWriter) Write(p []byte) (int, error) {
	w.e.add(w.name + ": " + string(p))
	return len(p), nil
}

// A grade's first line comes at once, before any slow step: it says what is graded and
// how many case runs are ahead, and it is written before the grader makes its program
// folders, builds the submission or runs a case; a cohort's says how many submissions.
func TestGradeFirstLineAtOnce(t *testing.T) {
	bin := gauntletBinary(t)
	defer func() { executable = func() (string, error) { return bin, nil } }()
	root := t.TempDir()
	a := makeSubmission(t, root, "a", "true")
	b := makeSubmission(t, root, "b", "true")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-run", "^hub_args_usage_none$"}, "gauntlet grade stlucia: grading the built-in reference programs: 1 case run (1 case), -j 2\n"},
		{[]string{"-run", "^hub_args_usage_none$", a}, fmt.Sprintf("gauntlet grade stlucia: grading %s (built with make first): 1 case run (1 case), -j 2\n", a)},
		{[]string{"-run", "^game_spec_x$", "-j", "3", a, b}, "gauntlet grade stlucia: grading 2 submissions (each built with make first): 3 case runs each (1 case), -j 3\n"},
	} {
		var e events
		executable = func() (string, error) { e.add("executable"); return bin, nil }
		run(append([]string{"grade", "stlucia"}, tc.args...), eventWriter{&e, "stdout"}, eventWriter{&e, "stderr"})
		// The line first; then, before the program folders, at most the notes on how the
		// grade runs (a scratch space elsewhere than /tmp, say).
		folders := slices.Index(e.list, "executable")
		ok := len(e.list) > 0 && e.list[0] == "stderr: "+tc.want && folders > 0
		for _, ev := range e.list[1:max(folders, 1)] {
			ok = ok && strings.HasPrefix(ev, "stderr: gauntlet grade: note: ")
		}
		if !ok {
			t.Errorf("grade %s: the first events are %q, want the line %q, then the program folders", strings.Join(tc.args, " "), e.list[:min(len(e.list), 4)], tc.want)
		}
	}
}
