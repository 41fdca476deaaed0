package strategohub

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"gauntlet/games/stratego"
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
// the manager: each run ends within its line timeout (2 s here, so that the reference AI
// under load is never late), the 2 s an AI has to exit after QUIT, and a second (a
// generous bound: a hang would be 30 s).
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
		{"silent at setup", "exec sleep 3600\n", `^\S+ RED BAD_SETUP 0 0 148$`, `^stratego: RED BAD_SETUP: RED: 0 setup rows of 4 \(RED: no whole line within 2s\)\n$`},
		// The first marshal of the bad setup stays on the board (10).
		{"bad setup counts", "read q; printf '1111111111\\n1111111111\\n1111111111\\n1111111111\\n'; " + quitter, `RED BAD_SETUP 0 10 148$`, `^stratego: RED BAD_SETUP: RED: "1111111111\|1111111111\|1111111111\|1111111111": a setup places exactly the 40 pieces`},
		{"partial line then silence", setup + board + "printf '0 3 DO'; exec sleep 3600\n", `RED ILLEGAL 1 `, `^stratego: RED ILLEGAL: no whole line within 2s\n$`},
		{"malformed move", setup + board + "echo 'MOVE PLEASE'; " + quitter, `RED ILLEGAL 1 `, `^stratego: RED ILLEGAL: "MOVE PLEASE": a move is X Y DIRECTION`},
		{"illegal move (a bomb)", setup + board + "echo '3 3 DOWN'; " + quitter, `RED ILLEGAL 1 `, `^stratego: RED ILLEGAL: "3 3 DOWN": bombs and the flag do not move\n$`},
		{"carriage returns are tolerated", "read q; printf '" + strings.ReplaceAll(setupRows, "\n", "\\r\\n") + "'; " + board + "printf 'SURRENDER\\r\\n'; " + quitter, `RED SURRENDER 1 148 `, `^$`},
		{"dies mid-game", setup + "read s; kill -9 $$\n", `RED ILLEGAL 1 `, `^stratego: RED ILLEGAL: end of file\n$`},
		{"ignores QUIT", setup + board + "echo SURRENDER; exec sleep 3600\n", `RED SURRENDER 1 `, `^$`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			red := ai
			if tc.red != "" {
				red = script(t, tc.red)
			}
			got, why, status, _ := runErr(t, "-T", "2s", red, ai)
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

// The -o log holds each move's confirmation, then the reason of an ILLEGAL end.
func TestMoveLogNamesTheReason(t *testing.T) {
	body := "read q; printf '" + strings.ReplaceAll(setupRows, "\n", "\\n") + "'; read s; i=0; while [ $i -lt 10 ]; do read r; i=$((i+1)); done; echo '0 3 DOWN'; read c; " +
		"read s; i=0; while [ $i -lt 10 ]; do read r; i=$((i+1)); done; echo '0 4 LEFT'; while read line; do case \"$line\" in QUIT*) exit 0;; esac; done\n"
	logFile := filepath.Join(t.TempDir(), "log")
	got, status, _ := run(t, "-o", logFile, "-T", "5s", script(t, body), random(t))
	// The piece values after the turn depend on the random opponent's one move (it may
	// take a piece): only the ending and the turn are this test's.
	if status != 0 || !strings.Contains(got, "/ai RED ILLEGAL 2 ") {
		t.Fatalf("exit %d, result %q", status, got)
	}
	log, err := os.ReadFile(logFile)
	lines := strings.Split(strings.TrimSuffix(string(log), "\n"), "\n")
	if err != nil || len(lines) != 3 || lines[0] != "0 3 DOWN OK" || lines[2] != `RED ILLEGAL: "0 4 LEFT": a piece stays on the board` {
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

// A tournament game's line carries the reason of an ILLEGAL end, and a BAD_SETUP of both
// sides is an illegal end of each.
func TestMatchNamesTheReason(t *testing.T) {
	quitter := "while read line; do case \"$line\" in QUIT*) exit 0;; esac; done\n"
	bomb := script(t, "read q; printf '"+strings.ReplaceAll(setupRows, "\n", "\\n")+"'; read s; i=0; while [ $i -lt 10 ]; do read r; i=$((i+1)); done; echo '3 3 DOWN'; "+quitter)
	r, err := Match(nil, nil, "-T", "5s")(bomb, random(t))
	if err != nil || !strings.HasSuffix(r.Line, ` RED ILLEGAL 1 148 148 (RED ILLEGAL: "3 3 DOWN": bombs and the flag do not move)`) || !r.Illegal[0] || r.Illegal[1] || r.Points != [2]float64{-0.1, 0.2} {
		t.Errorf("%+v, %v", r, err)
	}
	bad := script(t, "read q; printf 'XXXXXXXXXX\\nXXXXXXXXXX\\nXXXXXXXXXX\\nXXXXXXXXXX\\n'; "+quitter)
	r, err = Match(nil, nil, "-T", "5s")(bad, bad)
	if err != nil || !strings.HasPrefix(r.Line, "neither BOTH BAD_SETUP 0 0 0 (BOTH BAD_SETUP: RED: ") || !r.Illegal[0] || !r.Illegal[1] || r.Points != [2]float64{-0.1, -0.1} {
		t.Errorf("%+v, %v", r, err)
	}
}

// An AI that a limit ended is named so in the account of its ILLEGAL end, on the manager's
// stderr and in a tournament game's line, and counted apart (Result.Limit, the table's
// limit column), where before 2026-11-28 it read as any end of file: killed by SIGXCPU itself, or behind a shell that does not exec it (status 152).
// The AIs set their own soft CPU limit of 1 s; the line timeout is long enough that only
// the limit ends them. Each case burns a second of CPU: under -short, SIGXCPU only (the
// wrapper's 152 is read by the same note, limitkill's tests have every way a limit shows).
func TestLimitKillIsNamed(t *testing.T) {
	t.Parallel()
	start := "read q; printf '" + strings.ReplaceAll(setupRows, "\n", "\\n") + "'; read s; i=0; while [ $i -lt 10 ]; do read r; i=$((i+1)); done; "
	for _, tc := range []struct {
		name, body, want string
		long             bool
	}{
		{"SIGXCPU", start + "ulimit -S -t 1; while :; do :; done\n", "(RED was killed by SIGXCPU at the CPU time limit)", false},
		{"a wrapper's 152", start + "sh -c 'ulimit -S -t 1; while :; do :; done'; exit $?\n", "(RED exited 152, a program it ran ended by the CPU time limit)", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.long {
				buildtest.Long(t)
			}
			r, err := Match(nil, nil, "-T", "5m")(script(t, tc.body), random(t))
			if want := " RED ILLEGAL 1 148 148 (RED ILLEGAL: end of file " + tc.want + ")"; err != nil || !strings.HasSuffix(r.Line, want) || !r.Illegal[0] || !r.Limit[0] || r.Limit[1] {
				t.Errorf("%+v, %v; want the line to end %q", r, err, want)
			}
		})
	}
}

// limitNamed reads limitNote's note of the side asked about only.
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
		if got := limitNamed(tc.why, tc.c); got != tc.want {
			t.Errorf("limitNamed(%q, %v) = %v", tc.why, tc.c, got)
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
