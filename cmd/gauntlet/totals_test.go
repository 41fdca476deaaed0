package main

import (
	"errors"
	"os"
	"strings"
	"testing"

	"gauntlet/harness/grading/grade"
	"gauntlet/internal/buildtest"
)

// A grade of submissions on a machine that gives its cases no totals says why, once, in
// its notes: "no case totals (REASON)" for a root grader, "without case totals (REASON"
// for a rootless one (the root run reruns the test as an unprivileged user); never "with
// case totals".
func TestGradeSaysNoCaseTotalsOnce(t *testing.T) {
	buildtest.NeedBox(t, grade.BoxProblem())
	reason := errors.New("cgroup v2 at /sys/fs/cgroup: no memory and pids controllers (there are: cpu io)")
	defer func(f func() error) { totalsProblem = f }(totalsProblem)
	totalsProblem = func() error { return reason }
	var f gradeFlags
	notes, err := boxDecision(&f, true)
	if err != nil {
		t.Fatal(err)
	}
	want := "no case totals (" + reason.Error() + ")"
	if os.Geteuid() != 0 {
		want = "without case totals (" + reason.Error() + ":"
	}
	all := strings.Join(notes, "\n")
	if strings.Count(all, want) != 1 || strings.Count(all, reason.Error()) != 1 || strings.Contains(all, "with case totals") {
		t.Errorf("notes:\n%s\nwant %q once and the reason once", all, want)
	}
	buildtest.AsUnprivileged(t, "^TestGradeSaysNoCaseTotalsOnce$")
}
