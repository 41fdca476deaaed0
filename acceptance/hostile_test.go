package acceptance

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"gauntlet/harness/grading/grade"
	"gauntlet/internal/buildtest"
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
	gradeCheatWith(t, cheat, buildtest.Path(t, "gauntlet/cmd/gauntlet"), nil, nil, game, programs...)
}

// gradeCheatWith grades the script as every program of game, with the binary gauntlet
// started through wrap with env added (gradeRunAs), and checks it scored at most 5%.
func gradeCheatWith(t *testing.T, script, gauntlet string, wrap, env []string, game string, programs ...string) {
	dir := t.TempDir()
	mk := "all:\n"
	for _, p := range programs {
		mk += "\tcp cheat.sh " + p + " && chmod 755 " + p + "\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte(mk), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cheat.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	rep := gradeCheatingAs(t, gauntlet, wrap, env, game, dir)
	for _, o := range rep.Cases {
		if strings.Contains(o.Log, "READ-BINARY") {
			t.Errorf("%s: the cheat read a program of the grader's:\n%s", o.ID, o.Log)
			break
		}
	}
}

// gradeCheating grades the cheating submission in dir on the whole suite of game (with the
// grade's flags given) and checks that it scored at most 5%, as a failed grade, with no
// case excused as a HARNESS-ERROR and nothing run as root; it returns the report.
func gradeCheating(t *testing.T, game, dir string, flags ...string) *grade.Report {
	t.Helper()
	return gradeCheatingAs(t, buildtest.Path(t, "gauntlet/cmd/gauntlet"), nil, nil, game, dir, flags...)
}

// gradeCheatingAs is gradeCheating with the binary gauntlet started through wrap with env
// added (gradeRunAs).
func gradeCheatingAs(t *testing.T, gauntlet string, wrap, env []string, game, dir string, flags ...string) *grade.Report {
	t.Helper()
	status, rep, text := gradeRunAs(t, gauntlet, wrap, env, game, append(flags, dir)...)
	if status != 1 {
		t.Errorf("exit %d, want 1", status)
	}
	if m := marks(t, rep); m > 0.05*rep.MaxMarks {
		t.Errorf("the cheat scored %.2f/%.0f, want at most 5%%", m, rep.MaxMarks)
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
	if want := map[bool]string{true: "box", false: "rootless box"}[os.Geteuid() == 0]; rep.Isolation != want {
		t.Errorf("graded with isolation %q, want %q", rep.Isolation, want)
	}
	t.Logf("the cheat scored %s/%.0f (%s)", rep.TotalText(), rep.MaxMarks, rep.Isolation)
	return rep
}

// TestWitnessHoldScoresNothing grades, as root, the hub that opts out through the witness
// (harness/box/sandbox/testdata/hostile/witnesshold.c): it sends the witness, through the door
// its players would inherit, a hello of its own that hands the mock player outside its box
// its own connection and its stdout and stderr, and exits, answering only the usage and
// one hard-coded game (the spec's, which the dealer's renamed-copies case plays). Before
// 2026-12-07 each case it held so was a HARNESS-ERROR, left out of the marks: issue 56
// reported 10.29/42 for dealer2310 and 11.71/40 for St Lucia. Its hello is now refused
// and charged to it (HYGIENE: a verdict that does not depend on the load, not run again).
func TestWitnessHoldScoresNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("whole grades: full mode only")
	}
	t.Parallel()
	if os.Geteuid() != 0 {
		buildtest.NeedBox(t, errors.New("the grader boxes a submission as root here only in the root run: see TestWitnessHoldScoresNothingRootless"))
	}
	gradeWitnessHold(t)
}

// TestWitnessHoldScoresNothingRootless is TestWitnessHoldScoresNothing graded by a grader
// that is not root, in rootless boxes: as root, the test runs again as an unprivileged user.
func TestWitnessHoldScoresNothingRootless(t *testing.T) {
	if testing.Short() {
		t.Skip("whole grades: full mode only")
	}
	if buildtest.AsUnprivileged(t, "^TestWitnessHoldScoresNothingRootless$", "gauntlet/cmd/gauntlet") {
		return
	}
	gradeWitnessHold(t)
}

// gradeWitnessHold grades the witness-holding hub, with players that exit 1, on the whole
// dealer2310 and St Lucia suites.
func gradeWitnessHold(t *testing.T) {
	_, here, _, _ := runtime.Caller(0)
	src, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "harness", "box", "sandbox", "testdata", "hostile", "witnesshold.c"))
	if err != nil {
		t.Fatal(err)
	}
	// The hard-coded game: the spec session's stdout, as a C string.
	ar, err := txtar.ParseFile(filepath.Join(filepath.Dir(here), "..", "testscripts", "dealer2310", "game_renamed_copy.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	hard := ""
	for _, f := range ar.Files {
		if f.Name == "spec.stdout" {
			hard = strconv.Quote(string(f.Data))
		}
	}
	if hard == "" {
		t.Fatal("game_renamed_copy has no spec.stdout")
	}
	for _, g := range []struct {
		game, hub, usage, id, hard string
		players                    []string
	}{
		{"dealer2310", "2310dealer", "2310dealer deck path p1 {p2}", "0", hard, []string{"2310A", "2310B"}},
		{"stlucia", "stlucia", "stlucia rollfile winscore prog1 prog2 [prog3 [prog4]]", "A", `""`, []string{"EAIT", "SCIENCE", "HABS", "HASS", "MABS"}},
	} {
		t.Run(g.game, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "hub.c"), src, 0o644); err != nil {
				t.Fatal(err)
			}
			defs := fmt.Sprintf("#define USAGE %s\n#define PLAYER_ID %q\n#define HARD %s\n", strconv.Quote(g.usage), g.id, g.hard)
			if err := os.WriteFile(filepath.Join(dir, "defs.h"), []byte(defs), 0o644); err != nil {
				t.Fatal(err)
			}
			mk := "all:\n\tcc -include defs.h -o " + g.hub + " hub.c\n"
			for _, p := range g.players {
				mk += "\tprintf '#!/bin/sh\\nexit 1\\n' > " + p + " && chmod 755 " + p + "\n"
			}
			if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte(mk), 0o644); err != nil {
				t.Fatal(err)
			}
			// Each case it holds waits out the 2 s drain, using no CPU: more of them at once.
			rep := gradeCheating(t, g.game, dir, "-j", "6")
			if rep.Build == nil || !rep.Build.OK {
				t.Fatalf("the cheat did not build: %+v", rep.Build)
			}
		})
	}
}

// runner is a dealer2310 submission with no game logic that runs the judge: each of its
// programs looks for an installed gauntlet (or a reference program of its own name) where
// a box may show one (the system's program folders, its PATH, every folder of its
// mountinfo, which names what staff bound into the box) and execs it with argv[0] its own
// name, so that gauntlet plays the program argv[0] names. Until 2026-12-07 it scored
// 42.00/42, as root and rootless, wherever staff had installed gauntlet in a folder the
// boxes showed; the judge's files are now masked in every box (harness/box/sandbox's
// judgefiles.go).
const runner = `#!/bin/bash
me=$(basename "$0")
dirs="/usr/local/bin /usr/bin /bin $(echo "$PATH" | tr : ' ') $(awk '{print $5}' /proc/self/mountinfo)"
for d in $dirs; do
	for f in "$d/$me" "$d"/gauntlet* "$d"/gt-*; do
		[ -f "$f" ] && [ -x "$f" ] && [ -s "$f" ] && [ "$f" != "$0" ] && exec -a "$me" "$f" "$@"
	done
done
exit 1
`

// TestInstalledJudgeRunnerScoresNothing grades the runner as root with gauntlet installed
// three ways at once: as /usr/local/bin/gauntlet (a folder of the test's own bound there in
// a mount namespace of the grade's: nothing is installed on the machine), as a copy under
// another name and a hard link named after the dealer in a folder of GAUNTLET_BOX_BIND,
// and as a copy in a bound folder on the grader's PATH (which the subject's PATH is).
func TestInstalledJudgeRunnerScoresNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("a whole grade: full mode only")
	}
	t.Parallel()
	if os.Geteuid() != 0 {
		buildtest.NeedBox(t, errors.New("the grader boxes a submission as root here only in the root run: see TestInstalledJudgeRunnerScoresNothingRootless"))
	}
	gauntlet := buildtest.Path(t, "gauntlet/cmd/gauntlet")
	usrLocal, bound, onPath := installed(t, gauntlet, true)
	wrap := []string{"unshare", "--mount", "--propagation", "private", "--", "sh", "-c",
		`mount --bind "$0" /usr/local/bin && exec "$@"`, usrLocal}
	gradeCheatWith(t, runner, gauntlet, wrap, judgeEnv(bound, onPath), "dealer2310", "2310A", "2310B", "2310dealer")
}

// TestInstalledJudgeRunnerScoresNothingRootless is the same as a grader that is not root:
// gauntlet in a bound folder, and on PATH (a rootless test cannot bind one on
// /usr/local/bin, which the boxes search the same way).
func TestInstalledJudgeRunnerScoresNothingRootless(t *testing.T) {
	if testing.Short() {
		t.Skip("a whole grade: full mode only")
	}
	if buildtest.AsUnprivileged(t, "^TestInstalledJudgeRunnerScoresNothingRootless$", "gauntlet/cmd/gauntlet") {
		return
	}
	gauntlet := buildtest.Path(t, "gauntlet/cmd/gauntlet")
	_, bound, onPath := installed(t, gauntlet, false)
	gradeCheatWith(t, runner, gauntlet, nil, judgeEnv(bound, onPath), "dealer2310", "2310A", "2310B", "2310dealer")
}

// installed makes three folders that hold gauntlet as staff install it: usrLocal, to be
// bound on /usr/local/bin, with a hard link named gauntlet (with links: a root test; else
// a copy); bound with a copy named gt-tool and the dealer by its name (a hard link, or
// a copy its owner may only run); onPath with a copy named gauntlet-1.0.
func installed(t *testing.T, gauntlet string, links bool) (usrLocal, bound, onPath string) {
	t.Helper()
	top := t.TempDir()
	buildtest.SearchableByOthers(t, top)
	usrLocal, bound, onPath = filepath.Join(top, "usr-local-bin"), filepath.Join(top, "shared-bin"), filepath.Join(top, "on-path")
	for _, d := range []string{usrLocal, bound, onPath} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	install := func(to string, mode os.FileMode) {
		if links && os.Link(gauntlet, to) == nil {
			return
		}
		data, err := os.ReadFile(gauntlet)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, data, mode); err != nil {
			t.Fatal(err)
		}
	}
	install(filepath.Join(usrLocal, "gauntlet"), 0o755)
	install(filepath.Join(bound, "2310dealer"), 0o111)
	links = false
	install(filepath.Join(bound, "gt-tool"), 0o755)
	install(filepath.Join(onPath, "gauntlet-1.0"), 0o755)
	return usrLocal, bound, onPath
}

// judgeEnv is the grader's environment with bound and onPath in GAUNTLET_BOX_BIND, and
// onPath first on its PATH.
func judgeEnv(bound, onPath string) []string {
	return []string{"GAUNTLET_BOX_BIND=" + bound + ":" + onPath, "PATH=" + onPath + ":" + os.Getenv("PATH")}
}

// TestProcSelfExeLinkScoresNothing grades a submission whose Makefile links every program
// to /proc/self/exe, with gauntlet in a folder the boxes show (GAUNTLET_BOX_BIND), as root
// and rootless: a link through /proc is no program (harness/grading/build's resolveAsBox). Until
// 2026-12-07 the grader followed it in its own process, to itself, and the dealer, run as
// gauntlet by its name, earned 23.79/42.
func TestProcSelfExeLinkScoresNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("a whole grade: full mode only")
	}
	t.Parallel()
	if os.Geteuid() != 0 {
		buildtest.NeedBox(t, errors.New("the grader boxes a submission as root here only in the root run: see TestProcSelfExeLinkScoresNothingRootless"))
	}
	gradeProcSelfExeLink(t)
}

// TestProcSelfExeLinkScoresNothingRootless is TestProcSelfExeLinkScoresNothing as a grader
// that is not root.
func TestProcSelfExeLinkScoresNothingRootless(t *testing.T) {
	if testing.Short() {
		t.Skip("a whole grade: full mode only")
	}
	if buildtest.AsUnprivileged(t, "^TestProcSelfExeLinkScoresNothingRootless$", "gauntlet/cmd/gauntlet") {
		return
	}
	gradeProcSelfExeLink(t)
}

// gradeProcSelfExeLink grades the /proc/self/exe links on dealer2310 and checks they
// scored at most 5%.
func gradeProcSelfExeLink(t *testing.T) {
	gauntlet := buildtest.Path(t, "gauntlet/cmd/gauntlet")
	dir := t.TempDir()
	mk := "all:\n\tfor p in 2310A 2310B 2310dealer; do ln -sf /proc/self/exe $$p; done\n"
	if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte(mk), 0o644); err != nil {
		t.Fatal(err)
	}
	gradeCheatingAs(t, gauntlet, nil, []string{"GAUNTLET_BOX_BIND=" + filepath.Dir(gauntlet)}, "dealer2310", dir)
}
