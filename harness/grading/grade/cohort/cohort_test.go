package cohort

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"syscall"
	"time"

	"gauntlet/games/contract"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gauntlet/harness/grading/build"
	"gauntlet/harness/grading/grade"
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

// lockedBuffer is a strings.Builder that the cohort's goroutines and the test share.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestHungSubmissionDelaysNoOther grades, with one busy slot, a submission whose program
// waits (on a FIFO the test holds shut, using no CPU) before one that answers: the second is
// graded to the end while every case of the first still waits, as it would be alone,
// because the waiting cases leave the shared busy slot (grade.Slots); off a terminal, a
// status line says what is running meanwhile. Decided by the order of events, never by
// time: the first submission's programs are let go only once the second is done and a
// status line showed the first still running (its cases' deadline, minutes, only bounds a
// failure). Before issue 60, the one slot ran the hung submission's cases one after the
// other to their deadlines before the second's could start, and said nothing meanwhile.
func TestHungSubmissionDelaysNoOther(t *testing.T) {
	root := t.TempDir()
	gate := filepath.Join(root, "gate")
	if err := syscall.Mkfifo(gate, 0o600); err != nil {
		t.Fatal(err)
	}
	programs := map[string]string{
		"hung": "#!/bin/sh\nread x < " + gate + "\necho ok\n",
		"good": "#!/bin/sh\necho ok\n",
	}
	var dirs []string
	for _, n := range []string{"hung", "good"} {
		d := filepath.Join(root, n)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "toyplayer"), []byte(programs[n]), 0o755); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	game := grade.Game{Name: "toy", Timeout: 2 * time.Minute,
		Programs:   []grade.Program{{Var: "PLAYER", Name: "toyplayer", Role: "players"}},
		Categories: []contract.Category{{Name: "player/basics", Program: "toyplayer", Marks: 1}}}
	var cases []grade.Case
	for _, id := range []string{"one", "two", "three"} {
		c, err := grade.ParseCase("toy", id, []byte("# t\n# section: s\n# category: player/basics\nrun $PLAYER\nstdout '^ok$'\n"), map[string]bool{"PLAYER": true})
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, c)
	}
	var stdout strings.Builder
	var stderr, events lockedBuffer
	ended := make(chan int)
	go func() {
		ended <- Run(Config{Game: game, Cases: cases, Dirs: dirs, Jobs: 1, Scratch: t.TempDir(),
			Build: func(dir, scratch string) (grade.Subject, *build.Result, error) {
				return grade.Subject{Name: dir, Programs: map[string]string{"toyplayer": filepath.Join(dir, "toyplayer")}}, nil, nil
			},
			StatusEvery: 50 * time.Millisecond, Gauntlet: "test", Events: grade.NewEvents(&events),
			WriteFile: func(string, func(io.Writer) error) error { return nil },
			Stdout:    &stdout, Stderr: &stderr})
	}()
	goodDone := regexp.MustCompile(`\] good: 1\.00/1 marks`)
	hungRunning := regexp.MustCompile(`(?m)^gauntlet grade: \[[^]]*\] 1/2 done, running: hung 0/3$`)
	for !goodDone.MatchString(stderr.String()) || !hungRunning.MatchString(stderr.String()) {
		select {
		case status := <-ended:
			t.Fatalf("the cohort ended (status %d) before the answering submission was graded beside the waiting one; stderr:\n%s", status, stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	// Let the waiting cases go: a writer that stays, and a line for each.
	w, err := os.OpenFile(gate, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.WriteString(strings.Repeat("go\n", 10))
	if status := <-ended; status != 0 {
		t.Errorf("status %d, want 0; stderr:\n%s\nstdout:\n%s", status, stderr.String(), stdout.String())
	}
	if i, j := strings.Index(stderr.String(), "] good: "), strings.Index(stderr.String(), "] hung: "); i < 0 || j < i {
		t.Errorf("the waiting submission was not reported after the answering one:\n%s", stderr.String())
	}
	// The event stream: each case run as it ended, then each report, by submission.
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(events.String()), "\n") {
		var ev grade.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("not an event (%v): %s", err, line)
		}
		got = append(got, ev.Submission+" "+ev.Event)
	}
	want := "good case,good case,good case,good report,hung case,hung case,hung case,hung report"
	if strings.Join(got, ",") != want {
		t.Errorf("events %q, want %q", got, want)
	}
}

// A run with spare submissions (a shard's -steal) grades its own first, then each spare one
// Claim grants; a spare one it is refused is left out, and an own one it is refused is a
// row "elsewhere" (another shard writes its report), neither an error.
func TestSpareSubmissionsByClaim(t *testing.T) {
	root := t.TempDir()
	dir := func(n string) string {
		d := filepath.Join(root, n)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	own, taken := dir("own"), dir("taken")
	var mu sync.Mutex
	var asked, built []string
	var stdout, stderr strings.Builder
	status := Run(Config{Game: grade.Game{Name: "toy"}, Dirs: []string{own, taken}, Jobs: 1, Scratch: t.TempDir(),
		Spare: []Spare{{Dir: dir("spare"), Name: "spare"}, {Dir: dir("busy"), Name: "busy"}},
		Claim: func(name string, isOwn bool) (func(), string, bool) {
			mu.Lock()
			defer mu.Unlock()
			asked = append(asked, fmt.Sprintf("%s:%v", name, isOwn))
			if name == "busy" || name == "taken" {
				return nil, "claimed by shard 2/2", false
			}
			return func() {}, "", true
		},
		Build: func(dir, scratch string) (grade.Subject, *build.Result, error) {
			mu.Lock()
			built = append(built, filepath.Base(dir))
			mu.Unlock()
			return grade.Subject{Name: dir}, nil, nil
		},
		Gauntlet: "test", OutDir: filepath.Join(root, "out"),
		WriteFile: func(string, func(io.Writer) error) error { return nil },
		Stdout:    &stdout, Stderr: &stderr})
	if status != 0 {
		t.Errorf("status %d, want 0\n%s%s", status, stdout.String(), stderr.String())
	}
	// One slot: the own submissions first, in order, then the spare ones.
	if got := strings.Join(asked, " "); got != "own:true taken:true spare:false busy:false" {
		t.Errorf("claims asked in the order %s", got)
	}
	if got := strings.Join(built, " "); got != "own spare" {
		t.Errorf("built %s, want own spare", got)
	}
	rows := stdout.String()
	for _, want := range []string{"own ", "spare ", "taken       elsewhere"} {
		if !strings.Contains(rows, want) {
			t.Errorf("the table lacks %q:\n%s", want, rows)
		}
	}
	if strings.Contains(rows, "busy") {
		t.Errorf("a spare submission another shard took is in the table:\n%s", rows)
	}
}
