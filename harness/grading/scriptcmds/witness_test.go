package scriptcmds

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"gauntlet/harness/box/cgroup"
	"gauntlet/harness/box/execfile"
	"gauntlet/harness/box/hygiene"
	"gauntlet/harness/box/sandbox"
	"gauntlet/harness/grading/suite"
	"gauntlet/harness/judges/mockplayer"
	"gauntlet/harness/judges/outcome"
	"gauntlet/internal/buildtest"
)

// runWitnessed runs a script whose PATH has the mock player (the gauntlet binary), as a
// grader's has, and returns its result and the folder of its witnessed records.
func runWitnessed(t *testing.T, script string) (suite.Result, string) {
	t.Helper()
	return runWitnessedAfter(t, script, nil)
}

// runWitnessedAfter is runWitnessed with more set-up, after Setup: a grader's (e.g.
// WitnessedProgram).
func runWitnessedAfter(t *testing.T, script string, more func(env *testscript.Env) error) (suite.Result, string) {
	t.Helper()
	return runWitnessedWith(t, script, more, nil)
}

// runWitnessedWith is runWitnessedAfter with more commands for the script (the test's own).
func runWitnessedWith(t *testing.T, script string, more func(env *testscript.Env) error,
	extra map[string]func(ts *testscript.TestScript, neg bool, args []string)) (suite.Result, string) {
	t.Helper()
	cmds := Commands()
	for name, f := range extra {
		cmds[name] = f
	}
	bin := t.TempDir()
	if err := os.Symlink(buildtest.Path(t, "gauntlet/cmd/gauntlet"), filepath.Join(bin, "mockplayer")); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	res := runCase(t, dir, script, testscript.Params{
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", bin+string(os.PathListSeparator)+env.Getenv("PATH"))
			if err := Setup(env); err != nil || more == nil {
				return err
			}
			return more(env)
		},
		Cmds: cmds,
	})
	return res, filepath.Join(dir, WitnessFolder, "script-case")
}

// The program a hub starts for a witnessed mock is a stand-in that ends as the mock ended
// (an exit status, a death by signal); the mock's faults are not in the wrapper the hub can
// read; and the record, outside the script's folder, has what the "hub" (here the script's
// own stdin) sent.
func TestWitnessedMockEndsAsTheMock(t *testing.T) {
	t.Parallel()
	script := `mkplayer seven -as 2310A -fault 'after 2 exit 7'
mkplayer segv -as 2310A -fault 'after 1 signal SEGV'
! grep 'exit 7' $MOCKBIN/seven
run -status 7 -stdin hub.txt $MOCKBIN/seven 2 1
run -status signal:SEGV -stdin hub.txt $MOCKBIN/segv 2 1
noprocs
-- hub.txt --
7;::-Mo1V11V22Mo1Mo1::-
HAP0,1,0,3,0
YT
`
	r, records := runWitnessed(t, script)
	if !r.Passed {
		t.Fatalf("script failed:\n%s", r.Log)
	}
	// What the hub starts is the stand-in program, which carries nothing of the harness.
	bin := filepath.Join(filepath.Dir(filepath.Dir(records)), "script-case", ".bin")
	got, err := os.ReadFile(filepath.Join(bin, "seven"))
	// (with the witness's token, written after the mock's name, and its socket's path)
	token, socket := "", ""
	if _, after, ok := bytes.Cut(got, []byte("\x00seven\x00")); ok {
		fields := strings.SplitN(string(after), "\x00", 3)
		token, socket = fields[0], fields[min(1, len(fields)-1)]
	}
	want, werr := mockplayer.StandInFor("seven", token, socket)
	if err != nil || werr != nil || !bytes.Equal(got, want) || len(token) != 32 || socket != filepath.Join(bin, witnessSocket) {
		t.Errorf("the hub starts %d bytes (%v), not the stand-in program with a token and the socket (%v, %q, %q)", len(got), err, werr, token, socket)
	}
	// Execute-only: the hub can run it, not read the token.
	if st, err := os.Stat(filepath.Join(bin, "seven")); err != nil || st.Mode().Perm() != 0o111 {
		t.Errorf("the stand-in's mode: %v %v, want 0111", st.Mode(), err)
	}
	files, _ := filepath.Glob(filepath.Join(records, "*.json"))
	if len(files) != 2 {
		t.Fatalf("records %v, want two", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"text":"7;::-Mo1V11V22Mo1Mo1::-"`, `"text":"HAP0,1,0,3,0"`, `after 2 exit 7`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the record lacks %s:\n%s", want, b)
		}
	}
	if strings.Contains(string(b), `"text":"YT"`) {
		t.Errorf("the record has a line sent after the mock's exit:\n%s", b)
	}
}

// The stand-in ends as its mock ended even while the harness has not seen the mock end
// (the harness holds every witness session here, as a grader busy with other cases on a
// loaded machine did for over 2 seconds): the mock tells it itself. Until 2026-11-28 the
// verdict came from the harness alone, and a St Lucia hub, which kills the players that
// have not exited 2 seconds after its shutdown, printed "Player A terminated due to signal
// 9" for a mock that had ended at once (TestStLuciaAdequacy under load). Without the fix
// the runs below wait until their timeout, the backstop that makes the test fail rather
// than hang. Once both runs have ended, the script lets the harness go (unhold): the
// witness's end would otherwise wait its 2 seconds for the held sessions.
func TestWitnessedMockEndsWithoutTheHarness(t *testing.T) {
	hold := make(chan struct{})
	heldSessions.Store(&hold)
	var release sync.Once
	unhold := func() {
		release.Do(func() {
			heldSessions.Store(nil)
			close(hold)
		})
	}
	defer unhold()
	script := `mkplayer seven -as 2310A -fault 'after 2 exit 7'
mkplayer segv -as 2310A -fault 'after 1 signal SEGV'
run -timeout 60s -status 7 -stdin hub.txt $MOCKBIN/seven 2 1
run -timeout 60s -status signal:SEGV -stdin hub.txt $MOCKBIN/segv 2 1
unhold
-- hub.txt --
7;::-Mo1V11V22Mo1Mo1::-
HAP0,1,0,3,0
YT
`
	r, records := runWitnessedWith(t, script, nil, map[string]func(*testscript.TestScript, bool, []string){
		"unhold": func(*testscript.TestScript, bool, []string) { unhold() },
	})
	if !r.Passed {
		t.Fatalf("script failed:\n%s", r.Log)
	}
	// The mocks' records are whole: each told its stand-in only once it had written them.
	files, _ := filepath.Glob(filepath.Join(records, "*.json"))
	if len(files) != 2 {
		t.Fatalf("records %v, want two", files)
	}
	for i, want := range []string{"after 2 exit 7", "after 1 signal 11"} {
		if b, _ := os.ReadFile(files[i]); !strings.Contains(string(b), want) {
			t.Errorf("record %s lacks %q:\n%s", files[i], want, b)
		}
	}
}

// When the hub kills its player (the stand-in), the harness kills the mock player: nothing
// of it is left for noprocs to find, though its fault would keep it running for ever. (Its
// streams are all closed by then, the player having ended on its empty stdin: a mock that
// hung in select {} was ended there by the Go runtime, "all goroutines are asleep", status
// 2, most times before the kill came.)
func TestWitnessedMockGoesWithItsStandIn(t *testing.T) {
	t.Parallel()
	script := `mkplayer stayer -as 2310A -fault 'end hang'
run -status signal:KILL -signal KILL -after-stdout '^' $MOCKBIN/stayer 2 1
noprocs
`
	if r, _ := runWitnessed(t, script); !r.Passed {
		t.Fatalf("script failed:\n%s", r.Log)
	}
}

// What a witnessed mock leaves running in a session of its own (a spawn fault's grandchild)
// is gone when the script ends, even when the script failed before its noprocs: the mock
// runs outside any box, and nothing else would kill it (sleeps of 3600 s outlived failed
// cases before 2026-11-28).
//
// The same when the grader made the witness before the script ran (a subject hub's
// reference players, WitnessedProgram), which the script's mkplayer then shares: the case's
// leftovers were killed only by a witness the script made, and sleeps outlived failed mutant
// grades.
func TestWitnessedMocksLeaveNothing(t *testing.T) {
	t.Parallel()
	t.Run("script's witness", func(t *testing.T) {
		t.Parallel()
		testWitnessedMocksLeaveNothing(t, nil)
	})
	t.Run("grader's witness", func(t *testing.T) {
		t.Parallel()
		testWitnessedMocksLeaveNothing(t, func(env *testscript.Env) error {
			_, err := WitnessedProgram(env, "ref", []string{"-as", "2310A"})
			return err
		})
	})
}

func testWitnessedMocksLeaveNothing(t *testing.T, more func(env *testscript.Env) error) {
	script := `run sh -c 'echo $GAUNTLET_CASE'
cp stdout marker.txt
mkplayer odd -as 2310A -fault 'start spawn'
run -status any -timeout 2s -stdin hub.txt $MOCKBIN/odd 2 1
exists no-such-file
noprocs -allow sleep
-- hub.txt --
7;::-Mo1V11V22Mo1Mo1::-
`
	r, records := runWitnessedAfter(t, script, more)
	if r.Passed {
		t.Fatalf("the script passed, want it to fail before its noprocs:\n%s", r.Log)
	}
	marker, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(records)), "script-case", "marker.txt"))
	if err != nil || len(strings.TrimSpace(string(marker))) == 0 {
		t.Fatalf("the case's marker: %q, %v\n%s", marker, err, r.Log)
	}
	want := "GAUNTLET_CASE=" + strings.TrimSpace(string(marker)) + "\x00"
	procs, _ := hygiene.Scan()
	for _, p := range procs {
		env, err := os.ReadFile("/proc/" + strconv.Itoa(p.Pid) + "/environ")
		if err == nil && !p.Zombie() && strings.Contains(string(env), want) && !buildtest.Dying(p.Pid) {
			t.Errorf("pid %d (%s) of the script outlived it", p.Pid, p.Comm)
			syscall.Kill(p.Pid, syscall.SIGKILL)
		}
	}
}

// A hub that floods the witness with never-ending mock players (issue 56: 64 per case, up
// to 489 at once on a grading machine) has at most maxAtOnce of them run at once: the
// stand-ins past the bound are refused (they exit 2), and the run is charged with it, a
// verdict that does not depend on the load (outcome.Held), however the hub ends: unboxed,
// boxed as root and in a rootless box. (The bound is lowered to 4 here, to start few mock
// players; the test is not parallel, as it sets it.)
func TestWitnessFloodIsBoundedAndCharged(t *testing.T) {
	// The hub starts 64 stand-ins at once and ends once 60 of them have: the 4 others run.
	testWitnessFlood(t, "TestWitnessFloodIsBoundedAndCharged", "", "$0")
}

// The same flood through the witness's socket: each stand-in is started by a hub that
// closes every descriptor above 2 before it starts its player (closefds.c), so that it
// finds no door and connects to the socket, and the bound and the charge are the same
// (the connections are the run's, whose door is the only one open).
func TestWitnessSocketFloodIsBoundedAndCharged(t *testing.T) {
	testWitnessFlood(t, "TestWitnessSocketFloodIsBoundedAndCharged", "closefds.c", "$1 $0")
}

// testWitnessFlood is the flood test of the test named, each stand-in started by the
// shell's command player, in which $0 is the stand-in and $1 the hub built from hub (a C
// program of the sandbox's hostile test data, when it is not "").
func testWitnessFlood(t *testing.T, test, hub, player string) {
	defer func(n int) { maxAtOnce = n }(maxAtOnce)
	maxAtOnce = 4
	script := `mkplayer h -as 2310A -fault 'start hang'
run -status 0 -timeout 60s sh -c 'mkfifo ended; exec 3<>ended; for i in $(seq 64); do (` + player + ` 2 1 </dev/null >/dev/null 2>&1; echo >&3) & done; head -n 60 <&3 >/dev/null; exit 0' $MOCKBIN/h $HUB
`
	forEachWitnessBox(t, test, hub, script, func(t *testing.T, r suite.Result, dir string) {
		if r.Passed {
			t.Fatalf("the flood passed:\n%s", r.Log)
		}
		if !strings.Contains(r.Log, "more than 4 mock players at once") || strings.Contains(r.Log, "did not finish within") {
			t.Errorf("the run was not charged with the flood (or its hub did not see 60 stand-ins end):\n%s", r.Log)
		}
		rec, ok, err := outcome.Last(filepath.Join(dir, outcome.File))
		if err != nil || !ok || rec.Kind != outcome.Held {
			t.Errorf("the case's record: %+v %v %v, want %s", rec, ok, err, outcome.Held)
		}
		// At most the bound started: the four the door let in, each in a box of its own,
		// which a loaded machine may not have finished making before the hub ended (the
		// door's close then starts no more).
		if files, _ := filepath.Glob(filepath.Join(dir, WitnessFolder, "*", "*.json")); len(files) > 4 {
			t.Errorf("%d mock players started, want at most 4 (the bound)", len(files))
		}
	})
}

// forEachWitnessBox runs script as a case, with $HUB the C program hub of the sandbox's
// hostile test data built (none when hub is ""), and the mock player program on the PATH,
// unboxed (where the grader is root), boxed (as root; or rootless, where the grader is not
// root) and, as root, again in the test named rerun as an unprivileged user (rootless
// boxes); check judges each case's result and folder.
func forEachWitnessBox(t *testing.T, test, hub, script string, check func(t *testing.T, r suite.Result, dir string)) {
	t.Helper()
	bin := t.TempDir()
	buildtest.SearchableByOthers(t, bin)
	hubPath := ""
	if hub != "" {
		cc := buildtest.NeedCommand(t, "cc", "a C compiler")
		_, here, _, _ := runtime.Caller(0)
		src := filepath.Join(filepath.Dir(here), "..", "..", "box", "sandbox", "testdata", "hostile", hub)
		hubPath = filepath.Join(bin, strings.TrimSuffix(hub, ".c"))
		if out, err := exec.Command(cc, "-o", hubPath, src).CombinedOutput(); err != nil {
			t.Fatalf("cc: %v\n%s", err, out)
		}
		os.Chmod(hubPath, 0o755)
	}
	data, err := os.ReadFile(buildtest.Path(t, "gauntlet/cmd/gauntlet"))
	if err != nil {
		t.Fatal(err)
	}
	if err := execfile.Write(filepath.Join(bin, "mockplayer"), data, 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, boxed bool) {
		r, dir := runHubCase(t, script, bin, hubPath, boxed)
		check(t, r, dir)
	}
	if !sandbox.Rootless() {
		t.Run("unboxed", func(t *testing.T) { run(t, false) })
	}
	t.Run("boxed", func(t *testing.T) {
		needBox(t)
		run(t, true)
	})
	if os.Geteuid() == 0 {
		t.Run("rootless", func(t *testing.T) {
			buildtest.AsUnprivileged(t, "^"+test+"$", "gauntlet/cmd/gauntlet")
		})
	}
}

// A hub that closes every descriptor above 2 in the child before it execs its player (a
// loop of close, or close_range: careful C code, closefds.c), and so closes the witness's
// door, still has its witnessed mock player: the stand-in finds no door and connects to the
// witness's socket in $MOCKBIN, and the mock plays the game to its end, recorded; the case
// passes, unboxed, boxed as root and in a rootless box. Until the socket came back (it went
// on 2026-12-07 with the door) the stand-in exited 2 ("no door to the witness") and every
// case with a witnessed mock failed for a correct hub.
func TestWitnessSocketServesAHubThatClosesItsDescriptors(t *testing.T) {
	t.Parallel()
	if _, err := mockplayer.StandIn(); err != nil {
		t.Skip("no C stand-in: TestStandInWrapperHoldsNoSecret runs the wrapper's stand-in through the socket")
	}
	script := `mkplayer p0 -as 2310A -fault 'after 2 exit 0'
run -status 0 -stdin hub.txt $HUB $MOCKBIN/p0 2 1
-- hub.txt --
7;::-Mo1V11V22Mo1Mo1::-
HAP0,1,0,3,0
YT
`
	forEachWitnessBox(t, "TestWitnessSocketServesAHubThatClosesItsDescriptors", "closefds.c", script, func(t *testing.T, r suite.Result, dir string) {
		if !r.Passed {
			t.Fatalf("the case of a hub that closes its descriptors failed:\n%s", r.Log)
		}
		files, _ := filepath.Glob(filepath.Join(dir, WitnessFolder, "*", "*.json"))
		if len(files) != 1 {
			t.Fatalf("records %q, want one", files)
		}
		b, _ := os.ReadFile(files[0])
		for _, want := range []string{`"text":"7;::-Mo1V11V22Mo1Mo1::-"`, `"text":"HAP0,1,0,3,0"`} {
			if !strings.Contains(string(b), want) {
				t.Errorf("the record lacks %s:\n%s", want, b)
			}
		}
	})
}

// A witnessed mock's relative paths (-record FILE) are where the script was at its
// mkplayer, as the hub's folder was for a mock the hub ran itself.
func TestWitnessedMockRunsWhereItWasMade(t *testing.T) {
	t.Parallel()
	script := `mkdir sub
cd sub
mkplayer rec -as 2310A -fault 'after 1 exit 0' -record rec.json
cd ..
run -stdin hub.txt $MOCKBIN/rec 2 1
exists sub/rec.json
! exists rec.json
-- hub.txt --
7;::-Mo1V11V22Mo1Mo1::-
`
	if r, _ := runWitnessed(t, script); !r.Passed {
		t.Fatalf("script failed:\n%s", r.Log)
	}
}

// The mocks that play a reference player are witnessed, in any spelling of the flag; a
// relay is not, and neither is a flag's value that reads "as".
func TestWitnessedFlags(t *testing.T) {
	for _, c := range []struct {
		flags []string
		want  bool
	}{
		{[]string{"-as", "2310A", "-fault", "after 1 exit 0"}, true},
		{[]string{"--as=EAIT"}, true},
		{[]string{"-relay", "/bin/p", "-record", "p.rec"}, false},
		{[]string{"-as", "2310A", "-relay", "/bin/p"}, false},
		{[]string{"-record", "as", "-faults", "relay"}, false},
		{[]string{"-nohello", "-as=stratego-random"}, true},
	} {
		if got := witnessed(c.flags); got != c.want {
			t.Errorf("witnessed(%q) = %v, want %v", c.flags, got, c.want)
		}
	}
}

// The witness counts its mock players' work for the grader's activity watch: a mock that
// computes keeps the case busy; one that waits lets it be quiet; with none running there is
// nothing to say.
func TestWitnessQuiet(t *testing.T) {
	t.Parallel()
	w := &witness{sessions: map[*session]bool{}}
	if _, running := w.quiet(); running {
		t.Fatal("no mock player, yet one runs")
	}
	start := func(script string) *session {
		cmd := exec.Command("sh", "-c", script)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return &session{pid: cmd.Process.Pid, kill: func() {}}
	}
	busy := start("while :; do :; done")
	w.sessions[busy] = true
	for range 2 {
		if q, running := w.quiet(); !running || q != 0 {
			t.Errorf("a computing mock: quiet %v, running %v; want 0, running", q, running)
		}
	}
	delete(w.sessions, busy)
	sleeper := start("exec sleep 60")
	// Once it sleeps (not while it still starts): the first look sees the CPU change from
	// the busy one's, the second starts the quiet, the third measures it.
	for {
		p, err := hygiene.ReadProc(sleeper.pid)
		if err != nil {
			t.Fatal(err)
		}
		if p.Comm == "sleep" && p.State == 'S' {
			break
		}
		runtime.Gosched()
	}
	w.sessions[sleeper] = true
	w.quiet()
	w.quiet()
	if q, running := w.quiet(); !running || q <= 0 {
		t.Errorf("a waiting mock: quiet %v, running %v; want quiet, running", q, running)
	}
}

// A relay of a witnessed mock (a reference player the grader hands a subject's hub, which
// a case relays to record what the hub sent it) runs witnessed too: the hub starts only a
// stand-in, and the relay's record is written outside the hub's reach. So does a relay of
// anything else (a program of the subject's folder), whose program the stand-in starts
// where the hub runs: until 2026-11-28 that relay was a wrapper of the harness's own
// program, run where the hub starts it.
func TestRelayOfAWitnessedMockIsWitnessed(t *testing.T) {
	t.Parallel()
	script := `chmod 755 echo.sh
mkplayer r -relay $REF -record r.rec
mkplayer e -relay ./echo.sh -record e.rec
! grep relay $MOCKBIN/r
! grep relay $MOCKBIN/e
! exists r.rec
run -status 6 -stdin hub.txt $MOCKBIN/r 2 1
stdout '^\^'
grep '"text":"7;::-Mo1V11V22Mo1Mo1::-"' r.rec
run -stdin hub.txt $MOCKBIN/e 2 1
stdout '^7;::-Mo1V11V22Mo1Mo1::-$'
grep '"text":";::-Mo1V11V22Mo1Mo1::-"' e.rec
-- hub.txt --
7;::-Mo1V11V22Mo1Mo1::-
-- echo.sh --
#!/bin/sh
cat
`
	r, records := runWitnessedAfter(t, script, func(env *testscript.Env) error {
		ref, err := WitnessedProgram(env, "ref", []string{"-as", "2310A"})
		env.Setenv("REF", ref)
		return err
	})
	if !r.Passed {
		t.Fatalf("script failed:\n%s", r.Log)
	}
	files, _ := filepath.Glob(filepath.Join(records, "*.json"))
	if len(files) != 3 {
		t.Errorf("witnessed records %v, want the relays' and the reference player's", files)
	}
}

// A relay of a program of the subject's folder, started by a hub in a graded case's box,
// runs witnessed: what the hub starts is the stand-in, which starts the program in the box
// (the program is the subject's), and the relay runs outside it. No process of the hub's box
// is the harness's program (until 2026-11-28 the relay was, execute-only and undumpable:
// its exe unreadable). The stand-in, run from an execute-only file (its token), is
// undumpable and so hidden from the hub's /proc, though the hub can still signal it. The
// relay's faults and record work as before, the record being the
// harness's, which the hub cannot forge (it writes a file of that name in its folder
// without starting the player).
func TestBoxedRelayRunsOnlyItsProgramInTheBox(t *testing.T) {
	t.Parallel()
	needBox(t)
	if os.Geteuid() == 0 {
		// Again by a grader that is not root, in a rootless box.
		t.Run("rootless", func(t *testing.T) {
			buildtest.AsUnprivileged(t, "^TestBoxedRelayRunsOnlyItsProgramInTheBox$", "gauntlet/cmd/gauntlet")
		})
	}
	// The mock player where a boxed subject could run it: the relay as it was, a wrapper of
	// it, then found it (this test fails on what the box holds, not on a missing program).
	bin := t.TempDir()
	buildtest.SearchableByOthers(t, bin)
	data, err := os.ReadFile(buildtest.Path(t, "gauntlet/cmd/gauntlet"))
	if err != nil {
		t.Fatal(err)
	}
	if err := execfile.Write(filepath.Join(bin, "mockplayer"), data, 0o755); err != nil {
		t.Fatal(err)
	}
	script := `chmod 755 prog.sh
mkplayer a -relay ./prog.sh -record a.rec
mkplayer g -relay ./prog.sh -fault 'reply 1 line "GARBAGE"'
mkplayer f -relay ./prog.sh -record f.rec
run sh hub.sh $MOCKBIN/a prog.sh
stdout '^!$'
stdout '^reply: echo ping$'
stdout '^hidden: stand-in$'
stdout '^exe: /.*sh$'
! stdout 'unreadable|mockplayer'
transcript -who 'player A' a.rec
cmp stdout want.txt
run sh hub.sh $MOCKBIN/g prog.sh
stdout '^reply: GARBAGE$'
run sh -c 'echo forged > f.rec'
! exists f.rec
-- prog.sh --
#!/bin/sh
printf '!'
read -r line
echo "echo $line"
read -r line
exit 0
-- hub.sh --
mkfifo to from
"$1" A <to >from &
standin=$!
exec 3>to 4<from
dd bs=1 count=1 <&4 2>/dev/null
echo
echo ping >&3
read -r reply <&4
echo "reply: $reply"
for p in $(seq 2 100); do
	kill -0 $p 2>/dev/null || continue
	d=/proc/$p
	if exe=$(readlink "$d/exe"); then
		echo "exe: $exe"
	elif [ -e "$d" ]; then
		echo "unreadable: $p $(cat "$d/comm")"
	elif [ $p = $standin ]; then
		echo "hidden: stand-in"
	else
		echo "hidden: $p"
	fi
done
echo forged > a.rec
exec 3>&-
wait
-- want.txt --
player A -> hub | ! [no newline]
hub -> player A | ping
player A -> hub | echo ping
`
	res := runCase(t, boxedCaseDir(t), script, testscript.Params{
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", bin+string(os.PathListSeparator)+env.Getenv("PATH"))
			return Settings{SandboxUser: true, BoxKeep: []string{bin}}.Setup(env)
		},
	})
	if !res.Passed {
		t.Fatalf("the case failed:\n%+v", res)
	}
}

// The witness gives a relay whose program the stand-in starts its flags without -relay, in
// any spelling, and only that flag (a value that reads "-relay" after "--" is an argument).
func TestWithoutFlag(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"-relay", "./p", "-record", "a.rec"}, []string{"-record", "a.rec"}},
		{[]string{"--relay=./p", "-fault", "reply 1 drop"}, []string{"-fault", "reply 1 drop"}},
		{[]string{"-record", "relay", "--relay", "p", "--", "-relay", "x"}, []string{"-record", "relay", "--", "-relay", "x"}},
		{[]string{"-relayed-fds", "4,5,6"}, []string{"-relayed-fds", "4,5,6"}},
	} {
		if got := withoutFlag(c.in, "relay"); !slices.Equal(got, c.want) {
			t.Errorf("withoutFlag(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestWitnessRecordsOncePerConversation: a relay whose program is itself a witnessed mock
// (started by the relay, or where the hub runs with its pipes handed over) records the
// same lines as that mock; only the outer record, the hub's side, is returned (issue 57:
// every line of a relayed player's conversation was shown twice).
func TestWitnessRecordsOncePerConversation(t *testing.T) {
	top := t.TempDir()
	dir := filepath.Join(top, WitnessFolder, "script-case")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	records := map[string]string{
		"001": "in 15:100\nparent 50\nmock 60\n",                // a relay started by the hub
		"002": "in 15:101\nparent 60\nmock 61\n",                // the mock it relays to, which it started
		"003": "in 15:102\nparent 50\nrelays 15:200\nmock 62\n", // a relay of a program started where the hub runs
		"004": "in 15:200\nparent 70\nmock 63\n",                // that program: a witnessed mock too
		"005": "in 15:103\nparent 50\nmock 64\n",                // a mock player of its own
		"006": "",                                               // no link: kept
	}
	for name, link := range records {
		if err := os.WriteFile(filepath.Join(dir, name+".json"), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if link != "" {
			if err := os.WriteFile(filepath.Join(dir, name+linkSuffix), []byte(link), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	var got []string
	for _, f := range WitnessRecords(top) {
		got = append(got, strings.TrimSuffix(filepath.Base(f), ".json"))
	}
	if strings.Join(got, " ") != "001 003 005 006" {
		t.Errorf("records %v, want 001 003 005 006", got)
	}
}

// The witness runs a mock player only for a hello that comes from one of its stand-ins,
// through the door of the run, on streams a player could have: a hello without the
// witness's token (a hub that sends one through the door itself) is refused, and so is one
// whose stdin and stdout are one pipe (a mock, outside the box, that would wait on itself),
// and a message through the door that is not a stand-in's; each is charged to the run whose
// door it came through. Before 2026-12-07 a hub had a mock hold its own output so, and
// every case it did not mean to answer became a HARNESS-ERROR, left out of its marks
// (10.29/42 for a hub with no game logic).
func TestWitnessRefusesForgedHellos(t *testing.T) {
	t.Parallel()
	w, _ := witnessOfP(t)
	// hello sends, through a new door, a hello for p with token and the three descriptors,
	// and returns what the witness answered before it closed the connection (a verdict, or
	// nothing) and what the door refused.
	hello := func(token string, fds ...int) (string, []string) {
		t.Helper()
		d, err := (&witnessHolder{w: w}).openDoor()
		if err != nil {
			t.Fatal(err)
		}
		defer d.close()
		pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		fd := pair[0]
		defer syscall.Close(fd)
		msg := []byte(`{"name":"p","token":"` + token + `","args":["2","0"]}`)
		msg = append([]byte{0, 0, byte(len(msg) >> 8), byte(len(msg))}, msg...)
		if err := syscall.Sendmsg(fd, msg, syscall.UnixRights(fds...), nil, 0); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Sendmsg(int(d.wd.BoxEnd().Fd()), []byte("connect\n"), syscall.UnixRights(pair[1]), nil, 0); err != nil {
			t.Fatal(err)
		}
		syscall.Close(pair[1])
		// A backstop, not a measure: a witness that neither answers nor closes (a mock
		// started on a refused hello waits for its input for ever) fails the test.
		syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &syscall.Timeval{Sec: 60})
		var got []byte
		b := make([]byte, 64)
		for {
			n, err := syscall.Read(fd, b)
			if err == syscall.EINTR {
				continue // (the runtime's preemption signal, on a loaded machine)
			}
			if err == syscall.EAGAIN {
				return string(got) + "(still open)", d.refusals()
			}
			if n <= 0 || err != nil {
				return string(got), d.refusals()
			}
			got = append(got, b[:n]...)
		}
	}
	in, out, errw, inW := helloStreams(t)
	if got, refused := hello("forged", in, out, errw); got != "" || len(refused) != 1 {
		t.Errorf("a hello without the token: the witness answered %q, refused %q", got, refused)
	}
	if got, refused := hello(strings.Repeat("0", len(w.token)), in, out, errw); got != "" || len(refused) != 1 {
		t.Errorf("a hello with another token: the witness answered %q, refused %q", got, refused)
	}
	if got, refused := hello(w.token, in, int(inW.Fd()), errw); got != "" || len(refused) != 1 {
		t.Errorf("a hello whose stdin and stdout are one pipe: the witness answered %q, refused %q", got, refused)
	}
	// A knock with no connection, through a door of its own.
	d, err := (&witnessHolder{w: w}).openDoor()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.wd.BoxEnd().Write([]byte("connect\n")); err != nil {
		t.Fatal(err)
	}
	for len(d.refusals()) == 0 {
		runtime.Gosched()
	}
	d.close()
	w.mu.Lock()
	started := w.started
	w.mu.Unlock()
	if started != 0 {
		t.Errorf("%d mock players started for refused hellos", started)
	}
	// A stand-in's hello (its token, a player's streams) starts the mock, which ends at
	// the end of its stdin; nothing is refused.
	inW.Close()
	if got, refused := hello(w.token, in, out, errw); !strings.HasPrefix(got, "exit ") || len(refused) != 0 {
		t.Errorf("a stand-in's hello: the witness answered %q, refused %q (its failures: %q); want the mock's end", got, refused, w.ownFailures())
	}
}

// runHubCase runs script in a case folder of its own, with $HUB the program hub and bin
// (where the mock player is) first on the PATH: boxed (a sandbox user, bin kept in the
// box) or not. It returns the result and the case's folder.
func runHubCase(t *testing.T, script, bin, hub string, boxed bool) (suite.Result, string) {
	t.Helper()
	dir := t.TempDir()
	if boxed {
		dir = boxedCaseDir(t)
	}
	return runCase(t, dir, script, testscript.Params{
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", bin+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("HUB", hub)
			if boxed {
				return Settings{SandboxUser: true, BoxKeep: []string{bin}}.Setup(env)
			}
			return Setup(env)
		},
	}), dir
}

// witnessOfP is a witness of the test's own, with the mock player p (2310A) set up, for a
// test that speaks to it as a stand-in would, and the folder of its stand-ins; the test
// skips where no C stand-in, and so no token, can be built.
func witnessOfP(t *testing.T) (*witness, string) {
	t.Helper()
	if _, err := mockplayer.StandIn(); err != nil {
		t.Skip("no C compiler: the witness has no token (TestWitnessWithoutATokenGivesNoMore)")
	}
	work := filepath.Join(t.TempDir(), "script-case")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	mock := filepath.Join(bin, "mockplayer")
	if err := os.Symlink(buildtest.Path(t, "gauntlet/cmd/gauntlet"), mock); err != nil {
		t.Fatal(err)
	}
	w, err := newWitness(work, bin, mock, os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.close)
	w.add("p", work, []string{"-as", "2310A"}, "")
	return w, bin
}

// helloStreams are the three streams a test's hello hands the witness: the read end of a
// pipe as stdin (its write end returned, for the test to close), the write end of another
// as stdout, and /dev/null as stderr, all closed when the test ends.
func helloStreams(t *testing.T) (in, out, errw int, stdin *os.File) {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, f := range []*os.File{inR, inW, outR, outW, null} {
			f.Close()
		}
	})
	return int(inR.Fd()), int(outW.Fd()), int(null.Fd()), inW
}

// A connection to the witness's socket (the fallback of a stand-in whose hub closed the
// door) is judged as one through a door: a hello without the witness's token is refused,
// and the run whose door opened last of those still open is charged with it, not an
// earlier one; with no door open (no run of the script running) a connection is closed
// and nobody is charged; and a stand-in's hello there starts its mock, for the run whose
// door is open.
func TestWitnessSocketRefusesForgedHellos(t *testing.T) {
	t.Parallel()
	w, bin := witnessOfP(t)
	if st, err := os.Stat(filepath.Join(bin, witnessSocket)); err != nil || st.Mode().Type() != os.ModeSocket || st.Mode().Perm() != 0o666 {
		t.Fatalf("the witness's socket: %v %v, want a socket anyone may connect to", st, err)
	}
	// hello connects to the socket, sends a hello for p with token and the three
	// descriptors, and returns what the witness answered before it closed the connection.
	hello := func(token string, fds ...int) string {
		t.Helper()
		fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer syscall.Close(fd)
		if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: filepath.Join(bin, witnessSocket)}); err != nil {
			t.Fatal(err)
		}
		msg := []byte(`{"name":"p","token":"` + token + `","args":["2","0"]}`)
		msg = append([]byte{0, 0, byte(len(msg) >> 8), byte(len(msg))}, msg...)
		if err := syscall.Sendmsg(fd, msg, syscall.UnixRights(fds...), nil, syscall.MSG_NOSIGNAL); err != nil {
			return "(refused before the hello)"
		}
		// A backstop, not a measure (see TestWitnessRefusesForgedHellos).
		syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &syscall.Timeval{Sec: 60})
		var got []byte
		b := make([]byte, 64)
		for {
			n, err := syscall.Read(fd, b)
			if err == syscall.EINTR {
				continue
			}
			if err == syscall.EAGAIN {
				return string(got) + "(still open)"
			}
			if n <= 0 || err != nil {
				return string(got)
			}
			got = append(got, b[:n]...)
		}
	}
	in, out, errw, inW := helloStreams(t)
	h := &witnessHolder{w: w}
	earlier, err := h.openDoor()
	if err != nil {
		t.Fatal(err)
	}
	later, err := h.openDoor()
	if err != nil {
		t.Fatal(err)
	}
	if got := hello("forged", in, out, errw); got != "" {
		t.Errorf("a hello without the token through the socket: the witness answered %q", got)
	}
	want := []string{"a hello without the witness's token: not a stand-in's"}
	if got := later.refusals(); !slices.Equal(got, want) {
		t.Errorf("the run whose door opened last was charged with %q, want %q", got, want)
	}
	if got := earlier.refusals(); len(got) != 0 {
		t.Errorf("an earlier run was charged with %q", got)
	}
	later.close()
	earlier.close()
	// No run's door open: the connection is closed, whatever it says, and nobody charged.
	if got := hello(w.token, in, out, errw); got != "" && got != "(refused before the hello)" {
		t.Errorf("with no door open: the witness answered %q", got)
	}
	if got := append(earlier.refusals(), later.refusals()...); !slices.Equal(got, want) {
		t.Errorf("with no door open, the runs were charged with %q", got)
	}
	w.mu.Lock()
	started := w.started
	w.mu.Unlock()
	if started != 0 {
		t.Errorf("%d mock players started for refused connections", started)
	}
	// A stand-in's hello through the socket starts its mock (which ends at the end of its
	// stdin), for the run whose door is open; nothing is refused.
	inW.Close()
	d, err := h.openDoor()
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	if got := hello(w.token, in, out, errw); !strings.HasPrefix(got, "exit ") || len(d.refusals()) != 0 {
		t.Errorf("a stand-in's hello through the socket: the witness answered %q, refused %q (its failures: %q); want the mock's end", got, d.refusals(), w.ownFailures())
	}
}

// The witness hold of issue 56, through the door: a hub with no game logic
// (harness/box/sandbox/testdata/hostile/witnesshold.c) sends the witness, through the door its
// players would inherit, a hello of its own carrying its end of the connection and its own
// stdout and stderr, and exits 0. The hello has no token: the witness refuses it, and the
// run is charged with it (outcome.Held: HYGIENE, never a HARNESS-ERROR), although the hub
// exited as the case wants. Unboxed, boxed as root, and in a rootless box. Until 2026-12-07
// the hub found the witness's socket beside its player and had the mock hold its output
// (a HARNESS-ERROR then, the subject's "held" since); there was no door, and a hub that
// finds no witness prints its hard-coded game and passes this case.
func TestWitnessHoldIsCharged(t *testing.T) {
	t.Parallel()
	cc := buildtest.NeedCommand(t, "cc", "a C compiler")
	if _, err := mockplayer.StandIn(); err != nil {
		t.Skip("no C stand-in: the witness has no token")
	}
	_, here, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(here), "..", "..", "box", "sandbox", "testdata", "hostile", "witnesshold.c")
	bin := t.TempDir()
	buildtest.SearchableByOthers(t, bin)
	hub := filepath.Join(bin, "hub")
	if out, err := exec.Command(cc, "-o", hub, src).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	os.Chmod(hub, 0o755)
	data, err := os.ReadFile(buildtest.Path(t, "gauntlet/cmd/gauntlet"))
	if err != nil {
		t.Fatal(err)
	}
	if err := execfile.Write(filepath.Join(bin, "mockplayer"), data, 0o755); err != nil {
		t.Fatal(err)
	}
	script := `mkplayer p0 -as 2310A
run -status 0 $HUB d p $MOCKBIN/p0
`
	check := func(t *testing.T, boxed bool) {
		res, dir := runHubCase(t, script, bin, hub, boxed)
		if res.Passed || !strings.Contains(res.Log, "asked the harness's witness for what no stand-in asks: a hello without the witness's token") {
			t.Errorf("the witness hold was not charged to the hub:\n%s", res.Log)
		}
		rec, ok, err := outcome.Last(filepath.Join(dir, outcome.File))
		if err != nil || !ok || rec.Kind != outcome.Held {
			t.Errorf("the case's record: %+v %v %v, want %s", rec, ok, err, outcome.Held)
		}
		if files, _ := filepath.Glob(filepath.Join(dir, WitnessFolder, "*", "*.json")); len(files) != 0 {
			t.Errorf("mock players started for the hub's own hello: %q", files)
		}
	}
	if !sandbox.Rootless() {
		t.Run("unboxed", func(t *testing.T) { check(t, false) })
	}
	t.Run("boxed", func(t *testing.T) {
		needBox(t)
		check(t, true)
	})
	if os.Geteuid() == 0 {
		t.Run("rootless", func(t *testing.T) {
			buildtest.AsUnprivileged(t, "^TestWitnessHoldIsCharged$", "gauntlet/cmd/gauntlet")
		})
	}
}

// Where no C compiler builds the stand-in, its wrapper (a script, which the hub can read)
// holds no secret a hub could forge a stand-in's hello with: it names the mock player's
// program and the mock, and the stand-in reaches the witness through the door it inherits
// all the same. Until 2026-12-07 the wrapper showed the witness's socket and token. (The
// test runs again without a compiler: CC names none.)
func TestStandInWrapperHoldsNoSecret(t *testing.T) {
	if os.Getenv("CC") != "/nonexistent/cc" {
		t.Parallel()
		cmd := exec.Command(os.Args[0], "-test.run=^TestStandInWrapperHoldsNoSecret$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "CC=/nonexistent/cc")
		if out, err := cmd.CombinedOutput(); err != nil || !bytes.Contains(out, []byte("--- PASS: TestStandInWrapperHoldsNoSecret")) {
			t.Fatalf("without a C compiler: %v\n%s", err, out)
		}
		return
	}
	if _, err := mockplayer.StandIn(); err == nil {
		t.Fatal("the stand-in was built with CC=/nonexistent/cc")
	}
	script := `mkplayer seven -as 2310A -fault 'after 2 exit 7'
! grep '(-token|-witness [^-]|[0-9a-f]{32})' $MOCKBIN/seven
grep ' -witness -name ''seven'' -- "\$@"' $MOCKBIN/seven
run -status 7 -stdin hub.txt $MOCKBIN/seven 2 1
-- hub.txt --
7;::-Mo1V11V22Mo1Mo1::-
HAP0,1,0,3,0
YT
`
	// The wrapper runs the mock player's published file, as a grader's does.
	bin := t.TempDir()
	mock := filepath.Join(bin, "mockplayer")
	if err := os.Symlink(buildtest.Path(t, "gauntlet/cmd/gauntlet"), mock); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r := runCase(t, dir, script, testscript.Params{Setup: Settings{MockPlayer: mock}.Setup})
	records := filepath.Join(dir, WitnessFolder, "script-case")
	if !r.Passed {
		t.Fatalf("script failed:\n%s", r.Log)
	}
	if files, _ := filepath.Glob(filepath.Join(records, "*.json")); len(files) != 1 {
		t.Errorf("records %v, want one", files)
	}
}

// Where the case has cgroup totals, each mock player joins, as soon as it starts, a cgroup
// of the mocks' own, whose totals bound their memory and tasks (mockLimits), not the
// case's, which are the subject's alone; the group goes with the witness. And it runs in
// a box of its own, as a judge does.
func TestWitnessedMocksHaveACgroupOfTheirOwn(t *testing.T) {
	t.Parallel()
	buildtest.NeedBox(t, cgroup.Problem())
	w, bin := witnessOfP(t)
	caseGroup, err := cgroup.New("witness-test-case", cgroup.Limits{Memory: 256 << 20, Processes: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer caseGroup.Remove()
	// A judge's box holds the case's folder and the programs.
	w.box = &caseBox{group: caseGroup, judgeKeep: []string{filepath.Dir(w.dirs["p"]), bin, filepath.Dir(buildtest.Path(t, "gauntlet/cmd/gauntlet"))}}
	d, err := (&witnessHolder{w: w}).openDoor()
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inR.Close()
	defer inW.Close()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(pair[0])
	msg := []byte(`{"name":"p","token":"` + w.token + `","args":["2","0"]}`)
	msg = append([]byte{0, 0, byte(len(msg) >> 8), byte(len(msg))}, msg...)
	if err := syscall.Sendmsg(pair[0], msg, syscall.UnixRights(int(inR.Fd()), int(null.Fd()), int(null.Fd())), nil, 0); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Sendmsg(int(d.wd.BoxEnd().Fd()), []byte("connect\n"), syscall.UnixRights(pair[1]), nil, 0); err != nil {
		t.Fatal(err)
	}
	syscall.Close(pair[1])
	// The mock waits for its first line: it runs until then (its start is not timed).
	pid := 0
	for pid == 0 {
		w.mu.Lock()
		for s := range w.sessions {
			pid = s.pid
		}
		group := w.group
		w.mu.Unlock()
		if pid == 0 {
			if f := w.ownFailures(); len(f) > 0 {
				t.Fatalf("the mock player did not start: %q", f)
			}
			runtime.Gosched()
			continue
		}
		if group == nil {
			t.Fatal("the mock player started, with no cgroup of the mocks'")
		}
	}
	member := func(procFiles []string) bool {
		for _, f := range procFiles {
			b, _ := os.ReadFile(f)
			if !slices.Contains(strings.Fields(string(b)), strconv.Itoa(pid)) {
				return false
			}
		}
		return true
	}
	w.mu.Lock()
	group := w.group
	w.mu.Unlock()
	if !member(group.ProcFiles()) || member(caseGroup.ProcFiles()) {
		t.Errorf("the mock player (pid %d) is not in the mocks' group alone", pid)
	}
	// And in a box of its own, as a judge's: not in the grader's mount, PID or network
	// namespaces.
	for _, ns := range []string{"mnt", "pid", "net"} {
		mine, err1 := os.Readlink("/proc/self/ns/" + ns)
		its, err2 := os.Readlink("/proc/" + strconv.Itoa(pid) + "/ns/" + ns)
		if err1 != nil || err2 != nil || mine == its {
			t.Errorf("the mock player's %s namespace: %q (%v), the grader's %q (%v); want one of its own", ns, its, err2, mine, err1)
		}
	}
	limit := ""
	for _, f := range group.ProcFiles() {
		for _, name := range []string{"memory.max", "memory.limit_in_bytes"} {
			if b, err := os.ReadFile(filepath.Join(filepath.Dir(f), name)); err == nil {
				limit = strings.TrimSpace(string(b))
			}
		}
	}
	if limit != strconv.FormatInt(mockLimits.Memory, 10) {
		t.Errorf("the mocks' memory total: %q, want %d", limit, mockLimits.Memory)
	}
	// The group goes with the witness (its mock killed first).
	dir := filepath.Dir(group.ProcFiles()[0])
	w.close()
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("the mocks' group %s outlived the witness", dir)
	}
}

// A script's mock players share one box, the launcher's, made with the first of them: its
// PID namespace is theirs, not the grader's, and they run in its process (goroutines, not
// processes of their own). Each is killed alone, by its id, its end told by the launcher;
// a kill after its end, or of an id never started, does nothing.
func TestMockPlayersShareTheLaunchersBox(t *testing.T) {
	t.Parallel()
	needBox(t)
	w, bin := witnessOfP(t)
	w.box = &caseBox{judgeKeep: []string{filepath.Dir(w.work), bin, filepath.Dir(buildtest.Path(t, "gauntlet/cmd/gauntlet"))}}
	l, err := w.launcherFor()
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := w.launcherFor(); again != l {
		t.Fatal("a second launcher for the script")
	}
	var launches []*launch
	var hubEnds []*os.File
	for range 3 {
		// A mock player that waits for its hub's first line, which never comes.
		r, wr, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer wr.Close()
		out, hubEnd, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		asked, err := l.start([]string{"-as", "2310A", "--", "2", "0"}, w.work, w.env, []int{0, 1, 2}, []*os.File{r, hubEnd, null})
		r.Close()
		hubEnd.Close()
		null.Close()
		if err != nil {
			t.Fatal(err)
		}
		if st := <-asked.started; st.err != nil {
			t.Fatal(st.err)
		}
		launches, hubEnds = append(launches, asked), append(hubEnds, out)
	}
	// The player's handshake, from each mock: every one of them plays.
	for i, out := range hubEnds {
		b := make([]byte, 1)
		if _, err := io.ReadFull(out, b); err != nil || b[0] != '^' {
			t.Fatalf("mock %d: handshake %q, %v; want \"^\"", i, b, err)
		}
	}
	pid := l.pid()
	ns := func(pid int) string {
		link, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/ns/pid")
		if err != nil {
			t.Fatalf("pid %d: %v", pid, err)
		}
		return link
	}
	if mine, _ := os.Readlink("/proc/self/ns/pid"); pid == 0 || ns(pid) == mine {
		t.Errorf("the launcher (pid %d) runs in the grader's PID namespace %s, want one of its own", pid, mine)
	}
	l.kill(launches[1].id)
	if end := <-launches[1].ended; end != [2]int{0, int(syscall.SIGKILL)} {
		t.Errorf("the mock player killed ended as %v, want killed by SIGKILL", end)
	}
	// Its end closed its output: the hub reads the end of the file.
	if n, err := hubEnds[1].Read(make([]byte, 16)); err != io.EOF {
		t.Errorf("the killed mock's output: %d bytes, %v; want the end of the file", n, err)
	}
	l.kill(launches[1].id) // again: nothing
	l.kill(1000)           // never started: nothing
	l.kill(launches[2].id)
	<-launches[2].ended
	select {
	case end := <-launches[0].ended:
		t.Errorf("the other mock player ended too: %v", end)
	case <-time.After(200 * time.Millisecond):
	}
}

// The launcher's process holds every mock player of its script, so its limits are a
// program's for as many as may run at once: each of them had a process of its own.
func TestLauncherLimitsHoldEveryMockPlayer(t *testing.T) {
	w := &witness{limits: sandbox.Limits{CPU: 3 * time.Second, OpenFiles: 100}}
	lim := w.mockConfig().Limits
	if want := 3 * time.Second * time.Duration(maxAtOnce); lim.CPU != want {
		t.Errorf("the launcher's CPU: %v, want %v", lim.CPU, want)
	}
	if want := 100 * maxAtOnce; lim.OpenFiles != want {
		t.Errorf("the launcher's descriptors: %d, want %d", lim.OpenFiles, want)
	}
	if d := sandbox.DefaultLimits(); (&witness{}).mockConfig().Limits.CPU != d.CPU*time.Duration(maxAtOnce) {
		t.Errorf("without the case's limits: the launcher's CPU %v, want the default's times %d", (&witness{}).mockConfig().Limits.CPU, maxAtOnce)
	}
}
