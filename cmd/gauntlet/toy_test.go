package main

// The smallest complete game, registered in one place (the init below) and driven through
// the CLI as a user would: graded, played and fuzzed. It is the example of
// docs/adding-a-game.md. Ping-pong: the hub says "ping K" for K = 1..ROUNDS and the player
// answers "pong K"; then the hub says "bye", prints "ROUNDS rounds" and the player exits 0.

import (
	"bufio"
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gauntlet/games/contract"
	"gauntlet/games/judge"
	"gauntlet/harness/grading/grade"
	"gauntlet/harness/grading/mutants"
	"gauntlet/harness/grading/tournament"
	"gauntlet/harness/judges/live"
	"gauntlet/harness/runtime/hubrt"
	"gauntlet/harness/runtime/lineio"
	"gauntlet/harness/runtime/respond"
	"gauntlet/harness/runtime/tcp"
	"gauntlet/internal/buildtest"
	"gauntlet/programs"
)

// pingJudge is the hub's side of the game (the engine: pure).
type pingJudge struct {
	rounds, k int
	over      bool
}

func (j *pingJudge) Seats() int              { return 1 }
func (j *pingJudge) Welcome(int) []judge.Out { return nil }
func (j *pingJudge) Start() []judge.Out      { j.k = 1; return []judge.Out{{To: 0, Line: "ping 1"}} }
func (j *pingJudge) Allowed() string         { return fmt.Sprintf("pong %d", j.k) }
func (j *pingJudge) Over() bool              { return j.over }
func (j *pingJudge) Abort() []judge.Out      { j.over = true; return []judge.Out{{To: 0, Line: "bye"}} }
func (j *pingJudge) Awaiting() int {
	if j.over || j.k == 0 {
		return -1
	}
	return 0
}

func (j *pingJudge) Take(line string) ([]judge.Out, *judge.Violation) {
	if line != j.Allowed() {
		j.over = true
		return []judge.Out{{To: 0, Line: "bye"}}, &judge.Violation{Line: line, Rule: "ping K is answered pong K", Status: 3}
	}
	if j.k == j.rounds {
		j.over = true
		return []judge.Out{{To: 0, Line: "bye"}, {To: judge.Log, Line: fmt.Sprintf("%d rounds", j.rounds)}}, nil
	}
	j.k++
	return []judge.Out{{To: 0, Line: fmt.Sprintf("ping %d", j.k)}}, nil
}

// pongPlayer is the player's side.
type pongPlayer struct{}

func (pongPlayer) Greeting() string { return "" }
func (pongPlayer) Lost() judge.Reaction {
	return judge.Reaction{Stderr: "Hub quit\n", Done: true, Status: 2}
}
func (pongPlayer) React(line string) judge.Reaction {
	var k int
	if _, err := fmt.Sscanf(line, "ping %d", &k); err == nil && line == fmt.Sprintf("ping %d", k) {
		return judge.Reaction{Replies: []string{fmt.Sprintf("pong %d", k)}}
	}
	if line == "bye" {
		return judge.Reaction{Done: true}
	}
	return judge.Reaction{Stderr: "Bad message\n", Done: true, Status: 3}
}

// playJudge plays a game of j with its one seat over a TCP connection, sending lines with
// send and reading them with read, and returns the exit status. (The pipe hub below uses
// the reference hubs' loop, hubrt.Play, whose players are processes.)
func playJudge(j judge.Judge, send func(string), read func() (string, error)) int {
	outs, status := j.Start(), 0
	for {
		for _, o := range outs {
			if o.To == judge.Log {
				fmt.Println(o.Line)
			} else {
				send(o.Line)
			}
		}
		if j.Over() {
			return status
		}
		line, err := read()
		if err != nil {
			fmt.Fprintln(os.Stderr, playerQuit)
			outs, status = j.Abort(), statusQuit
			continue
		}
		var v *judge.Violation
		if outs, v = j.Take(line); v != nil {
			fmt.Fprintln(os.Stderr, badReply)
			status = v.Status
		}
	}
}

// What both hubs say and return when the player quits or breaks the rule.
const (
	playerQuit = "Player quit"
	statusQuit = 5
	badReply   = "Bad reply"
)

// hubMain is the reference hub: `pingpong ROUNDS PLAYER`.
func hubMain() int {
	args := os.Args[1:]
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "Usage: pingpong rounds player")
		return 1
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 1 {
		fmt.Fprintln(os.Stderr, "Bad rounds")
		return 2
	}
	h, err := hubrt.Start(args[1:], func(int) []string { return nil })
	if err != nil {
		fmt.Fprintln(os.Stderr, "Cannot start player")
		return 4
	}
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	e := hubrt.Play(&pingJudge{rounds: n}, h, out, hubrt.Policy{
		ReadStatus: func(error) int { return statusQuit },
		Grace:      2 * time.Second,
	})
	switch e.How {
	case hubrt.ReadFailed:
		fmt.Fprintln(os.Stderr, playerQuit)
	case hubrt.RuleBroken:
		fmt.Fprintln(os.Stderr, badReply)
	}
	return e.Status
}

// serverMain is the TCP variant's server: `pingserve ROUNDS PORT` listens on the loopback
// (port 0: any), writes "port N", and plays the game with the first client to connect.
func serverMain() int {
	args := os.Args[1:]
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "Usage: pingserve rounds port")
		return 1
	}
	n, err1 := strconv.Atoi(args[0])
	port, err2 := tcp.ParsePort(args[1])
	if err1 != nil || n < 1 || err2 != nil {
		fmt.Fprintln(os.Stderr, "Bad arguments")
		return 2
	}
	ln, err := tcp.Listen("127.0.0.1", port)
	if err != nil {
		fmt.Fprintln(os.Stderr, "Cannot listen")
		return 3
	}
	fmt.Printf("port %d\n", ln.Port)
	c, err := ln.Accept(time.Now().Add(10 * time.Second))
	ln.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "No client")
		return 4
	}
	defer c.Close()
	in := lineio.NewReader(c)
	return playJudge(&pingJudge{rounds: n}, func(l string) { c.WriteString(l + "\n") }, in.ReadLine)
}

// clientMain is the TCP variant's player: `pongclient HOST PORT`.
func clientMain() int {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "Usage: pongclient host port")
		return 1
	}
	host, err1 := tcp.ParseHost(os.Args[1])
	port, err2 := tcp.ParsePort(os.Args[2])
	if err1 != nil || err2 != nil {
		fmt.Fprintln(os.Stderr, "Bad arguments")
		return 1
	}
	c, err := tcp.Dial(fmt.Sprintf("%d.%d.%d.%d", host[0], host[1], host[2], host[3]), port, 5*time.Second)
	if err != nil {
		fmt.Fprintln(os.Stderr, "Cannot connect")
		return 2
	}
	defer c.Close()
	return respond.Run(pongPlayer{}, c, c, os.Stderr)
}

//go:embed testdata/pingpong/*.txtar
var pingpongSuite embed.FS

//go:embed testdata/pingpong-tcp/*.txtar
var pingpongTCPSuite embed.FS

// pingMatch is the toy's tournament game: each of the two programs plays a game of -m
// rounds as the player, through the reference hub's loop and in the tournament's boxes; a
// program that does not see its game through loses, both or neither: a draw.
func pingMatch(boxes *tournament.Boxes, _ <-chan struct{}, _, _, turns string) tournament.Match {
	rounds, _ := strconv.Atoi(turns)
	return func(a, b string) (tournament.Result, error) {
		launch, done := boxes.Game()
		defer done()
		r := tournament.Result{Seats: [2]string{a, b}}
		for i, prog := range r.Seats {
			h, err := hubrt.StartWith([]string{prog}, func(int) []string { return nil }, launch)
			if err != nil {
				return r, err
			}
			e := hubrt.Play(&pingJudge{rounds: rounds}, h, bufio.NewWriter(io.Discard), hubrt.Policy{
				ReadStatus: func(error) int { return statusQuit },
				Grace:      2 * time.Second,
			})
			r.Illegal[i] = e.Status != 0
		}
		switch {
		case r.Illegal[0] == r.Illegal[1]:
			r.Points, r.Score, r.Line = [2]float64{0.5, 0.5}, [2]float64{0.5, 0.5}, "draw"
		case r.Illegal[1]:
			r.Points, r.Score, r.Line = [2]float64{1, 0}, [2]float64{1, 0}, "first wins"
		default:
			r.Points, r.Score, r.Line = [2]float64{0, 1}, [2]float64{0, 1}, "second wins"
		}
		return r, nil
	}
}

// pingpongLive is the ping-pong judge with the subject in its one seat.
func pingpongLive(p live.Params, _ func(string) ([]byte, error)) (*live.Game, error) {
	n, err := strconv.Atoi(p["rounds"])
	if err != nil || n < 1 {
		return nil, fmt.Errorf("pingpong: rounds=%q is not a positive number", p["rounds"])
	}
	return &live.Game{Judge: &pingJudge{rounds: n}, Others: []judge.Responder{nil}}, nil
}

func init() {
	suite, _ := fs.Sub(pingpongSuite, "testdata/pingpong")
	programs.RegisterGame(programs.Registration{
		Programs: []programs.Program{
			{Name: "pingpong", Game: "pingpong", Role: "hub", Main: hubMain},
			{Name: "pong", Game: "pingpong", Role: "player", Main: func() int {
				return respond.Run(pongPlayer{}, os.Stdin, os.Stdout, os.Stderr)
			}},
		},
		Examples: []programs.Example{{Game: "pingpong", Name: "three", About: "three rounds: pingpong 3 pong", Args: []string{"3", "pong"}}},
		Grade: grade.Game{
			Name: "pingpong",
			Programs: []grade.Program{
				{Var: "HUB", Name: "pingpong", Role: "hub"},
				{Var: "PLAYER", Name: "pong", Role: "player"},
			},
			Categories: []contract.Category{
				{Name: "hub/play", Program: "pingpong", Marks: 1, About: "the hub plays its rounds"},
				{Name: "player/play", Program: "pong", Marks: 1, About: "the player answers every ping"},
			},
			Timeout: 10 * time.Second,
		},
		Suite: suite,
		Live: []programs.Live{{
			Keys:     "rounds=N (a game of N rounds with the player in seat 0)",
			Setup:    pingpongLive,
			Variable: "PLAYER", Section: "Player", Category: "player/play",
			Conversation: func(r *rand.Rand) string {
				return fmt.Sprintf("judge pingpong rounds=%d\nlive\neof\nexit 0\n", 1+r.IntN(5))
			},
		}},
		Tournament: &programs.Tournament{Usage: "[flags] PLAYER PLAYER...", Turns: true, Match: pingMatch},
		// One bug of the reference player. (Its mutant cannot be built: a mutant is the
		// gauntlet binary built with the change, and this game is this test's alone.)
		Mutants: &mutants.Set{Cases: mutants.CasesOfRole("pingpong", "hub_"), Mutants: []mutants.Mutant{{
			Name: "pong-next", Prog: "pong", Category: "player/play", File: "cmd/gauntlet/toy_test.go",
			// Written in two pieces, so that this file holds the text once, in the player.
			Old: `Sprintf("pong %d", ` + `k)}}`, New: `Sprintf("pong %d", k+1)}}`,
		}}},
	})

	// The same game over TCP: a server and a client, judged by the mock hub as a client
	// of the server (connect) and as the client's server (tcp).
	suite, _ = fs.Sub(pingpongTCPSuite, "testdata/pingpong-tcp")
	programs.RegisterGame(programs.Registration{
		Programs: []programs.Program{
			{Name: "pingserve", Role: "hub", Main: serverMain},
			{Name: "pongclient", Role: "client", Main: clientMain},
		},
		Grade: grade.Game{
			Name: "pingpong-tcp",
			Programs: []grade.Program{
				{Var: "SERVER", Name: "pingserve", Role: "server"},
				{Var: "CLIENT", Name: "pongclient", Role: "client"},
			},
			Categories: []contract.Category{
				{Name: "server/play", Program: "pingserve", Marks: 1, About: "the server plays its rounds with a client"},
				{Name: "client/play", Program: "pongclient", Marks: 1, About: "the client answers every ping"},
			},
			Timeout: 10 * time.Second,
		},
		Suite: suite,
		Live:  []programs.Live{{Keys: "rounds=N", Setup: pingpongLive}},
	})
}

// TestMain makes this test binary what the gauntlet binary is to the grader and the
// fuzzer: called through a link named after a program, or as `exec PROGRAM`, it runs that
// program, the ping-pong game's included.
func TestMain(m *testing.M) {
	if p, ok := programs.Called(); ok {
		os.Exit(p.Main())
	}
	if len(os.Args) > 1 && os.Args[1] == "exec" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	buildtest.WaitingTests() // the parallel tests mostly wait on the programs they start
	os.Exit(m.Run())
}

// pingpongBinary makes this test binary the grader's programs, copied where the sandbox
// users that run a case can reach it, and returns the copy.
func pingpongBinary(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := reachable(t, t.TempDir(), self)
	executable = func() (string, error) { return bin, nil }
	t.Cleanup(func() { executable = os.Executable })
	return bin
}

// The ping-pong game, registered by the init above and nowhere else, goes through the CLI:
// its suite grades the reference at full marks and a wrong player below them, its example
// plays, its programs are listed, and the live fuzzer finds nothing in the reference player
// and the rule a wrong one breaks.
func TestToyGameThroughTheCLI(t *testing.T) {
	buildtest.Long(t) // grades two whole suites and runs three fuzzing campaigns
	bin := pingpongBinary(t)
	root := filepath.Dir(bin)

	if code, stdout, _ := gauntlet("programs"); code != 0 || !strings.Contains(stdout, "pingpong") || !strings.Contains(stdout, "pong") {
		t.Errorf("programs: exit %d, does not list the game's programs:\n%s", code, stdout)
	}
	if code, stdout, stderr := gauntlet("play", "pingpong"); code != 0 || stdout != "3 rounds\n" {
		t.Errorf("play: exit %d, stdout %q, stderr %q; want 0 and \"3 rounds\\n\"", code, stdout, stderr)
	}

	report := filepath.Join(root, "reference.json")
	code, stdout, stderr := gauntlet("grade", "pingpong", "-json", report)
	if code != 0 {
		t.Errorf("grade of the reference: exit %d\n%s\n%s", code, stdout, stderr)
	}
	r := readReport(t, report)
	allVerdicts(t, r, grade.Pass)
	names := map[string]bool{}
	for _, c := range r.Cases {
		name, _, _ := strings.Cut(c.Name(), "@") // a hub case runs in several pairings
		names[name] = true
	}
	if len(names) != 4 {
		t.Errorf("the reference ran the cases %v, want the suite's 4", names)
	}

	// A submission of only a player, which answers every line but bye with pong 1: its
	// player's cases fail, and so does the hub's case it plays in beside the reference hub.
	wrongPlayer := "#!/bin/sh\nwhile read l; do [ \"$l\" = bye ] && exit 0; echo pong 1; done\n"
	wrong := makeSubmission(t, root, "wrong", "printf '"+strings.ReplaceAll(strings.ReplaceAll(wrongPlayer, "\n", "\\n"), "$", "$$")+"' > pong", "chmod 755 pong")
	report = filepath.Join(root, "wrong.json")
	code, stdout, stderr = gauntlet("grade", "pingpong", "-json", report, wrong)
	if code != 1 {
		t.Fatalf("grade of a wrong player: exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	verdicts := map[string]grade.Verdict{}
	for _, c := range readReport(t, report).Cases {
		verdicts[c.Name()] = c.Verdict
	}
	if verdicts["player_live"] != grade.Protocol || verdicts["player_bad_message"] != grade.Protocol ||
		verdicts["hub_three_rounds@ref-hub+their-player"] != grade.WrongExit {
		t.Errorf("verdicts of a wrong player: %v; want its player's cases PROTOCOL and the reference hub's case with it WRONG-EXIT", verdicts)
	}

	out := filepath.Join(root, "found")
	if code, stdout, stderr := gauntlet("fuzz", "pingpong", "--runs", "4", "--out", out, filepath.Join(root, "pong-ref")); code != 2 {
		// A program that does not exist is a usage error, not a finding.
		t.Errorf("fuzz of a missing program: exit %d, want 2\n%s\n%s", code, stdout, stderr)
	}
	ref := filepath.Join(root, "pong")
	if err := os.Symlink(bin, ref); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := gauntlet("fuzz", "pingpong", "--runs", "4", "--out", out, ref); code != 0 {
		t.Errorf("fuzz of the reference player: exit %d, want 0\n%s\n%s", code, stdout, stderr)
	}
	wrongPath := filepath.Join(root, "wrong-pong")
	if err := os.WriteFile(wrongPath, []byte(wrongPlayer), 0o755); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = gauntlet("fuzz", "pingpong", "--runs", "4", "--out", out, wrongPath)
	if code != 1 || !strings.Contains(stdout+stderr, "breaks the rule: ping K is answered pong K") {
		t.Errorf("fuzz of a wrong player: exit %d, want 1 and the rule it broke\n%s\n%s", code, stdout, stderr)
	}
	if found, _ := filepath.Glob(filepath.Join(out, "pingpong_live_fuzz_*.txtar")); len(found) == 0 {
		t.Errorf("fuzz of a wrong player wrote no case in %s", out)
	}

	// Its tournament (Registration.Tournament): the reference player wins both games
	// against the wrong one, which breaks the rule in both.
	results := filepath.Join(root, "tournament.json")
	code, stdout, stderr = gauntlet("tournament", "pingpong", "-m", "3", "-j", "1", "-json", results, ref, wrongPath)
	if code != 0 {
		t.Fatalf("tournament: exit %d, want 0\n%s\n%s", code, stdout, stderr)
	}
	data, err := os.ReadFile(results)
	if err != nil {
		t.Fatal(err)
	}
	var played struct{ Table []tournament.Standing }
	if err := json.Unmarshal(data, &played); err != nil {
		t.Fatal(err)
	}
	if len(played.Table) != 2 || played.Table[0].Player != ref || played.Table[0].Wins != 2 || played.Table[1].Illegal != 2 {
		t.Errorf("tournament table %+v, want %s first with 2 wins and the wrong player's 2 illegal ends\n%s", played.Table, ref, stdout)
	}
}

// Every list of games the CLI keeps comes from the registrations: the toy game, registered
// in this file alone, is offered by each command's completion and named in each command's
// help, its tournament's turn limit is -m's, and its mutant library is adequacy's, with
// its cases and its mutant's text once in its file (as a mutant's build wants).
func TestToyGameIsInEveryList(t *testing.T) {
	for _, cmd := range []string{"grade", "play", "fuzz", "tournament", "adequacy"} {
		var out bytes.Buffer
		complete([]string{cmd, "ping"}, &out)
		if !slices.Contains(strings.Fields(out.String()), "pingpong") {
			t.Errorf("%s's completion does not offer pingpong: %q", cmd, out.String())
		}
	}
	for _, tc := range []struct{ cmd, want string }{
		{"tournament", "gauntlet tournament pingpong [flags] PLAYER PLAYER...\n"},
		{"tournament", "turn limit of each game (pingpong, stratego)"},
		{"adequacy", "\nGames: dealer2310, pingpong, referee, stlucia\n"},
		{"fuzz", "pingpong"},
	} {
		if code, stdout, _ := gauntlet(tc.cmd, "-help"); code != 0 || !strings.Contains(stdout, tc.want) {
			t.Errorf("%s -help: exit %d, want %q in\n%s", tc.cmd, code, tc.want, stdout)
		}
	}
	if got := mutants.Filter("pingpong", "pong") + " " + mutants.Filter("pingpong", "pingpong"); got != "^player_ ^hub_" {
		t.Errorf("the toy's mutant filters: %q, want the player's and the hub's cases", got)
	}
	lib := mutants.Library("pingpong")
	if len(lib) != 1 {
		t.Fatalf("the toy's mutant library: %v", lib)
	}
	data, err := os.ReadFile(filepath.Base(lib[0].File))
	if err != nil || strings.Count(string(data), lib[0].Old) != 1 {
		t.Errorf("the toy's mutant's text is in its file %d times, want once (%v)", strings.Count(string(data), lib[0].Old), err)
	}
}

// The TCP variant, registered beside it, goes through the same grader: the mock hub is the
// client's server (tcp) and the server's client (connect), on the case's own loopback.
func TestToyTCPGameThroughTheCLI(t *testing.T) {
	buildtest.Long(t) // grades two whole suites
	pingpongBinary(t)
	report := filepath.Join(t.TempDir(), "reference.json")
	code, stdout, stderr := gauntlet("grade", "pingpong-tcp", "-json", report)
	if code != 0 {
		t.Errorf("grade of the reference: exit %d\n%s\n%s", code, stdout, stderr)
	}
	r := readReport(t, report)
	allVerdicts(t, r, grade.Pass)
	// Three cases of one program each, and server_and_client (a server in the background
	// and a client after it) in its three pairings.
	if len(r.Cases) != 6 {
		t.Errorf("the reference ran %d case runs, want 6: the suite's 3 single-program cases and 3 pairings of server_and_client", len(r.Cases))
	}
	// A server that never answers past its port: the mock client's cases fail it.
	silent := makeSubmission(t, filepath.Dir(report), "silent",
		`printf '#!/bin/sh\necho port 1\nsleep 5\n' > pingserve`, "chmod 755 pingserve")
	report = filepath.Join(filepath.Dir(report), "silent.json")
	if code, stdout, stderr := gauntlet("grade", "pingpong-tcp", "-json", report, silent); code != 1 {
		t.Errorf("grade of a silent server: exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	for _, c := range readReport(t, report).Cases {
		if strings.HasPrefix(c.Name(), "server_") && c.Verdict.Passed() {
			t.Errorf("a silent server passed %s", c.Name())
		}
	}
}
