// Package conformance runs the conformance suites: one folder of .txtar scripts per game.
//
// Scripts name the programs under test through variables ($DEALER, $PLAYER_A, $STLUCIA,
// $EAIT, ...). Under `go test` they are the reference programs, registered with testscript
// so that they are found in PATH by the names the specs give them. Setting GAUNTLET_<VAR>
// (e.g. GAUNTLET_DEALER=/path/to/2310dealer) points a variable at another program.
package conformance

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"gauntlet/harness/buildtest"
	"gauntlet/harness/scriptcmds"
	"gauntlet/programs"
)

func TestMain(m *testing.M) {
	// Most scripts spend their time waiting on their programs (the 2-second kill rule, slow
	// replies, signals a second in), so more of them run at once than there are cores. (No
	// flag.Parse here: this binary is also every program the scripts run, whose own flags
	// are not the test's.)
	buildtest.WaitingTests()
	testscript.Main(m, programs.Commands())
}

// subjects maps each script variable to the spec name of the program it defaults to: every
// graded game's variables, from the one table of its programs (programs.GradeGame).
func subjects() map[string]string {
	m := map[string]string{}
	for _, name := range programs.GradeGames() {
		g, _ := programs.GradeGame(name)
		for _, p := range g.Programs {
			m[p.Var] = p.Name
		}
	}
	return m
}

func params(dir string) testscript.Params {
	return testscript.Params{
		Dir: dir,
		Setup: func(env *testscript.Env) error {
			for v, name := range subjects() {
				if p := os.Getenv("GAUNTLET_" + v); p != "" {
					name = p
				}
				env.Setenv(v, name)
			}
			return scriptcmds.Setup(env)
		},
		Cmds:                scriptcmds.Commands(),
		RequireExplicitExec: true,
	}
}

// TestHarness runs the cases about the harness's own script commands.
func TestHarness(t *testing.T) { testscript.Run(t, params("harness")) }

// TestSuites runs every graded game's suite against the reference programs: one subtest
// per game (go test ./conformance -run TestSuites/stlucia). The games run side by side, so
// that one game's cases that wait (kill rules, slow replies) overlap with the others' work.
func TestSuites(t *testing.T) {
	for _, game := range programs.GradeGames() {
		t.Run(game, func(t *testing.T) {
			t.Parallel()
			testscript.Run(t, params(game))
		})
	}
}

// Every graded game has a suite folder, and every suite folder is a graded game (or the
// harness's own): a game registered without its cases, or cases without their game, fail.
func TestEverySuiteHasItsGame(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	folders := map[string]bool{}
	for _, e := range entries {
		if e.IsDir() && e.Name() != "harness" {
			folders[e.Name()] = true
		}
	}
	for _, game := range programs.GradeGames() {
		if !folders[game] {
			t.Errorf("game %s has no suite folder", game)
		}
		delete(folders, game)
	}
	for f := range folders {
		t.Errorf("suite folder %s belongs to no graded game", f)
	}
}
