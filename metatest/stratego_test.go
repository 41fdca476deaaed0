package metatest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gauntlet/harness/grade"
)

// shellAI is a Stratego AI in sh with a fixed setup: MOVE answers every turn query, and
// ONQUIT is what it does when told QUIT.
func shellAI(move, onQuit string) string {
	return `#!/bin/sh
read colour rest
case "$colour" in QUIT*) ` + onQuit + `;; esac
printf '123344455s\n5566667777\n8888899999\n999BBBBBBF\n'
while read line; do
  case "$line" in QUIT*) ` + onQuit + `;; esac
  i=0; while [ $i -lt 10 ]; do read row; i=$((i+1)); done
  ` + move + `
  read conf
  case "$conf" in QUIT*) ` + onQuit + `;; esac
done
`
}

// aiSubmission is a folder whose Makefile builds the program ai from the script.
func aiSubmission(t *testing.T, script string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ai.sh"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	mk := "all:\n\tcp ai.sh ai && chmod 755 ai\n"
	if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte(mk), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The Stratego AI suite fails an AI that moves a bomb (PROTOCOL, naming the rule), one that
// answers too late (TIMEOUT) and one that ignores QUIT (in its own category); an AI that
// surrenders at once, which the protocol allows, passes every case about legality.
func TestStrategoAISuiteFailsBadAIs(t *testing.T) {
	if testing.Short() {
		t.Skip("whole grades: full mode only")
	}
	bomb := `if [ "$colour" = RED ]; then echo "3 3 DOWN"; else echo "3 9 UP"; fi`
	tests := []struct {
		name, script string
		check        func(t *testing.T, rep *grade.Report)
	}{
		{"moves a bomb", shellAI(bomb, "exit 0"), func(t *testing.T, rep *grade.Report) {
			for _, c := range rep.Cases {
				if c.Category == "ai/play" && (c.Verdict != grade.Protocol || !strings.Contains(c.Detail, "bombs and the flag do not move")) {
					t.Errorf("%s: %s (%s), want PROTOCOL naming the rule", c.ID, c.Verdict, c.Detail)
				}
			}
		}},
		{"answers late", shellAI("sleep 3; echo SURRENDER", "exit 0"), func(t *testing.T, rep *grade.Report) {
			for _, c := range rep.Cases {
				if c.Category == "ai/play" && c.Verdict != grade.Timeout {
					t.Errorf("%s: %s (%s), want TIMEOUT", c.ID, c.Verdict, c.Detail)
				}
			}
		}},
		{"ignores QUIT", shellAI("echo SURRENDER", "sleep 30"), func(t *testing.T, rep *grade.Report) {
			for _, c := range rep.Categories {
				if c.Name == "ai/end" && c.Passed != 0 {
					t.Errorf("ai/end: %d of %d passed, want none", c.Passed, c.Cases)
				}
			}
		}},
		{"surrenders at once", shellAI("echo SURRENDER", "exit 0"), func(t *testing.T, rep *grade.Report) {
			if rep.Marks != rep.MaxMarks {
				t.Errorf("a legal (if weak) AI got %.2f/%.0f", rep.Marks, rep.MaxMarks)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, rep, text := gradeRun(t, "stratego", aiSubmission(t, tc.script))
			tc.check(t, rep)
			if t.Failed() {
				t.Logf("report:\n%s", text)
			}
		})
	}
}
