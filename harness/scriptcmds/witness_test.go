package scriptcmds

import (
	"bytes"
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

	"github.com/rogpeppe/go-internal/testscript"

	"gauntlet/harness/buildtest"
	"gauntlet/harness/execfile"
	"gauntlet/harness/hygiene"
	"gauntlet/harness/mockplayer"
	"gauntlet/harness/suite"
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
	// (with the witness's token, written after the mock's name)
	token := ""
	if _, after, ok := bytes.Cut(got, []byte(filepath.Join(bin, ".witness")+"\x00seven\x00")); ok {
		token, _, _ = strings.Cut(string(after), "\x00")
	}
	want, werr := mockplayer.StandInFor(filepath.Join(bin, ".witness"), "seven", token)
	if err != nil || werr != nil || !bytes.Equal(got, want) || len(token) != 32 {
		t.Errorf("the hub starts %d bytes (%v), not the stand-in program with a token (%v, %q)", len(got), err, werr, token)
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

// A hub that opens connections to the witness and never says which mock it stands for
// holds at most maxPending of them: the next is closed at once.
func TestWitnessBoundsSilentConnections(t *testing.T) {
	t.Parallel()
	ln, err := mockplayer.ListenWitness(filepath.Join(t.TempDir(), witnessSocket))
	if err != nil {
		t.Fatal(err)
	}
	w := &witness{ln: ln, flags: map[string][]string{}, pending: make(chan struct{}, maxPending)}
	go w.serve()
	defer w.close()
	dial := func() int {
		fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: ln.Path()}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Close(fd) })
		return fd
	}
	first := dial()
	for range maxPending - 1 {
		dial()
	}
	fd := dial()
	// The harness closes it, while the first is still awaited (for helloWithin): without
	// the bound, it would have been awaited too, and closed only after the first.
	var b [1]byte
	if n, err := syscall.Read(fd, b[:]); n != 0 || err != nil {
		t.Errorf("the connection past the bound: read %d, %v; want it closed", n, err)
	}
	syscall.SetNonblock(first, true)
	if n, err := syscall.Read(first, b[:]); err != syscall.EAGAIN {
		t.Errorf("the first silent connection: read %d, %v; want it still open, awaited", n, err)
	}
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
		return &session{cmd: cmd}
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
		p, err := hygiene.ReadProc(sleeper.cmd.Process.Pid)
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
// on streams a player could have: a hello without the witness's token (a hub that
// connects to the socket itself) is refused, and so is one whose stdin is a connection to
// the witness or whose stdin and stdout are one pipe (a mock, outside the box, that would
// wait on itself for ever, holding what else it was handed). Before 2026-12-07 a hub had a
// mock hold its own output so, and every case it did not mean to answer became a
// HARNESS-ERROR, left out of its marks (10.29/42 for a hub with no game logic).
func TestWitnessRefusesForgedHellos(t *testing.T) {
	t.Parallel()
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
	defer w.close()
	w.add("p", work, []string{"-as", "2310A"}, "")
	// hello sends a hello for p with token and the three descriptors, and returns what the
	// witness answered before it closed the connection (a verdict, or nothing).
	hello := func(token string, fds ...int) string {
		t.Helper()
		fd := dialWitness(t, w.ln.Path())
		defer syscall.Close(fd)
		msg := []byte(`{"name":"p","token":"` + token + `","args":["2","0"]}`)
		msg = append([]byte{0, 0, byte(len(msg) >> 8), byte(len(msg))}, msg...)
		if err := syscall.Sendmsg(fd, msg, syscall.UnixRights(fds...), nil, 0); err != nil {
			t.Fatal(err)
		}
		// A backstop, not a measure: a witness that neither answers nor closes (a mock
		// started on a refused hello waits for its input for ever) fails the test.
		syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &syscall.Timeval{Sec: 60})
		var got []byte
		b := make([]byte, 64)
		for {
			n, err := syscall.Read(fd, b)
			if err == syscall.EAGAIN {
				return string(got) + "(still open)"
			}
			if n <= 0 || err != nil {
				return string(got)
			}
			got = append(got, b[:n]...)
		}
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inR.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer outR.Close()
	defer outW.Close()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	in, out, errw := int(inR.Fd()), int(outW.Fd()), int(null.Fd())
	if got := hello("forged", in, out, errw); got != "" {
		t.Errorf("a hello without the token: the witness answered %q", got)
	}
	if got := hello(strings.Repeat("0", len(w.token)), in, out, errw); got != "" {
		t.Errorf("a hello with another token: the witness answered %q", got)
	}
	conn := dialWitness(t, w.ln.Path())
	if got := hello(w.token, conn, out, errw); got != "" {
		t.Errorf("a hello whose stdin is a connection to the witness: the witness answered %q", got)
	}
	syscall.Close(conn)
	if got := hello(w.token, in, int(inW.Fd()), errw); got != "" {
		t.Errorf("a hello whose stdin and stdout are one pipe: the witness answered %q", got)
	}
	w.mu.Lock()
	started := w.started
	w.mu.Unlock()
	if started != 0 {
		t.Errorf("%d mock players started for refused hellos", started)
	}
	// A stand-in's hello (its token, a player's streams) starts the mock, which ends at
	// the end of its stdin.
	inW.Close()
	if got := hello(w.token, in, out, errw); !strings.HasPrefix(got, "exit ") {
		t.Errorf("a stand-in's hello: the witness answered %q, want the mock's end", got)
	}
}

// dialWitness connects to the witness's socket at path.
func dialWitness(t *testing.T, path string) int {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		syscall.Close(fd)
		t.Fatal(err)
	}
	return fd
}
