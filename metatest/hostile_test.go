package metatest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cheat is a dealer2310 submission with no game logic at all: each program plays back what
// it can find of the oracle (the case's script, the expected outputs, the mock hub's
// conversation, the grader binary that carries the suites), from its working folder and
// the folders above it, then empties every file it can write there (the tamperer). Before
// the box it scored 41.58/42. Boxed, only a case that needs no output at all may pass.
const cheat = `#!/bin/sh
for d in . .. ../.. ../../.. "$WORK" "$MOCKBIN" /tmp; do
	for f in "$d"/* "$d"/*/* "$d"/.gauntlet*; do
		[ -f "$f" ] && [ -r "$f" ] || continue
		case "$f" in
		*conv) sed -n 's/^expect "\(.*\)"$/\1/p' "$f" ;;
		*.stderr|*want*) cat "$f" >&2 ;;
		*.stdout|*.txt) cat "$f" ;;
		esac
		: > "$f" 2>/dev/null
	done
done
# The suites are in the grader binary: try to read them from it.
for p in mockhub mockplayer 2310A; do
	b=$(command -v $p) && strings "$b" 2>/dev/null | grep -m 3 '^Player ' >&2
done
exit 0
`

// TestReplayingCheatScoresNothing grades the cheat on the whole dealer2310 suite.
func TestReplayingCheatScoresNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("a whole grade (about 20 s): full mode only")
	}
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("the grader boxes a submission only as root: not root here")
	}
	dir := t.TempDir()
	mk := "all:\n\tcp cheat.sh 2310A && cp cheat.sh 2310B && cp cheat.sh 2310dealer && chmod 755 2310A 2310B 2310dealer\n"
	if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte(mk), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cheat.sh"), []byte(cheat), 0o755); err != nil {
		t.Fatal(err)
	}
	status, rep, text := gradeRun(t, "dealer2310", dir)
	if status != 1 {
		t.Errorf("exit %d, want 1", status)
	}
	if rep.Marks > 0.05*rep.MaxMarks {
		t.Errorf("the replaying cheat scored %.2f/%.0f, want at most 5%%", rep.Marks, rep.MaxMarks)
	}
	// Passing cases must be ones that want no output at all.
	for _, o := range rep.Cases {
		if o.Verdict == "PASS" && o.Counted {
			t.Logf("passed: %s", o.ID)
		}
		if o.Verdict == "HARNESS-ERROR" {
			t.Errorf("%s: HARNESS-ERROR (%s): a cheat must never be excused", o.ID, o.Detail)
		}
	}
	if strings.Contains(text, "as root") {
		t.Errorf("the report says something ran as root:\n%s", text)
	}
	t.Logf("the cheat scored %.2f/%.0f", rep.Marks, rep.MaxMarks)
}
