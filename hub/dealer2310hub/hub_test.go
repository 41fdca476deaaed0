package dealer2310hub_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/sebdah/goldie/v2"

	"gauntlet/games/dealer2310"
	"gauntlet/harness/box/execfile"
	"gauntlet/hub/dealer2310hub"
	"gauntlet/internal/buildtest"
)

const fixtures = "../../fixtures/dealer2310"

var mains = []string{"gauntlet/cmd/2310dealer", "gauntlet/cmd/2310A", "gauntlet/cmd/2310B"}

// The relay: a player slot that runs a real player and records both directions. A wrapper
// script execs this test binary with these variables set (see relayScript).
const (
	envRelayProg = "DEALER2310_TEST_RELAY"
	envRelayLog  = "DEALER2310_TEST_RELAY_LOG"
)

func TestMain(m *testing.M) {
	if prog := os.Getenv(envRelayProg); prog != "" {
		os.Exit(relay(prog, os.Getenv(envRelayLog), os.Args[1:]))
	}
	os.Exit(m.Run())
}

// relay runs prog with args, copying stdin to it and its stdout back, and writes what
// passed each way to log+".stdin" and log+".stdout". It exits as prog does.
func relay(prog, log string, args []string) int {
	inLog, err1 := os.Create(log + ".stdin")
	outLog, err2 := os.Create(log + ".stdout")
	if err1 != nil || err2 != nil {
		return 100
	}
	cmd := exec.Command(prog, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		return 101
	}
	// Each chunk is logged before the player can see it, so the log holds all it read.
	go io.Copy(io.MultiWriter(inLog, in), os.Stdin)
	io.Copy(io.MultiWriter(outLog, os.Stdout), out)
	err := cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return 0
}

// binDir builds the three programs and returns their directory.
func binDir(t testing.TB) string { return buildtest.Programs(t, mains...) }

// gameDir is a temporary directory for one dealer run, with its input files and players.
type gameDir struct {
	t   testing.TB
	dir string
}

func newGame(t testing.TB) *gameDir {
	t.Helper()
	return &gameDir{t: t, dir: t.TempDir()}
}

// file writes a file in the game directory.
func (g *gameDir) file(name, content string) string {
	g.t.Helper()
	if err := os.WriteFile(filepath.Join(g.dir, name), []byte(content), 0o644); err != nil {
		g.t.Fatal(err)
	}
	return name
}

// script writes an executable shell script; "$DIR" in body stands for the game directory.
func (g *gameDir) script(name, body string) string {
	g.t.Helper()
	body = "#!/bin/sh\n" + strings.ReplaceAll(body, "$DIR", g.dir)
	if err := execfile.Write(filepath.Join(g.dir, name), []byte(body), 0o755); err != nil {
		g.t.Fatal(err)
	}
	return "./" + name
}

// relayScript writes a player slot that runs the built player prog (e.g. "2310A") through
// the relay, recording what it reads and writes under the name log.
func (g *gameDir) relayScript(name, prog, log string) string {
	g.t.Helper()
	self, err := os.Executable()
	if err != nil {
		g.t.Fatal(err)
	}
	return g.script(name, envRelayProg+"="+filepath.Join(binDir(g.t), prog)+" "+
		envRelayLog+"="+filepath.Join(g.dir, log)+" exec "+self+` "$@"`+"\n")
}

// read returns a file of the game directory.
func (g *gameDir) read(name string) string {
	g.t.Helper()
	b, err := os.ReadFile(filepath.Join(g.dir, name))
	if err != nil {
		g.t.Fatal(err)
	}
	return string(b)
}

type result struct {
	stdout, stderr string
	status         int
}

// command returns the dealer command, run in the game directory with the built programs
// first in PATH (so "2310A" is found as execvp would find it).
func (g *gameDir) command(args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(binDir(g.t), "2310dealer"), args...)
	cmd.Dir = g.dir
	cmd.Env = append(os.Environ(), "PATH="+binDir(g.t)+string(os.PathListSeparator)+os.Getenv("PATH"))
	return cmd
}

// run runs the dealer to its end (killed at the test's backstop). Death by a signal fails
// the test.
func (g *gameDir) run(args ...string) result {
	g.t.Helper()
	cmd := g.command(args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		g.t.Fatal(err)
	}
	defer buildtest.KillAtBackstop(g.t, cmd.Process)()
	return g.result(cmd.Wait(), out.String(), errb.String())
}

func (g *gameDir) result(err error, stdout, stderr string) result {
	g.t.Helper()
	r := result{stdout: stdout, stderr: stderr}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		if ws := ee.Sys().(syscall.WaitStatus); ws.Signaled() {
			g.t.Fatalf("dealer died by signal %v; stderr:\n%s", ws.Signal(), stderr)
		}
		r.status = ee.ExitCode()
	default:
		g.t.Fatal(err)
	}
	return r
}

func (r result) check(t *testing.T, stdout, stderr string, status int) {
	t.Helper()
	if r.status != status {
		t.Errorf("exit status %d, want %d", r.status, status)
	}
	if r.stderr != stderr {
		t.Errorf("stderr %q, want %q", r.stderr, stderr)
	}
	if r.stdout != stdout {
		t.Errorf("stdout:\n%s\nwant:\n%s", r.stdout, stdout)
	}
}

func specGolden(t *testing.T) *goldie.Goldie {
	return goldie.New(t, goldie.WithFixtureDir(filepath.Join(fixtures, "spec")))
}

func specFiles(g *gameDir) {
	g.file("d1.deck", "7ABACDEE\n")
	g.file("p1.path", "7;::-Mo1V11V22Mo1Mo1::-\n")
}

// TestSpecSession runs the spec's example through the real binaries, `2310dealer d1.deck
// p1.path 2310A 2310A`, with player 0 behind the relay: the dealer's stdout, what player
// 0 received and what it sent must be the spec's, byte for byte.
func TestSpecSession(t *testing.T) {
	t.Parallel() // a game folder and binaries of its own
	g := newGame(t)
	specFiles(g)
	p0 := g.relayScript("p0", "2310A", "p0")
	r := g.run("d1.deck", "p1.path", p0, "2310A")
	if r.status != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.status, r.stderr)
	}
	gd := specGolden(t)
	gd.Assert(t, "stdout", []byte(r.stdout))
	gd.Assert(t, "player0_stdin", []byte(g.read("p0.stdin")))
	gd.Assert(t, "player0_stdout", []byte(g.read("p0.stdout")))
}

// TestHandGamesBinaries plays games through the real binaries and compares the dealer's
// stdout with the in-process model's (whose moves were traced by hand in
// games/dealer2310's golden tests).
func TestHandGamesBinaries(t *testing.T) {
	t.Parallel() // games of their own, in folders of their own
	games := []struct {
		deck, path string
		players    []string
	}{
		{"4ABCD", "2;::-::-", []string{"2310A", "2310B", "2310A"}},
		{"4ABCD", "8;::-Ri2Mo1V22Ri1Do2Ri3::-", []string{"2310B", "2310B", "2310B"}},
		{"5BCADE", "10;::-Mo2Do1V11::-::-Ri2V21Do2::-", []string{"2310A", "2310B", "2310A", "2310B"}},
		{"4BDCA", "8;::-Ri3Do2Mo2::-V23Ri2::-", []string{"2310A", "2310B", "2310B", "2310A", "2310B", "2310A"}},
		// 11 players: ids 10 and up show their last digit in the display.
		{"4ABCD", "4;::-Mo9V19::-", []string{"2310A", "2310B", "2310A", "2310B", "2310A", "2310B", "2310A", "2310B", "2310A", "2310B", "2310A"}},
	}
	for _, gm := range games {
		t.Run(strings.Join(gm.players, "_"), func(t *testing.T) {
			t.Parallel()
			path, _ := dealer2310.ParsePath(gm.path)
			deck, _ := dealer2310.ParseDeck(gm.deck)
			var ss []dealer2310.Strategy
			for _, p := range gm.players {
				ss = append(ss, dealer2310.Strategies[p])
			}
			want, err := dealer2310.Simulate(path, deck, ss)
			if err != nil {
				t.Fatal(err)
			}
			g := newGame(t)
			g.file("d", gm.deck+"\n")
			g.file("p", gm.path+"\n")
			g.run(append([]string{"d", "p"}, gm.players...)...).check(t, want.Stdout, "", 0)
		})
	}
}

// Players for the error cases. Each is a shell script; "$DIR" is the game directory.
const (
	// answers its first YT with REPLY, then waits for the dealer's last message
	scriptReply = "printf '^'\nread -r path\nwhile read -r l && [ \"$l\" != YT ]; do :; done\nprintf 'REPLY'\nread -r last\n" +
		"echo \"$last\" >> $DIR/last\nexit 0\n"
)

func reply(s string) string { return strings.Replace(scriptReply, "REPLY", s, 1) }

// TestDealerExits has one or more cases for each row of the dealer's exit table, in the
// table's order, run against the built binary: stdout, stderr and exit status exact.
func TestDealerExits(t *testing.T) {
	t.Parallel() // each case a game folder of its own
	const path1 = "5;::-Mo1::-V11::-\n"
	display1 := ":: Mo :: V1 :: \n0              \n"
	tests := []struct {
		name    string
		status  int
		files   map[string]string
		scripts map[string]string
		args    []string
		stdout  string
		last    string // what the scripted players must have read last ("" to skip)
	}{
		{name: "normal end, players' stderr suppressed", status: dealer2310.ExitOK,
			scripts: map[string]string{"noisy": "echo noise >&2\nexec 2310A \"$@\"\n"},
			args:    []string{"d1.deck", "p1.path", "./noisy", "2310A"}, stdout: "spec"},
		{name: "no args", status: dealer2310.ExitUsage},
		{name: "deck only", status: dealer2310.ExitUsage, args: []string{"d1.deck"}},
		{name: "no players", status: dealer2310.ExitUsage, args: []string{"d1.deck", "p1.path"}},
		{name: "no players, bad files", status: dealer2310.ExitUsage, args: []string{"nodeck", "nopath"}},
		{name: "deck missing", status: dealer2310.ExitDeck, args: []string{"nodeck", "p1.path", "2310A"}},
		{name: "deck is a directory", status: dealer2310.ExitDeck, args: []string{".", "p1.path", "2310A"}},
		{name: "deck too short", status: dealer2310.ExitDeck, files: map[string]string{"d": "3ABC\n"}, args: []string{"d", "p1.path", "2310A"}},
		{name: "deck count mismatch", status: dealer2310.ExitDeck, files: map[string]string{"d": "5ABCD\n"}, args: []string{"d", "p1.path", "2310A"}},
		{name: "deck without newline", status: dealer2310.ExitDeck, files: map[string]string{"d": "4ABCD"}, args: []string{"d", "p1.path", "2310A"}},
		{name: "deck bad card", status: dealer2310.ExitDeck, files: map[string]string{"d": "4ABCX\n"}, args: []string{"d", "p1.path", "2310A"}},
		{name: "deck checked before path", status: dealer2310.ExitDeck, args: []string{"nodeck", "nopath", "2310A"}},
		{name: "path missing", status: dealer2310.ExitPath, args: []string{"d1.deck", "nopath", "2310A"}},
		{name: "path one site", status: dealer2310.ExitPath, files: map[string]string{"p": "1;::-\n"}, args: []string{"d1.deck", "p", "2310A"}},
		{name: "path not ending in a barrier", status: dealer2310.ExitPath, files: map[string]string{"p": "3;::-Mo1V11\n"}, args: []string{"d1.deck", "p", "2310A"}},
		{name: "path capacity 0", status: dealer2310.ExitPath, files: map[string]string{"p": "3;::-Mo0::-\n"}, args: []string{"d1.deck", "p", "2310A"}},
		{name: "path without newline", status: dealer2310.ExitPath, files: map[string]string{"p": "2;::-::-"}, args: []string{"d1.deck", "p", "2310A"}},
		{name: "path checked before players", status: dealer2310.ExitPath, args: []string{"d1.deck", "nopath", "./nosuchplayer"}},
		{name: "no such program", status: dealer2310.ExitStart, args: []string{"d1.deck", "p1.path", "2310A", "nosuchplayer2310"}},
		{name: "no such file", status: dealer2310.ExitStart, args: []string{"d1.deck", "p1.path", "./nosuchplayer", "2310A"}},
		{name: "not executable", status: dealer2310.ExitStart, files: map[string]string{"plain": "#!/bin/sh\nprintf '^'\n"}, args: []string{"d1.deck", "p1.path", "./plain"}},
		{name: "wrong handshake", status: dealer2310.ExitStart, scripts: map[string]string{"bad": "printf 'x'\nread -r x\n"}, args: []string{"d1.deck", "p1.path", "2310A", "./bad"}},
		{name: "exits before the handshake", status: dealer2310.ExitStart, scripts: map[string]string{"quit": "exit 0\n"}, args: []string{"d1.deck", "p1.path", "./quit", "2310A"}},
		{name: "player bad args", status: dealer2310.ExitStart, scripts: map[string]string{"p": "exec 2310A 0 0\n"}, args: []string{"d1.deck", "p1.path", "2310A", "./p"}},
		{name: "EOF after the path", status: dealer2310.ExitComms, files: map[string]string{"p": path1},
			scripts: map[string]string{"s": "printf '^'\nread -r path\nexit 0\n"},
			args:    []string{"d1.deck", "p", "./s"}, stdout: display1},
		{name: "garbage", status: dealer2310.ExitComms, files: map[string]string{"p": path1},
			scripts: map[string]string{"s": reply(`hello\n`)}, args: []string{"d1.deck", "p", "./s"}, stdout: display1, last: "EARLY\n"},
		{name: "empty line", status: dealer2310.ExitComms, files: map[string]string{"p": path1},
			scripts: map[string]string{"s": reply(`\n`)}, args: []string{"d1.deck", "p", "./s"}, stdout: display1, last: "EARLY\n"},
		{name: "CRLF", status: dealer2310.ExitComms, files: map[string]string{"p": path1},
			scripts: map[string]string{"s": reply(`DO1\r\n`)}, args: []string{"d1.deck", "p", "./s"}, stdout: display1, last: "EARLY\n"},
		{name: "leading zero", status: dealer2310.ExitComms, files: map[string]string{"p": path1},
			scripts: map[string]string{"s": reply(`DO01\n`)}, args: []string{"d1.deck", "p", "./s"}, stdout: display1, last: "EARLY\n"},
		{name: "past a barrier", status: dealer2310.ExitComms, files: map[string]string{"p": path1},
			scripts: map[string]string{"s": reply(`DO3\n`)}, args: []string{"d1.deck", "p", "./s"}, stdout: display1, last: "EARLY\n"},
		{name: "stay put", status: dealer2310.ExitComms, files: map[string]string{"p": path1},
			scripts: map[string]string{"s": reply(`DO0\n`)}, args: []string{"d1.deck", "p", "./s"}, stdout: display1, last: "EARLY\n"},
		{name: "no such site", status: dealer2310.ExitComms, files: map[string]string{"p": path1},
			scripts: map[string]string{"s": reply(`DO5\n`)}, args: []string{"d1.deck", "p", "./s"}, stdout: display1, last: "EARLY\n"},
		{name: "onto a full site", status: dealer2310.ExitComms, files: map[string]string{"p": path1},
			scripts: map[string]string{"s": reply(`DO1\n`)},
			// player 0 (2310A) takes Mo1; then the scripted player 1 asks for it too
			args: []string{"d1.deck", "p", "2310A", "./s"},
			stdout: ":: Mo :: V1 :: \n1              \n0              \n" +
				"Player 0 Money=10 V1=0 V2=0 Points=0 A=0 B=0 C=0 D=0 E=0\n:: Mo :: V1 :: \n1  0           \n",
			last: "EARLY\n"},
		{name: "last line without newline is processed", status: dealer2310.ExitComms, files: map[string]string{"p": "3;::-Mo1::-\n"},
			scripts: map[string]string{"s": "printf '^'\nread -r path\nread -r yt\nprintf 'DO1'\nexit 0\n"},
			args:    []string{"d1.deck", "p", "./s"},
			stdout: ":: Mo :: \n0        \n" +
				"Player 0 Money=10 V1=0 V2=0 Points=0 A=0 B=0 C=0 D=0 E=0\n:: Mo :: \n   0     \n"},
	}
	for i, tc := range tests {
		if i > 0 && tc.status < tests[i-1].status {
			t.Fatalf("case %q is out of the table's order", tc.name)
		}
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := newGame(t)
			specFiles(g)
			for name, content := range tc.files {
				g.file(name, content)
			}
			for name, body := range tc.scripts {
				g.script(name, body)
			}
			r := g.run(tc.args...)
			stdout := tc.stdout
			if stdout == "spec" {
				stdout = specStdout(t)
			}
			r.check(t, stdout, dealer2310.DealerContract.Status(tc.status).Stderr(), tc.status)
			if tc.last != "" {
				if got := g.read("last"); got != tc.last {
					t.Errorf("the scripted player read %q last, want %q", got, tc.last)
				}
			}
		})
	}
	// Every row of the table has a case.
	for _, row := range dealer2310.DealerContract {
		found := false
		for _, tc := range tests {
			found = found || tc.status == row.Status
		}
		if !found {
			t.Errorf("no case for row %d (%s)", row.Status, row.Condition)
		}
	}
}

func specStdout(t *testing.T) string {
	b, err := os.ReadFile(filepath.Join(fixtures, "spec", "stdout.golden"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPlayerDiesMidGame: player 1 exits after reading the path. The dealer must not die of
// SIGPIPE writing to it; it sends EARLY to the others and ends with a communications error.
func TestPlayerDiesMidGame(t *testing.T) {
	g := newGame(t)
	specFiles(g)
	p0 := g.relayScript("p0", "2310A", "p0")
	g.script("dies", "printf '^'\nread -r path\nexit 0\n")
	r := g.run("d1.deck", "p1.path", p0, "./dies")
	want := ":: Mo V1 V2 Mo Mo :: \n1                    \n0                    \n" +
		"Player 0 Money=10 V1=0 V2=0 Points=0 A=0 B=0 C=0 D=0 E=0\n:: Mo V1 V2 Mo Mo :: \n1  0                 \n"
	r.check(t, want, "Communications error\n", dealer2310.ExitComms)
	if got, want := g.read("p0.stdin"), "7;::-Mo1V11V22Mo1Mo1::-\nYT\nHAP0,1,0,3,0\nEARLY\n"; got != want {
		t.Errorf("player 0 read %q, want %q", got, want)
	}
	if got := g.read("p0.stdout"); got != "^DO1\n" {
		t.Errorf("player 0 sent %q", got)
	}
}

// pidScript is a player that records its pid, sends its handshake, reads the path and then
// sleeps (as the same process) without ever answering.
const pidScript = "echo $$ >> $DIR/pids\nprintf '^'\nread -r path\nexec sleep 1000\n"

// alivePids returns the pids recorded in the pids file that still exist after waiting up
// to buildtest.GoneWithin for them to go (a killed process may take a while to die on a
// busy machine; the bound is only reached by a failing test), and kills them so that
// nothing outlives the test.
func alivePids(t *testing.T, g *gameDir, want int) []int {
	t.Helper()
	var pids []int
	for _, f := range strings.Fields(g.read("pids")) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, pid)
	}
	if len(pids) != want {
		t.Fatalf("%d players recorded their pid, want %d", len(pids), want)
	}
	alive := buildtest.UntilGone(pids)
	for _, pid := range alive {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	return alive
}

// TestSIGHUPKillsPlayers: after SIGHUP the dealer kills and reaps every player.
func TestSIGHUPKillsPlayers(t *testing.T) {
	g := newGame(t)
	specFiles(g)
	g.script("sleeper", pidScript)
	cmd := g.command("d1.deck", "p1.path", "./sleeper", "./sleeper", "./sleeper")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer buildtest.KillAtBackstop(t, cmd.Process)()
	// The initial display (4 lines) comes once every player has started; then the dealer
	// waits for player 0's move, which never comes.
	br := bufio.NewReader(out)
	var got strings.Builder
	for i := 0; i < 4; i++ {
		l, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("stdout ended early: %q, %v", got.String(), err)
		}
		got.WriteString(l)
	}
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(br)
	got.Write(rest)
	r := g.result(cmd.Wait(), got.String(), errb.String())
	if alive := alivePids(t, g, 3); len(alive) > 0 {
		t.Errorf("players %v outlived the dealer", alive)
	}
	want := ":: Mo V1 V2 Mo Mo :: \n2                    \n1                    \n0                    \n"
	r.check(t, want, "", dealer2310hub.ExitHangup)
}

// TestStartFailureKillsStarted: when one player fails to start, those already started are
// killed and reaped, and nothing is printed on stdout.
func TestStartFailureKillsStarted(t *testing.T) {
	g := newGame(t)
	specFiles(g)
	g.script("sleeper", pidScript)
	g.script("bad", "printf '!'\nread -r x\n")
	r := g.run("d1.deck", "p1.path", "./sleeper", "./sleeper", "./bad")
	r.check(t, "", "Error starting process\n", dealer2310.ExitStart)
	if alive := alivePids(t, g, 2); len(alive) > 0 {
		t.Errorf("players %v outlived the dealer", alive)
	}
}

// TestClosedStdout: a dealer whose stdout is a pipe nobody reads must not die of SIGPIPE;
// it plays the game to its end.
func TestClosedStdout(t *testing.T) {
	g := newGame(t)
	specFiles(g)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	pr.Close()
	cmd := g.command("d1.deck", "p1.path", "2310A", "2310A")
	cmd.Stdout = pw
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	defer buildtest.KillAtBackstop(t, cmd.Process)()
	g.result(cmd.Wait(), "", errb.String()).check(t, "", "", 0)
}

// BenchmarkProcessGame30x6 plays the 30-site, 6-player benchmark game of
// games/dealer2310 with the real binaries: one dealer and six player processes a game.
func BenchmarkProcessGame30x6(b *testing.B) {
	g := newGame(b)
	g.file("d", "12ABCDEABCDEAB\n")
	g.file("p", "30;::-Mo2V12Ri2Do2V22Mo1Ri1::-V13Do1Mo2Ri3V21V12::-Mo3Ri2Do2V22V11Mo1Ri1Do1::-Ri2V23Mo2Do3::-\n")
	args := []string{"d", "p", "2310A", "2310B", "2310A", "2310B", "2310A", "2310B"}
	for b.Loop() {
		cmd := g.command(args...)
		if out, err := cmd.Output(); err != nil || !strings.Contains(string(out), "Scores: ") {
			b.Fatalf("%v\n%s", err, out)
		}
	}
}
