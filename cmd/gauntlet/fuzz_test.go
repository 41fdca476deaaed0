package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gauntlet/harness/box/execfile"
	"gauntlet/harness/box/sandbox"
	"gauntlet/internal/buildtest"
)

// mutantOf writes, in a folder every user may write, the reference program pkg (a copy)
// and a shell wrapper named name around it whose exit status from becomes to, and which
// first writes its user id, and the variable GAUNTLET_TEST_SECRET if it has it, in a new
// file uid.* of the folder. It returns the wrapper and the folder.
func mutantOf(t *testing.T, pkg, name string, from, to int) (prog, dir string) {
	t.Helper()
	dir = t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	in, err := os.Open(buildtest.Path(t, pkg))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	real := filepath.Join(dir, "real-"+name)
	if err := execfile.WriteFrom(real, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755, in); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\nf=\"$(mktemp '" + dir + "/uid.XXXXXX')\"\nid -u > \"$f\"\nprintenv GAUNTLET_TEST_SECRET >> \"$f\"\n'" + real + "' \"$@\"\ns=$?\n" +
		"[ $s = " + strconv.Itoa(from) + " ] && exit " + strconv.Itoa(to) + "\nexit $s\n"
	prog = filepath.Join(dir, name)
	if err := execfile.Write(prog, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return prog, dir
}

// TestFuzzRunsTheSubjectOnlyInTheBox fuzzes a mutant player and a mutant hub through the
// CLI, as root on a machine that gives boxes, and checks that the campaign found the one
// bug of each and verified its regression file, that the subject never ran as root, and
// that it never saw the fuzzer's environment (a variable set in it).
// Before, the regression files were verified with the subject run as root outside the box,
// and a hub's mock players could not be started in the box at all (their program was a
// link, in a folder only root could enter, to a binary the box may hide), so that every hub
// case ended with "Unable to start subprocess" for the subject and the reference alike,
// and a hub campaign found nothing.
func TestFuzzRunsTheSubjectOnlyInTheBox(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzing campaigns of several seconds: full mode only")
	}
	buildtest.NeedBox(t, sandbox.BoxProblem())
	gauntletBinary(t)
	t.Setenv("GAUNTLET_TEST_SECRET", "s3cret")
	tests := []struct {
		name, pkg, game, role, rule string
		from, to                    int
		flags                       []string
	}{
		// The player exits 0 where the reference exits 6 (issue 15's mutant).
		{"2310A", "gauntlet/cmd/2310A", "dealer2310", "player", "[player/exit-6]", 6, 0,
			[]string{"--runs", "60", "--seed", "9"}},
		// The hub exits 8 where the reference exits 7 (an invalid message).
		{"stlucia", "gauntlet/cmd/stlucia", "stlucia", "hub", "[hub/exit-7]", 7, 8,
			[]string{"--runs", "6", "--seed", "2", "--mutate", "garbage", "--min-tries", "60"}},
	}
	for _, tc := range tests {
		t.Run(tc.role, func(t *testing.T) {
			prog, dir := mutantOf(t, tc.pkg, tc.name, tc.from, tc.to)
			args := append([]string{"fuzz", tc.game, "--role", tc.role, "--out", t.TempDir()}, tc.flags...)
			code, stdout, stderr := gauntlet(append(args, prog)...)
			if code != fuzzExitRules(1) || !strings.Contains(stdout, "rule 1 "+tc.rule) || strings.Contains(stdout, "rule 2 ") {
				t.Fatalf("exit %d, want %d and one rule %s\nstdout:\n%s\nstderr:\n%s", code, fuzzExitRules(1), tc.rule, stdout, stderr)
			}
			if strings.Contains(stdout, "NOT VERIFIED") {
				t.Errorf("the regression file is not verified:\n%s", stdout)
			}
			// The replay command printed runs as printed: the case fails on the subject
			// for the reason found (issue 60: gauntlet run FILE DIR built the folder, which
			// removed the program, and the case was a BUILD-FAIL).
			_, replay, ok := strings.Cut(stdout, "\n  replay: gauntlet ")
			if !ok {
				t.Fatalf("no replay command printed:\n%s", stdout)
			}
			replay, _, _ = strings.Cut(replay, "\n")
			rcode, rout, rerr := gauntlet(strings.Fields(replay)...)
			if want := fmt.Sprintf("want exit (status )?%d, got (exit status )?%d", tc.from, tc.to); rcode != 1 || !regexp.MustCompile(want).MatchString(rout) || strings.Contains(rout, "BUILD-FAIL") {
				t.Errorf("gauntlet %s: exit %d, want 1 and %q\nstdout:\n%s\nstderr:\n%s", replay, rcode, want, rout, rerr)
			}
			files, _ := filepath.Glob(filepath.Join(dir, "uid.*"))
			if len(files) == 0 {
				t.Fatal("the subject never ran")
			}
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil || strings.HasPrefix(string(data), "0\n") {
					t.Fatalf("the subject ran as root (%d runs logged their user)", len(files))
				}
				if strings.Contains(string(data), "s3cret") {
					t.Fatalf("the subject saw the fuzzer's environment")
				}
			}
		})
	}
}

// A judged fuzzer's finding is replayed with the program's folder as it is, the program
// named as each program the case names by its variable, and paths a shell takes as printed.
func TestJudgedReplayCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my programs")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "fuzz_client_1.txtar")
	if err := os.WriteFile(file, []byte("# category: client/x\nrun ${CLIENT} 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := judgedReplay("clue", file, filepath.Join(dir, "client's"))
	want := "gauntlet run '" + file + "' -no-build -prog 'clue-client=client'\\''s' '" + dir + "'"
	if got != want {
		t.Errorf("judgedReplay:\n%s\nwant\n%s", got, want)
	}
	if got, want := replayCommand("/a/f.txtar", "/b/EAIT", "EAIT"), "gauntlet run /a/f.txtar -no-build /b"; got != want {
		t.Errorf("replayCommand: %s, want %s", got, want)
	}
}
