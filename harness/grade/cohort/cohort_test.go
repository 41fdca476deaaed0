package cohort

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gauntlet/harness/build"
	"gauntlet/harness/grade"
)

func TestSubmissionNames(t *testing.T) {
	tests := []struct {
		dirs  []string
		names string
		err   bool
	}{
		{[]string{"/s/alice", "/s/bob"}, "alice bob", false},
		{[]string{"/s/alice", "/t/alice", "/u/alice"}, "alice alice-2 alice-3", false},
		{[]string{"/s/a", "/t/a", "/s/a-2"}, "a a-3 a-2", false}, // a-2 is taken by a real folder
		{[]string{"/s/alice/", "/s/alice"}, "", true},
		{[]string{"/"}, "submission", false},
	}
	for _, tc := range tests {
		names, _, err := Names(tc.dirs)
		if (err != nil) != tc.err || strings.Join(names, " ") != tc.names {
			t.Errorf("Names(%q) = %q, %v; want %q (error %v)", tc.dirs, names, err, tc.names, tc.err)
		}
	}
}

func TestProgressLine(t *testing.T) {
	var b strings.Builder
	p := &progressLine{w: &b, width: 12}
	p.draw("[1s] 0/2 done") // cut to 11 columns
	p.draw("[2s] 1/2")      // shorter: the rest of the old line is blanked
	p.clear()               // the line is blanked and the cursor back at its start
	p.clear()               // nothing more to clear
	want := "\r[1s] 0/2 do\r[1s] 0/2 do" + "\r[2s] 1/2   \r[2s] 1/2" + "\r        \r"
	if b.String() != want {
		t.Errorf("progress output\n%q\nwant\n%q", b.String(), want)
	}
}

// TestTakeOrder: a free slot takes the earliest submission's next task (its build, or its
// next case), a later submission is built while an earlier one's cases wait for slots no
// more, and after an interrupt nothing more is taken.
func TestTakeOrder(t *testing.T) {
	c := &cohortRun{Config: Config{Cases: make([]grade.Case, 2)}}
	c.cond = sync.NewCond(&c.mu)
	a := &submission{name: "a", state: grading}
	b := &submission{name: "b", state: queued}
	d := &submission{name: "d", state: queued}
	c.subs = []*submission{a, b, d}
	state := func() string {
		var s []string
		for _, x := range c.subs {
			s = append(s, fmt.Sprintf("%s:%d/%d", x.name, x.state, x.next))
		}
		return strings.Join(s, " ")
	}
	for i, want := range []string{
		"a:2/1 b:0/0 d:0/0", // a's first case
		"a:2/2 b:0/0 d:0/0", // a's second case
		"a:2/2 b:1/0 d:0/0", // b's build: a has nothing more to start
		"a:2/2 b:1/0 d:1/0", // d's build: b's cases wait for its build
	} {
		if c.take() == nil {
			t.Fatalf("take %d: nothing to do", i+1)
		}
		if got := state(); got != want {
			t.Errorf("after take %d: %s, want %s", i+1, got, want)
		}
	}
	b.state = grading // b built: its cases come before anything of d's
	if c.take() == nil || b.next != 1 {
		t.Errorf("after b's build: %s, want b's first case", state())
	}
	c.stopping = true
	if c.take() != nil {
		t.Error("a task was taken after the interrupt")
	}
}

// TestRunReportsResumesAndErrs runs a cohort of three folders with a fake build and no
// cases: the report of each built one is written to the out folder, a build that fails is
// a HARNESS-ERROR (status 2), and a second run reads the written reports back instead of
// grading again.
func TestRunReportsResumesAndErrs(t *testing.T) {
	root := t.TempDir()
	var dirs []string
	for _, n := range []string{"alice", "bob", "alice2"} {
		d := filepath.Join(root, n)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	out := filepath.Join(root, "out")
	run := func(dirs []string) (int, string, string) {
		var stdout, stderr strings.Builder
		status := Run(Config{Game: grade.Game{Name: "toy"}, Dirs: dirs, Jobs: 2, Scratch: t.TempDir(),
			Build: func(dir, scratch string) (grade.Subject, *build.Result, error) {
				if filepath.Base(dir) == "bob" {
					return grade.Subject{}, nil, errors.New("boom")
				}
				return grade.Subject{Name: dir}, nil, nil
			},
			Gauntlet: "test", OutDir: out,
			WriteFile: func(path string, fn func(io.Writer) error) error {
				if path != "" {
					t.Errorf("WriteFile(%q) without a report file asked for", path)
				}
				return nil
			},
			Stdout: &stdout, Stderr: &stderr})
		return status, stdout.String(), stderr.String()
	}
	status, stdout, stderr := run(dirs)
	if status != 2 || !strings.Contains(stderr, "bob: HARNESS-ERROR: boom") {
		t.Errorf("first run: status %d, stderr:\n%s", status, stderr)
	}
	for _, n := range []string{"alice", "alice2"} {
		if _, err := os.Stat(filepath.Join(out, n+".json")); err != nil || !strings.Contains(stdout, n) {
			t.Errorf("%s: no report (%v), or not in the table:\n%s", n, err, stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "bob.json")); err == nil {
		t.Error("bob, whose build failed, has a report")
	}
	status, _, stderr = run(dirs[:1])
	if status != 0 || !strings.Contains(stderr, "alice: already graded in "+filepath.Join(out, "alice.json")) {
		t.Errorf("second run: status %d, stderr:\n%s", status, stderr)
	}
}
