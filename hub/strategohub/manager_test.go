package strategohub

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gauntlet/games/stratego"
	"gauntlet/harness/box/execfile"
	"gauntlet/internal/buildtest"
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

// seededRandom is the random AI with a seed of its own, for a test whose RED plays on after
// BLUE's first move: with the default, random seed that move is at times a scout's, up the
// free column to RED's flag (BLUE VICTORY 1, one run in ten or so).
func seededRandom(t *testing.T) string {
	return script(t, "exec "+random(t)+" 1\n")
}

// run runs the manager and returns its result line, exit status and how long it took.
func run(t *testing.T, args ...string) (string, int, time.Duration) {
	t.Helper()
	got, _, status, took := runErr(t, args...)
	return got, status, took
}

// runErr is run, with the manager's stderr.
func runErr(t *testing.T, args ...string) (string, string, int, time.Duration) {
	t.Helper()
	var out, errb bytes.Buffer
	start := time.Now()
	var status int
	buildtest.Returns(t, "the manager waits for an AI that sleeps for an hour", func() {
		status = Run(args, strings.NewReader(""), &out, &errb)
	})
	return strings.TrimSpace(out.String()), errb.String(), status, time.Since(start)
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
// the manager: each run ends within its line's time (0.5 s of the AI's own time, which the
// reference AI never needs however busy the machine, and 5 s on the clock whatever it
// does) and the 2 s an AI has to exit after QUIT.
func TestFaultyAIs(t *testing.T) {
	buildtest.Long(t)
	ai := random(t)
	quitter := "while read line; do case \"$line\" in QUIT*) exit 0;; esac; done\n"
	setup := "read q; printf '" + strings.ReplaceAll(setupRows, "\n", "\\n") + "'; "
	board := "read s; i=0; while [ $i -lt 10 ]; do read r; i=$((i+1)); done; "
	tests := []struct {
		name string
		red  string // a script body, or "" for the random AI
		want string // a regexp of the result line
		why  string // a regexp of the manager's stderr
	}{
		// BLUE is still asked for its setup after RED's failed (its pieces count: 148).
		{"silent at setup", "exec sleep 3600\n", `^\S+ RED BAD_SETUP 0 0 148$`, `^stratego: RED BAD_SETUP: RED: 0 setup rows of 4 \(RED: no whole line within 500ms\)\n$`},
		// The first marshal of the bad setup stays on the board (10).
		{"bad setup counts", "read q; printf '1111111111\\n1111111111\\n1111111111\\n1111111111\\n'; " + quitter, `RED BAD_SETUP 0 10 148$`, `^stratego: RED BAD_SETUP: RED: "1111111111\|1111111111\|1111111111\|1111111111": a setup places exactly the 40 pieces`},
		{"partial line then silence", setup + board + "printf '0 3 DO'; exec sleep 3600\n", `RED ILLEGAL 1 `, `^stratego: RED ILLEGAL: no whole line within 500ms\n$`},
		{"malformed move", setup + board + "echo 'MOVE PLEASE'; " + quitter, `RED ILLEGAL 1 `, `^stratego: RED ILLEGAL: "MOVE PLEASE": a move is X Y DIRECTION`},
		{"illegal move (a bomb)", setup + board + "echo '3 3 DOWN'; " + quitter, `RED ILLEGAL 1 `, `^stratego: RED ILLEGAL: "3 3 DOWN": bombs and the flag do not move\n$`},
		{"carriage returns are tolerated", "read q; printf '" + strings.ReplaceAll(setupRows, "\n", "\\r\\n") + "'; " + board + "printf 'SURRENDER\\r\\n'; " + quitter, `RED SURRENDER 1 148 `, `^$`},
		{"dies mid-game", setup + "read s; kill -9 $$\n", `RED ILLEGAL 1 `, `^stratego: RED ILLEGAL: end of file\n$`},
		{"killed by a signal", setup + "read s; kill -SEGV $$\n", `RED ILLEGAL 1 `, `^stratego: RED ILLEGAL: end of file \(RED was killed by SIGSEGV\)\n$`},
		{"ignores QUIT", setup + board + "echo SURRENDER; exec sleep 3600\n", `RED SURRENDER 1 `, `^$`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			red := ai
			if tc.red != "" {
				red = script(t, tc.red)
			}
			got, why, status, _ := runErr(t, "-T", "0.5", red, ai)
			if status != 0 || !regexp.MustCompile(tc.want).MatchString(got) {
				t.Errorf("exit %d, result %q, want %q", status, got, tc.want)
			}
			if !regexp.MustCompile(tc.why).MatchString(why) {
				t.Errorf("stderr %q, want %q", why, tc.why)
			}
			// The faulty AIs sleep an hour: a manager that waited for them instead of its
			// timeout and kill grace would not end before runErr's backstop. (How long the
			// timeout and the grace take is not asserted: under load it varies.)
		})
	}
}

// -i: an illegal move is not made and its side loses the turn, so a game of an AI that
// only makes illegal moves goes on to the turn limit.
func TestIgnoreIllegal(t *testing.T) {
	body := "read q; printf '" + strings.ReplaceAll(setupRows, "\n", "\\n") + "'\n" +
		"while read line; do case \"$line\" in QUIT*) exit 0;; *ILLEGAL*) ;; *) i=0; while [ $i -lt 10 ]; do read r; i=$((i+1)); done; echo '3 3 DOWN';; esac; done\n"
	got, status, _ := run(t, "-i", "-m", "20", "-T", "2s", script(t, body), random(t))
	if status != 0 || !strings.Contains(got, "BLUE DRAW_DEFAULT 20 ") && !strings.Contains(got, " VICTORY ") {
		t.Errorf("exit %d, result %q, want the game to go on to its limit (or BLUE to win)", status, got)
	}
}

// The -o log is the 2012 manager's (measured on it): the setup blocks, "N RED: " and "N
// BLU: " before each move, an illegal move with ILLEGAL after it, the line saying on whose
// turn and why the game ended, and the result line.
func TestMoveLogNamesTheReason(t *testing.T) {
	body := "read q; printf '" + strings.ReplaceAll(setupRows, "\n", "\\n") + "'; read s; i=0; while [ $i -lt 10 ]; do read r; i=$((i+1)); done; echo '0 3 DOWN'; read c; " +
		"read s; i=0; while [ $i -lt 10 ]; do read r; i=$((i+1)); done; echo '0 4 LEFT'; while read line; do case \"$line\" in QUIT*) exit 0;; esac; done\n"
	logFile := filepath.Join(t.TempDir(), "log")
	red := script(t, body)
	blue := seededRandom(t)
	got, status, _ := run(t, "-o", logFile, "-T", "5s", red, blue)
	// The piece values after the turn depend on the opponent's one move (it may take a
	// piece): only the ending and the turn are this test's.
	if status != 0 || !strings.Contains(got, "/ai RED ILLEGAL 2 ") {
		t.Fatalf("exit %d, result %q", status, got)
	}
	log, err := os.ReadFile(logFile)
	lines := strings.Split(strings.TrimSuffix(string(log), "\n"), "\n")
	want := append([]string{red + " RED SETUP"}, strings.Fields(setupRows)...)
	if err != nil || len(lines) != 15 || !slices.Equal(lines[:5], want) || lines[5] != blue+" BLUE SETUP" || lines[10] != "1 RED: 0 3 DOWN OK" || !strings.HasPrefix(lines[11], "1 BLU: ") ||
		lines[12] != "2 RED: 0 4 LEFT ILLEGAL" || lines[13] != "Game ends on RED's turn - REASON: Selected unit cannot move that way" || lines[14] != got {
		t.Errorf("log %q, %v", log, err)
	}
}

// BLUE is not stopped while RED sets up: RED answers only once BLUE has run (written a
// file), which a manager that stopped BLUE meanwhile would never see (RED would time out).
func TestBlueRunsDuringRedsSetup(t *testing.T) {
	dir := t.TempDir()
	red := script(t, "read q; touch "+dir+"/asked; n=0; until [ -e "+dir+"/blue-ran ]; do n=$((n+1)); [ $n -gt 500 ] && exit 1; sleep 0.01; done; printf '"+
		strings.ReplaceAll(setupRows, "\n", "\\n")+"'; read s; i=0; while [ $i -lt 10 ]; do read r; i=$((i+1)); done; echo SURRENDER; while read line; do case \"$line\" in QUIT*) exit 0;; esac; done\n")
	blue := script(t, "until [ -e "+dir+"/asked ]; do sleep 0.01; done; touch "+dir+"/blue-ran; exec "+random(t)+"\n")
	got, status, _ := run(t, "-T", "10s", red, blue)
	if status != 0 || !strings.HasSuffix(got, "/ai RED SURRENDER 1 148 148") {
		t.Errorf("exit %d, result %q, want RED's surrender", status, got)
	}
}

// The arguments as the 2012 manager read them: no arguments prints its two usage lines on
// stderr and exits 0; -h and --help print the manual on stdout and exit 0; a switch not
// known (-x) is ignored; -T and -t take whole or decimal seconds (the competition ran
// "stratego -m 1000 -o LOG -T 2 red blue") or inf, -m inf; one AI is a usage error (1).
func TestUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if status := Run(nil, strings.NewReader(""), &out, &errb); status != 0 || out.Len() != 0 || errb.String() != "Usage: stratego [options] red blue\n       stratego --help\n" {
		t.Errorf("no arguments: exit %d, stdout %q, stderr %q", status, out.String(), errb.String())
	}
	for _, h := range []string{"-h", "--help"} {
		out.Reset()
		if status := Run([]string{h}, strings.NewReader(""), &out, &out); status != 0 || !strings.Contains(out.String(), "SYNOPSIS") {
			t.Errorf("%s: exit %d, %q", h, status, out.String())
		}
	}
	if _, status, _ := run(t, "onlyone"); status != 1 {
		t.Errorf("one AI: exit %d, want 1", status)
	}
	if _, status, _ := run(t, "--frobnicate", "a", "b"); status != 1 {
		t.Errorf("--frobnicate: exit %d, want 1 (as 2012: an unrecognised switch)", status)
	}
	if _, status, _ := run(t, "/no/such/ai", "/no/such/ai"); status != 1 {
		t.Errorf("missing AIs: exit %d, want 1 (an error of the match)", status)
	}
	surrender := script(t, "read q; printf '"+strings.ReplaceAll(setupRows, "\n", "\\n")+"'; read s; i=0; while [ $i -lt 10 ]; do read r; i=$((i+1)); done; echo SURRENDER; while read l; do case \"$l\" in QUIT*) exit 0;; esac; done\n")
	for _, args := range [][]string{
		{"-m", "1000", "-o", filepath.Join(t.TempDir(), "LOG"), "-T", "2"},
		{"-T", "0.5", "-t", "0"}, {"-T", "inf"}, {"-T", "-1"}, {"-T", "2s"}, {"-t", "0.01"}, {"-m", "inf"}, {"-x"}, {"-p", "-r", "-b"},
	} {
		got, status, _ := run(t, append(args, surrender, random(t))...)
		if status != 0 || !strings.HasSuffix(got, "/ai RED SURRENDER 1 148 148") {
			t.Errorf("%q: exit %d, result %q", args, status, got)
		}
	}
	for _, args := range [][]string{{"-T", "0"}, {"-T", "fast"}, {"-m", "many"}, {"-t"}, {"-g"}} {
		if _, status, _ := run(t, append(args, surrender, random(t))...); status != 1 {
			t.Errorf("%q: exit %d, want 1", args, status)
		}
	}
}

// -t inf (or a negative stall) waits for a line on stdin after each move, as 2012 waited
// for Enter: with one line on stdin the game goes on past one wait, and at the end of
// stdin it goes on without waiting.
func TestStallForEnter(t *testing.T) {
	surrenderSecond := script(t, "read q; printf '"+strings.ReplaceAll(setupRows, "\n", "\\n")+"'; board() { i=0; while [ $i -lt 10 ]; do read r; i=$((i+1)); done; }; read s; board; echo '0 3 DOWN'; read c; read s; board; echo SURRENDER; while read l; do case \"$l\" in QUIT*) exit 0;; esac; done\n")
	var out, errb bytes.Buffer
	buildtest.Returns(t, "the manager waits for a line that never comes", func() {
		if status := Run([]string{"-t", "inf", surrenderSecond, seededRandom(t)}, strings.NewReader("\n"), &out, &errb); status != 0 || !strings.Contains(out.String(), "/ai RED SURRENDER 2 ") {
			t.Errorf("exit %d, stdout %q, stderr %q", status, out.String(), errb.String())
		}
	})
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

// LimitNamed reads limitNote's note of the side asked about only.
func TestLimitNamed(t *testing.T) {
	for _, tc := range []struct {
		why  string
		c    stratego.Colour
		want bool
	}{
		{"RED ILLEGAL: end of file (RED was killed by SIGXCPU at the CPU time limit)", stratego.Red, true},
		{"RED ILLEGAL: end of file (RED was killed by SIGXCPU at the CPU time limit)", stratego.Blue, false},
		{"RED ILLEGAL: end of file (RED exited 153, a program it ran ended by the file size limit)", stratego.Red, true},
		{"BOTH BAD_SETUP: RED: 0 setup rows of 4 (RED: no whole line within 2s) (BLUE was killed by SIGXCPU at the CPU time limit)", stratego.Red, false},
		{"BOTH BAD_SETUP: RED: 0 setup rows of 4 (RED: no whole line within 2s) (BLUE was killed by SIGXCPU at the CPU time limit)", stratego.Blue, true},
		{"RED ILLEGAL: end of file", stratego.Red, false},
	} {
		if got := LimitNamed(tc.why, tc.c); got != tc.want {
			t.Errorf("LimitNamed(%q, %v) = %v", tc.why, tc.c, got)
		}
	}
}

// An AI that ignores SIGXCPU is killed by SIGKILL at its hard limit, a second later: the
// manager tells that SIGKILL from any other by the AI's CPU time, against the AIs' limit it
// was given (a tournament's boxes' limit; here 1 s, which the AI sets itself). It burns 2 s
// of CPU: a long test (limitkill's tests tell a SIGKILL at the limit under -short).
func TestSIGKILLAtTheCPULimitIsNamed(t *testing.T) {
	t.Parallel()
	buildtest.Long(t)
	src := filepath.Join(t.TempDir(), "ignores_sigxcpu.c")
	if err := os.WriteFile(src, []byte(`#include <signal.h>
#include <stdio.h>
int main(void) {
	char b[100];
	signal(SIGXCPU, SIG_IGN);
	if (!fgets(b, sizeof b, stdin)) return 1;
	printf("123344455s\n5566667777\n8888899999\n999BBBBBBF\n");
	fflush(stdout);
	for (volatile unsigned long i = 0;; i++) ;
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	ignorer, err := buildtest.CProgram(src)
	if err != nil {
		t.Fatal(err)
	}
	red := script(t, "ulimit -S -t 1; ulimit -H -t 2; exec '"+ignorer+"'\n")
	var out, errb bytes.Buffer
	if status := runWith([]string{"-T", "5m", red, random(t)}, strings.NewReader(""), &out, &errb, nil, time.Second); status != 0 {
		t.Fatalf("exit %d: %s", status, errb.String())
	}
	if want := "stratego: RED ILLEGAL: end of file (RED was killed by SIGKILL at the CPU time limit)\n"; errb.String() != want {
		t.Errorf("stderr %q, want %q", errb.String(), want)
	}
}
