package stratego

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"gauntlet/harness/buildtest"
	"gauntlet/harness/execfile"
)

// A setup that places the 40 pieces, for the scripted AIs.
const setupRows = `123344455s
5566667777
8888899999
999BBBBBBF
`

func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ai")
	if err := execfile.Write(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func random(t *testing.T) string {
	return filepath.Join(buildtest.Programs(t, "gauntlet/cmd/stratego-random"), "stratego-random")
}

// run runs the manager and returns its result line, exit status and how long it took.
func run(t *testing.T, args ...string) (string, int, time.Duration) {
	t.Helper()
	var out, errb bytes.Buffer
	start := time.Now()
	status := Run(args, strings.NewReader(""), &out, &errb)
	return strings.TrimSpace(out.String()), status, time.Since(start)
}

var resultLine = regexp.MustCompile(`^\S+ (RED|BLUE) (VICTORY|SURRENDER|DRAW|DRAW_DEFAULT|ILLEGAL|BAD_SETUP) \d+ \d+ \d+$`)

// The reference AIs play whole games to the end, every move legal, in every mix.
func TestReferenceAIsPlayToTheEnd(t *testing.T) {
	buildtest.Long(t)
	dir := buildtest.Programs(t, "gauntlet/cmd/stratego-random", "gauntlet/cmd/stratego-hunter")
	ai, hunter := filepath.Join(dir, "stratego-random"), filepath.Join(dir, "stratego-hunter")
	pairs := [][2]string{{ai, ai}, {hunter, ai}, {ai, hunter}, {hunter, hunter}}
	for i, p := range pairs {
		got, status, _ := run(t, p[0], p[1])
		if status != 0 || !resultLine.MatchString(got) || strings.Contains(got, "ILLEGAL") {
			t.Errorf("game %d: exit %d, result %q", i, status, got)
		}
	}
}

// Every fault of an AI ends the game with the outcome the protocol gives it, and none hangs
// the manager: each run ends within its line timeout (500 ms here), the 2 s an AI has to
// exit after QUIT, and a second (a generous bound: a hang would be 30 s).
func TestFaultyAIs(t *testing.T) {
	buildtest.Long(t)
	ai := random(t)
	quitter := "while read line; do case \"$line\" in QUIT*) exit 0;; esac; done\n"
	tests := []struct {
		name string
		red  string // a script body, or "" for the random AI
		want string // a regexp of the result line
	}{
		{"silent at setup", "sleep 30\n", `^\S+ RED BAD_SETUP 0 `},
		{"bad setup counts", "read q; printf '1111111111\\n1111111111\\n1111111111\\n1111111111\\n'; " + quitter, `RED BAD_SETUP 0`},
		{"partial line then silence", "read q; printf '" + strings.ReplaceAll(setupRows, "\n", "\\n") + "'; read s; i=0; while [ $i -lt 10 ]; do read r; i=$((i+1)); done; printf '0 3 DO'; sleep 30\n", `RED ILLEGAL 0`},
		{"malformed move", "read q; printf '" + strings.ReplaceAll(setupRows, "\n", "\\n") + "'; read s; i=0; while [ $i -lt 10 ]; do read r; i=$((i+1)); done; echo 'MOVE PLEASE'; " + quitter, `RED ILLEGAL 0`},
		{"illegal move (a bomb)", "read q; printf '" + strings.ReplaceAll(setupRows, "\n", "\\n") + "'; read s; i=0; while [ $i -lt 10 ]; do read r; i=$((i+1)); done; echo '3 3 DOWN'; " + quitter, `RED ILLEGAL 0`},
		{"carriage returns are tolerated", "read q; printf '" + strings.ReplaceAll(setupRows, "\n", "\\r\\n") + "'; read s; i=0; while [ $i -lt 10 ]; do read r; i=$((i+1)); done; printf 'SURRENDER\\r\\n'; " + quitter, `RED SURRENDER 0 148 `},
		{"dies mid-game", "read q; printf '" + strings.ReplaceAll(setupRows, "\n", "\\n") + "'; read s; kill -9 $$\n", `RED ILLEGAL 0`},
		{"ignores QUIT", "read q; printf '" + strings.ReplaceAll(setupRows, "\n", "\\n") + "'; read s; i=0; while [ $i -lt 10 ]; do read r; i=$((i+1)); done; echo SURRENDER; exec sleep 30\n", `RED SURRENDER 0`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			red := ai
			if tc.red != "" {
				red = script(t, tc.red)
			}
			got, status, took := run(t, "-T", "500ms", red, ai)
			if status != 0 || !regexp.MustCompile(tc.want).MatchString(got) {
				t.Errorf("exit %d, result %q, want %q", status, got, tc.want)
			}
			// The faulty AIs sleep 30 s: a manager that waited for them instead of its
			// timeout and kill grace would take that long. (How long the timeout and the
			// grace take is not asserted: under load it varies.)
			if took > 15*time.Second {
				t.Errorf("the game took %v: the manager waited for the silent AI", took.Round(time.Millisecond))
			}
		})
	}
}

// -i: an illegal move is not made and its side loses the turn, so a game of an AI that
// only makes illegal moves goes on to the turn limit.
func TestIgnoreIllegal(t *testing.T) {
	body := "read q; printf '" + strings.ReplaceAll(setupRows, "\n", "\\n") + "'\n" +
		"while read line; do case \"$line\" in QUIT*) exit 0;; *ILLEGAL*) ;; *) i=0; while [ $i -lt 10 ]; do read r; i=$((i+1)); done; echo '3 3 DOWN';; esac; done\n"
	got, status, _ := run(t, "-i", "-m", "20", "-T", "500ms", script(t, body), random(t))
	if status != 0 || !strings.Contains(got, " DRAW_DEFAULT 20 ") && !strings.Contains(got, " VICTORY ") {
		t.Errorf("exit %d, result %q, want the game to go on to its limit (or BLUE to win)", status, got)
	}
}

func TestUsage(t *testing.T) {
	if _, status, _ := run(t, "onlyone"); status != 1 {
		t.Errorf("one AI: exit %d, want 1", status)
	}
	var out bytes.Buffer
	if status := Run([]string{"-h"}, strings.NewReader(""), &out, &out); status != 0 || !strings.Contains(out.String(), "usage: stratego") {
		t.Errorf("-h: exit %d, %q", status, out.String())
	}
	if _, status, _ := run(t, "/no/such/ai", "/no/such/ai"); status != 1 {
		t.Errorf("missing AIs: exit %d, want 1 (an error of the match)", status)
	}
}

// BenchmarkGameAsProcesses plays a whole game of two random AI processes through the
// manager (SIGSTOP and SIGCONT around every turn included).
func BenchmarkGameAsProcesses(b *testing.B) {
	ai := filepath.Join(buildtest.Programs(b, "gauntlet/cmd/stratego-random"), "stratego-random")
	for b.Loop() {
		var out bytes.Buffer
		if Run([]string{ai, ai}, strings.NewReader(""), &out, &out) != 0 {
			b.Fatal(out.String())
		}
	}
}
