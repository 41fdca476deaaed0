package metatest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gauntlet/harness/buildtest"
)

// cheat is a dealer2310 submission with no game logic at all: each program plays back what
// it can find of the oracle (the case's script, the expected outputs, the mock hub's
// conversation, the grader binary that carries the suites), from its working folder and
// the folders above it, then empties every file it can write there (the tamperer). Before
// the box it scored 41.58/42. Boxed, only a case that needs no output at all may pass. It
// also tries what the box let through until 2026-11-28 (41.80/42 then): the mock player
// its environment named, and the case's script beside its folder.
const cheat = `#!/bin/sh
# The judge, if the environment names it: the mock player plays as the reference player
# (22/22 on the players' cases before 2026-11-28).
if [ -n "$GAUNTLET_MOCKPLAYER" ] && [ -x "$GAUNTLET_MOCKPLAYER" ]; then
	exec "$GAUNTLET_MOCKPLAYER" -as "$(basename "$0")" -- "$@"
fi
# The case's own script, where the grader wrote it beside the subject's folder, or any
# case's the box shows: its expected stdout and stderr sections played back.
for f in ../*.txtar ../../*.txtar /tmp/*/*/*.txtar /tmp/*/*/*/*.txtar; do
	[ -r "$f" ] || continue
	awk '/^-- .*stdout.* --$/ {o=1; next} /^-- / {o=0} o' "$f"
	awk '/^-- .*stderr.* --$/ {o=1; next} /^-- / {o=0} o' "$f" >&2
	exit 0
done
# The suites are in the grader binary: try to read them from it, by the paths a hub is
# given its players by, or where the grader keeps its programs (a case's header line
# "# section: " in a program is a suite read).
for a in "$@" "$MOCKBIN"/* /tmp/*/bin/* /tmp/*/programs/*/*; do
	[ -f "$a" ] && [ -r "$a" ] && grep -a -q -m1 '^# section: ' "$a" && echo "READ-BINARY $a" >&2
done
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
for p in mockhub mockplayer 2310A; do
	b=$(command -v $p) && strings "$b" 2>/dev/null | grep -m 3 '^Player ' >&2
done
exit 0
`

// TestReplayingCheatScoresNothing grades the cheat on the whole dealer2310 suite, as root.
func TestReplayingCheatScoresNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("a whole grade (about 20 s): full mode only")
	}
	t.Parallel()
	if os.Geteuid() != 0 {
		buildtest.NeedBox(t, errors.New("the grader boxes a submission as root here only in the root run: see TestReplayingCheatScoresNothingRootless"))
	}
	gradeCheat(t, "dealer2310", "2310A", "2310B", "2310dealer")
}

// TestReplayingCheatScoresNothingStLucia grades the same cheat on the whole St Lucia
// suite, as root: its hub and its five players all play back what they can find.
func TestReplayingCheatScoresNothingStLucia(t *testing.T) {
	if testing.Short() {
		t.Skip("a whole grade: full mode only")
	}
	t.Parallel()
	if os.Geteuid() != 0 {
		buildtest.NeedBox(t, errors.New("the grader boxes a submission as root here only in the root run: see TestReplayingCheatScoresNothingRootless"))
	}
	gradeCheat(t, "stlucia", "stlucia", "EAIT", "SCIENCE", "HABS", "HASS", "MABS")
}

// TestReplayingCheatScoresNothingRootless grades the cheat as a grader that is not root,
// in rootless boxes: the subject has the grader's own user, and only its box keeps the
// oracle out of its reach. As root, the test runs again as an unprivileged user.
func TestReplayingCheatScoresNothingRootless(t *testing.T) {
	if testing.Short() {
		t.Skip("a whole grade (about 20 s): full mode only")
	}
	if buildtest.AsUnprivileged(t, "^TestReplayingCheatScoresNothingRootless$", "gauntlet/cmd/gauntlet") {
		return
	}
	gradeCheat(t, "dealer2310", "2310A", "2310B", "2310dealer")
	gradeCheat(t, "stlucia", "stlucia", "EAIT", "SCIENCE", "HABS", "HASS", "MABS")
}

// gradeCheat grades the cheat as every program of game and checks it scored at most 5%.
func gradeCheat(t *testing.T, game string, programs ...string) {
	dir := t.TempDir()
	mk := "all:\n"
	for _, p := range programs {
		mk += "\tcp cheat.sh " + p + " && chmod 755 " + p + "\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte(mk), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cheat.sh"), []byte(cheat), 0o755); err != nil {
		t.Fatal(err)
	}
	status, rep, text := gradeRun(t, game, dir)
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
	for _, o := range rep.Cases {
		if strings.Contains(o.Log, "READ-BINARY") {
			t.Errorf("%s: the cheat read a program of the grader's:\n%s", o.ID, o.Log)
			break
		}
	}
	if strings.Contains(text, "as root") {
		t.Errorf("the report says something ran as root:\n%s", text)
	}
	if want := map[bool]string{true: "box", false: "rootless box"}[os.Geteuid() == 0]; rep.Isolation != want {
		t.Errorf("graded with isolation %q, want %q", rep.Isolation, want)
	}
	t.Logf("the cheat scored %.2f/%.0f (%s)", rep.Marks, rep.MaxMarks, rep.Isolation)
}
