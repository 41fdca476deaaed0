package mockhub

import (
	"gauntlet/harness/judges/outcome"

	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gauntlet/games/dealer2310"
	"gauntlet/games/stlucia"
	"gauntlet/harness/box/execfile"
	"gauntlet/internal/buildtest"
	"gauntlet/players/dealer2310players"
	"gauntlet/players/stluciaplayers"
)

// The players of the live tests are this test binary, run with testPlayerEnv naming one.
const testPlayerEnv = "MOCKHUB_TEST_PLAYER"

func TestMain(m *testing.M) {
	if name := os.Getenv(testPlayerEnv); name != "" {
		os.Exit(testPlayers[name]())
	}
	buildtest.WaitingTests() // most cases wait on a player for a read timeout
	os.Exit(m.Run())
}

// testPlayers are players no reference is: each plays by the spec's protocol with a
// strategy of its own, legal or not.
var testPlayers = map[string]func() int{
	// Moves as far as it may: legal, and not what 2310A or 2310B would do.
	"dealer-furthest": func() int { return dealer2310players.Run(furthest, os.Args[1:], os.Stdin, os.Stdout, os.Stderr) },
	// Asks to stay where it is: a move backwards, against the rules.
	"dealer-stays": func() int {
		return dealer2310players.Run(func(g *dealer2310.Game, me int) int { return g.Player(me).Site }, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	},
	// Keeps every roll and never leaves St Lucia: legal, and no reference player's way.
	"stlucia-keeper": func() int {
		keeper := stlucia.Strategy{Name: "keeper", Reroll: func(stlucia.View) stlucia.Roll { return stlucia.Roll{} }, Retreat: func(stlucia.View) bool { return false }}
		return stluciaplayers.Run(keeper, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	},
}

func furthest(g *dealer2310.Game, me int) int {
	best := -1
	for s := range g.Path() {
		if g.CheckMove(me, s) == nil {
			best = s
		}
	}
	return best
}

// testPlayer returns a program that runs the named test player.
func testPlayer(t *testing.T, name string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name)
	script := "#!/bin/sh\n" + testPlayerEnv + "=" + name + " exec '" + self + "' \"$@\"\n"
	if err := execfile.Write(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func runLive(t *testing.T, conv, prog string) Result {
	t.Helper()
	c, err := Parse(conv)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(c, prog, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Live judging of 2310 players: a player with a legal strategy of its own plays the whole
// game and passes, where a scripted conversation (the reference's moves) would fail it; a
// player that moves backwards fails with the rule it broke and what was allowed.
func TestLiveDealer2310(t *testing.T) {
	t.Parallel() // players of its own
	dir := writeFiles(t, map[string]string{"p.path": "8;::-Ri3Do2Mo2::-V23Ri2::-\n", "d.deck": "4BDCA\n"})
	conv := "judge dealer2310 path=" + dir + "/p.path deck=" + dir + "/d.deck players=3 seat=1 others=2310A,2310B\n" +
		"args 3 1\nhello \"^\"\nlive\neof\nexit 0\n"
	if res := runLive(t, conv, testPlayer(t, "dealer-furthest")); !res.OK {
		t.Errorf("a legal player of its own strategy failed live judging:\n%s", res.Report())
	}
	res := runLive(t, conv, testPlayer(t, "dealer-stays"))
	if res.OK || !strings.Contains(res.Report(), "breaks the rule: "+dealer2310.RuleMoveForward) ||
		!strings.Contains(res.Report(), "a line the rules allow: one of DO") {
		t.Errorf("a player moving backwards: want a failure naming %q and the moves allowed:\n%s", dealer2310.RuleMoveForward, res.Report())
	}
	// A live judge's breach is a divergence for the grader, whatever the rule's words.
	if k := res.Record().Kind; k != outcome.Diverged {
		t.Errorf("a player moving backwards: record of kind %s, want %s", k, outcome.Diverged)
	}
	t.Logf("the backward player's report:\n%s", res.Report())
}

// Live judging of St Lucia players: the same, with a player that keeps every roll (legal)
// and one that rerolls a third time (illegal).
func TestLiveStLucia(t *testing.T) {
	t.Parallel() // players of its own; one waits out a read timeout
	dir := writeFiles(t, map[string]string{"x.roll": "HAHPPPPPPPP1233331111\n"})
	conv := "judge stlucia rolls=" + dir + "/x.roll winscore=10 players=2 seat=B others=EAIT\n" +
		"args 2 B\nhello \"!\"\nlive\neof\nexit 0\n"
	if res := runLive(t, conv, testPlayer(t, "stlucia-keeper")); !res.OK {
		t.Errorf("a legal player of its own strategy failed live judging:\n%s", res.Report())
	}
	rerolls := player(t, `printf '!'
while read kind rest; do
  case "$kind" in
    turn|rerolled) echo "reroll $rest";;
    stay?) echo stay;;
    winner|shutdown) exit 0;;
  esac
done
exit 4
`)
	res := runLive(t, conv, rerolls)
	if res.OK || !strings.Contains(res.Report(), "breaks the rule: "+stlucia.RuleRerollLimit) {
		t.Errorf("a player that rerolls a third time: want a failure naming %q:\n%s", stlucia.RuleRerollLimit, res.Report())
	}
	// A live player that says nothing where its move is due: silent, for the grader.
	c, err := Parse(conv)
	if err != nil {
		t.Fatal(err)
	}
	res, err = Run(c, player(t, `printf '!'; sleep 30`), Options{StepTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK || res.Record().Kind != outcome.Silent {
		t.Errorf("a silent live player: record %+v, want %s:\n%s", res.Record(), outcome.Silent, res.Report())
	}
}

// Live play mixes with scripted steps: play three of the player's lines live, then a
// malformed message; the reference 2310A must then exit with a communications error.
func TestLiveThenScripted(t *testing.T) {
	dir := writeFiles(t, map[string]string{"p.path": "8;::-Ri3Do2Mo2::-V23Ri2::-\n", "d.deck": "4BDCA\n"})
	conv := "judge dealer2310 path=" + dir + "/p.path deck=" + dir + "/d.deck players=2 seat=0 others=2310B\n" +
		"args 2 0\nhello \"^\"\nlive 2\nsend \"HAP9\"\nexit 6\n"
	if res := runLive(t, conv, testPlayer(t, "dealer-furthest")); !res.OK {
		t.Errorf("two live lines then a malformed message:\n%s", res.Report())
	}
}
