package hubrt

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gauntlet/games/judge"
)

// turnJudge is a small judge for Play's tests. Each seat is welcomed with "welcome S";
// then seat K mod seats is sent "go K" and its line awaited, for rounds lines, each logged
// as "S: LINE". The line "bad" breaks its one rule (status 3): every seat is sent "end"
// and "broken" is logged. After the last round every seat is sent "end" and "done" is
// logged; Abort sends every seat "abort" and logs "aborted".
type turnJudge struct {
	seats, rounds, k int
	started, over    bool
}

func (j *turnJudge) Seats() int { return j.seats }
func (j *turnJudge) Welcome(s int) []judge.Out {
	return []judge.Out{{To: s, Line: "welcome " + strconv.Itoa(s)}}
}
func (j *turnJudge) Start() []judge.Out { j.started = true; return j.prompt(nil) }
func (j *turnJudge) Allowed() string    { return "any line but bad" }
func (j *turnJudge) Over() bool         { return j.over }
func (j *turnJudge) Awaiting() int {
	if !j.started || j.over {
		return -1
	}
	return j.k % j.seats
}

func (j *turnJudge) Take(line string) ([]judge.Out, *judge.Violation) {
	s := j.Awaiting()
	outs := []judge.Out{{To: judge.Log, Line: fmt.Sprintf("%d: %s", s, line)}}
	if line == "bad" {
		return j.end(outs, "end", "broken"), &judge.Violation{Seat: s, Line: line, Rule: "no bad", Status: 3}
	}
	if j.k++; j.k == j.rounds {
		return j.end(outs, "end", "done"), nil
	}
	return j.prompt(outs), nil
}

func (j *turnJudge) Abort() []judge.Out {
	if j.over {
		return nil
	}
	return j.end(nil, "abort", "aborted")
}

func (j *turnJudge) prompt(outs []judge.Out) []judge.Out {
	return append(outs, judge.Out{To: j.k % j.seats, Line: "go " + strconv.Itoa(j.k)})
}

func (j *turnJudge) end(outs []judge.Out, line, log string) []judge.Out {
	j.over = true
	for s := 0; s < j.seats; s++ {
		outs = append(outs, judge.Out{To: s, Line: line})
	}
	return append(outs, judge.Out{To: judge.Log, Line: log})
}

// greet is the start of a test player (its argument: its seat): the '!' handshake and
// the welcome, checked.
const greet = `printf '!'; read w; [ "$w" = "welcome $1" ] || exit 7` + "\n"

// turns is the rest of a test player: onGo for each "go K", onEnd for "end" or "abort".
func turns(onGo, onEnd string) string {
	return `while read line; do case "$line" in go*) ` + onGo + ` ;; end|abort) ` + onEnd +
		` ;; *) exit 8 ;; esac; done; exit 6` + "\n"
}

// seatArg gives each player its seat as its argument.
func seatArg(i int) []string { return []string{strconv.Itoa(i)} }

// testPolicy is the policy of the tests but where one says otherwise: a '!' handshake,
// status 4 for a bad one, 6 for end of file and 7 for any other read error, 9 on a signal,
// players given an hour to exit: a Play that waited out the grace for players that had
// exited would never end, whatever the machine's load (a test that needs the kill sets a
// short one).
func testPolicy() Policy {
	return Policy{
		Handshake:    '!',
		BadHandshake: 4,
		ReadStatus: func(err error) int {
			if err == io.EOF {
				return 6
			}
			return 7
		},
		Grace:           time.Hour,
		InterruptStatus: 9,
	}
}

// play starts the players (scripts of the given bodies) and plays a game of rounds lines
// with p; it returns the ending and the log.
func play(t *testing.T, p Policy, rounds int, bodies ...string) (Ending, string) {
	t.Helper()
	h := startScripts(t, bodies...)
	return playOn(h, p, rounds)
}

func startScripts(t *testing.T, bodies ...string) *Hub {
	t.Helper()
	dir := t.TempDir()
	progs := make([]string, len(bodies))
	for i, b := range bodies {
		progs[i] = script(t, dir, "player"+strconv.Itoa(i), b)
	}
	h, err := Start(progs, seatArg)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func playOn(h *Hub, p Policy, rounds int) (Ending, string) {
	var log bytes.Buffer
	w := bufio.NewWriter(&log)
	e := Play(&turnJudge{seats: h.Len(), rounds: rounds}, h, w, p)
	return e, log.String() // Play flushed it
}

var (
	ok     = Exit{}
	killed = Exit{Signal: syscall.SIGKILL}
)

func checkEnding(t *testing.T, e Ending, how How, status, seat int, exits ...Exit) {
	t.Helper()
	if e.How != how || e.Status != status || e.Seat != seat || !reflect.DeepEqual(e.Exits, exits) {
		t.Fatalf("ending %+v, want how %d, status %d, seat %d, exits %v", e, how, status, seat, exits)
	}
}

// A whole game: handshakes, welcomes, every seat's lines in turn, the log, the end; without
// a handshake the seats are welcomed at once. A read timeout that is not reached changes
// nothing.
func TestPlayWholeGame(t *testing.T) {
	t.Parallel()
	for _, hello := range []byte{'!', 0} {
		p := testPolicy()
		p.Handshake = hello
		p.ReadTimeout = 20 * time.Second
		start := greet
		if hello == 0 {
			start = strings.TrimPrefix(greet, `printf '!'; `)
		}
		body := start + turns("echo ok", "exit 0")
		e, log := play(t, p, 4, body, body)
		checkEnding(t, e, GameOver, 0, -1, ok, ok)
		if want := "0: ok\n1: ok\n0: ok\n1: ok\ndone\n"; log != want {
			t.Errorf("handshake %q: log %q, want %q", hello, log, want)
		}
	}
}

// A broken rule ends the game with the violation's status and the lines the judge sends
// for it, without Abort.
func TestPlayRuleBroken(t *testing.T) {
	t.Parallel()
	e, log := play(t, testPolicy(), 4, greet+turns("echo ok", "exit 0"), greet+turns("echo bad", "exit 0"))
	checkEnding(t, e, RuleBroken, 3, 1, ok, ok)
	if want := "0: ok\n1: bad\nbroken\n"; log != want {
		t.Errorf("log %q, want %q", log, want)
	}
}

// A wrong, missing or late handshake kills every player at once: nothing is sent, the
// game never starts.
func TestPlayBadHandshake(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body string
		err        error
	}{
		{"wrong byte", "printf '?'; exec sleep 30\n", nil},
		{"end of file", "exit 0\n", io.EOF},
		{"too late", "exec sleep 30\n", ErrTimeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := testPolicy()
			p.ReadTimeout = 300 * time.Millisecond
			e, log := play(t, p, 4, greet+turns("echo ok", "exit 0"), tc.body)
			want := Exit{Signal: syscall.SIGKILL}
			if tc.err == io.EOF {
				want = ok
			}
			checkEnding(t, e, HandshakeFailed, 4, 1, killed, want)
			if e.Err != tc.err || log != "" {
				t.Errorf("err %v, log %q; want %v and nothing", e.Err, log, tc.err)
			}
		})
	}
}

// A seat that quits aborts the game: the others get Abort's lines, the status is
// ReadStatus's.
func TestPlayReadFailure(t *testing.T) {
	t.Parallel()
	e, log := play(t, testPolicy(), 4, greet+turns("echo ok", "exit 0"), greet+turns("exit 0", "exit 5"))
	checkEnding(t, e, ReadFailed, 6, 1, ok, ok)
	if e.Err != io.EOF {
		t.Errorf("err %v, want io.EOF", e.Err)
	}
	if want := "0: ok\naborted\n"; log != want {
		t.Errorf("log %q, want %q", log, want)
	}
}

// A player that does not exit after the end is killed after the grace; one that exits in
// time keeps its status.
func TestPlayGraceKill(t *testing.T) {
	t.Parallel()
	p := testPolicy()
	p.Grace = 300 * time.Millisecond
	// A straggler not killed would end by itself (sleep's status 0), not by SIGKILL.
	e, _ := play(t, p, 2, greet+turns("echo ok", "exit 0"), greet+turns("echo ok", "exec sleep 30"))
	checkEnding(t, e, GameOver, 0, -1, ok, killed)
}

// The grace counts from the last line sent, or from the end of the game.
func TestPlayKillAt(t *testing.T) {
	t.Parallel()
	last := time.Now().Add(-time.Hour)
	g := &game{p: Policy{Grace: 2 * time.Second, GraceFromLastSend: true}, last: last}
	if got := g.killAt(); !got.Equal(last.Add(2 * time.Second)) {
		t.Errorf("from the last line sent: kill at %v, want %v", got, last.Add(2*time.Second))
	}
	g.p.GraceFromLastSend = false
	before := time.Now()
	if got := g.killAt(); got.Before(before.Add(2*time.Second)) || got.After(time.Now().Add(2*time.Second)) {
		t.Errorf("from the end: kill at %v, want 2s after %v", got, before)
	}
}

// A line not whole within ReadTimeout is that seat's read failure with ErrTimeout.
func TestPlayReadTimeout(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, onGo string }{
		{"nothing", "exec sleep 30"},
		{"part of a line", "printf o; exec sleep 30"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := testPolicy()
			p.ReadTimeout = 300 * time.Millisecond
			p.Grace = 300 * time.Millisecond
			e, log := play(t, p, 4, greet+turns("echo ok", "exit 0"), greet+turns(tc.onGo, "exit 0"))
			checkEnding(t, e, ReadFailed, 7, 1, ok, killed)
			if e.Err != ErrTimeout || log != "0: ok\naborted\n" {
				t.Errorf("err %v, log %q", e.Err, log)
			}
		})
	}
}

// procState is the state letter of process pid in /proc/PID/stat ('T': stopped), or 0.
func procState(pid int) byte {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if i := bytes.LastIndexByte(data, ')'); err == nil && i >= 0 && i+2 < len(data) {
		return data[i+2]
	}
	return 0
}

// waitFor polls cond for up to 10 s and reports whether it came true.
func waitFor(cond func() bool) bool {
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return false
}

// With PauseIdle, a player waits stopped while another's line is awaited, runs when its
// own is, and is let go on at the end (it exits by itself on "end").
func TestPlayPausesIdlePlayers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Each player, on its "go", says it is waiting and answers once the test lets it.
	onGo := `touch ` + dir + `/waiting$1; i=0; until [ -e ` + dir + `/go$1 ] || [ $i -ge 400 ]; do sleep 0.05; i=$((i+1)); done; echo ok`
	body := greet + turns(onGo, "exit 0")
	h := startScripts(t, body, body)
	pid := func(i int) int { return h.players[i].cmd.Process.Pid }
	exists := func(name string) bool { _, err := os.Stat(filepath.Join(dir, name)); return err == nil }
	problems := make(chan []string, 1)
	go func() {
		var p []string
		for s := 0; s < 2; s++ {
			idle := 1 - s
			if !waitFor(func() bool {
				return exists("waiting"+strconv.Itoa(s)) && procState(pid(idle)) == 'T' && procState(pid(s)) != 'T'
			}) {
				p = append(p, fmt.Sprintf("while seat %d was awaited: seat %d in state %c, seat %d in state %c",
					s, idle, procState(pid(idle)), s, procState(pid(s))))
			}
			os.WriteFile(filepath.Join(dir, "go"+strconv.Itoa(s)), nil, 0o644)
		}
		problems <- p
	}()
	p := testPolicy()
	p.PauseIdle = true
	p.ReadTimeout = 30 * time.Second
	e, log := playOn(h, p, 2)
	for _, msg := range <-problems {
		t.Error(msg)
	}
	checkEnding(t, e, GameOver, 0, -1, ok, ok)
	if want := "0: ok\n1: ok\ndone\n"; log != want {
		t.Errorf("log %q, want %q", log, want)
	}
}

// A watched signal (or one the hub caught first, given by Interrupt) aborts the game and
// gives the players the grace, or kills them at once with KillOnInterrupt; the status is
// InterruptStatus.
func TestPlayInterrupted(t *testing.T) {
	for _, tc := range []struct {
		name         string
		kill, before bool
		exits        []Exit
		log          string
	}{
		{"abort", false, false, []Exit{ok, ok}, "aborted\n"},
		{"kill", true, false, []Exit{killed, killed}, ""},
		// Nothing is sent before Abort's lines, even in a protocol without handshakes
		// (Play would otherwise welcome the seats first): the players get "abort" where
		// they wait for their welcome, and exit 7.
		{"before the game", false, true, []Exit{{Code: 7}, {Code: 7}}, "aborted\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			// Seat 0 says when it has its "go" and does not answer it; every seat exits 0
			// on "abort".
			h := startScripts(t, greet+turns("touch "+dir+"/waiting", "exit 0"), greet+turns("echo ok", "exit 0"))
			h.Watch(syscall.SIGUSR1)
			if tc.before {
				h.Interrupt(syscall.SIGUSR1)
			} else {
				go func() {
					if waitFor(func() bool { _, err := os.Stat(dir + "/waiting"); return err == nil }) {
						syscall.Kill(os.Getpid(), syscall.SIGUSR1)
					}
				}()
			}
			p := testPolicy()
			p.KillOnInterrupt = tc.kill
			if tc.before {
				p.Handshake = 0
			}
			p.ReadTimeout = 20 * time.Second
			e, log := playOn(h, p, 4)
			checkEnding(t, e, Interrupted, 9, -1, tc.exits...)
			if log != tc.log || h.Caught() != syscall.SIGUSR1 {
				t.Errorf("log %q (want %q), caught %v", log, tc.log, h.Caught())
			}
		})
	}
}

// Interrupt counts once: the first signal is the one caught.
func TestInterruptOnce(t *testing.T) {
	t.Parallel()
	h := startScripts(t, "exec sleep 30\n")
	defer h.Kill()
	h.Interrupt(syscall.SIGHUP)
	h.Interrupt(syscall.SIGINT)
	if _, err := h.ReadLine(0); !errors.Is(err, ErrInterrupted) || h.Caught() != syscall.SIGHUP {
		t.Fatalf("ReadLine: %v, caught %v; want ErrInterrupted and SIGHUP", err, h.Caught())
	}
}
