// Package testscripts runs the conformance suites: one folder of .txtar scripts per game.
//
// Scripts name the programs under test through variables ($DEALER, $PLAYER_A, $STLUCIA,
// $EAIT, ...). Under `go test` they are the reference programs, registered with testscript
// so that they are found in PATH by the names the specs give them. Setting GAUNTLET_<VAR>
// (e.g. GAUNTLET_DEALER=/path/to/2310dealer) points a variable at another program.
package testscripts

import (
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"gauntlet/harness/grading/grade"
	"gauntlet/harness/grading/scriptcmds"
	"gauntlet/programs"
)

func TestMain(m *testing.M) {
	// Every script starts at once, and busySlots decides which compute: the scripts that
	// wait on purpose run beside them instead of holding a slot a busy one needs. (No
	// flag.Parse here: this binary is also every program the scripts run, whose own flags
	// are not the test's. A -test.parallel on the command line still wins.)
	flag.Set("test.parallel", "1000")
	testscript.Main(m, programs.Commands())
}

// busySlots bounds the scripts that compute at once: four per core, for a script's
// programs spend part of their time waiting on each other's lines. The scripts that wait
// on purpose (grade.Case.Waits: a mock told to sleep or hang, a signal sent after a
// delay, a mock hub's pauses) take none, as the grader runs them: started first among
// the others, they used to start wherever the test runner's order put them, and a suite
// whose last cases were its slow ones ended seconds after its work did. (The time go test
// -v shows for a script includes its wait for a slot.)
var busySlots = make(chan struct{}, 4*runtime.GOMAXPROCS(0))

// waitingScripts names the scripts of every graded game's suite that wait on purpose, as
// "game/script".
var waitingScripts = sync.OnceValues(func() (map[string]bool, error) {
	vars := map[string]bool{}
	for v := range subjects() {
		vars[v] = true
	}
	waits := map[string]bool{}
	for _, game := range programs.GradeGames() {
		cases, err := grade.LoadCases(FS, game, vars)
		if err != nil {
			return nil, err
		}
		for _, c := range cases {
			if c.Waits {
				waits[game+"/"+c.ID] = true
			}
		}
	}
	return waits, nil
})

// takeSlot makes a script that computes wait for one of busySlots, given back when the
// script ends.
func takeSlot(env *testscript.Env, dir string) error {
	busy, err := computes(dir, env.WorkDir)
	if err != nil || !busy {
		return err
	}
	busySlots <- struct{}{}
	env.Defer(func() { <-busySlots })
	return nil
}

// computes reports whether the script that runs in workDir (testscript's "script-NAME"),
// of the suite in folder dir, computes rather than waits on purpose.
func computes(dir, workDir string) (bool, error) {
	waits, err := waitingScripts()
	if err != nil {
		return false, err
	}
	return !waits[dir+"/"+strings.TrimPrefix(filepath.Base(workDir), "script-")], nil
}

// A script that waits on purpose takes no slot, and one that computes does: checked on
// testscript's own work folders, so that a change of their names cannot make every script
// look busy (or idle) unnoticed.
func TestScriptsThatWaitTakeNoSlot(t *testing.T) {
	dir := t.TempDir()
	want := map[string]bool{"hub_slow_reply": false, "hub_kill_player_that_stays": false, "game_6_players": true, "hub_args_usage_none": true}
	for name := range want {
		if err := os.WriteFile(filepath.Join(dir, name+".txtar"), []byte("# only a comment\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	got := map[string]bool{}
	// In a subtest, which ends only when its scripts (parallel subtests) have.
	t.Run("scripts", func(t *testing.T) {
		testscript.Run(t, testscript.Params{Dir: dir, Setup: func(env *testscript.Env) error {
			busy, err := computes("stlucia", env.WorkDir)
			mu.Lock()
			got[strings.TrimPrefix(filepath.Base(env.WorkDir), "script-")] = busy
			mu.Unlock()
			return err
		}})
	})
	for name, busy := range want {
		if b, ok := got[name]; !ok || b != busy {
			t.Errorf("%s: computes %v (seen: %v), want %v", name, b, ok, busy)
		}
	}
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
			if err := takeSlot(env, dir); err != nil {
				return err
			}
			for v, name := range subjects() {
				if p := os.Getenv("GAUNTLET_" + v); p != "" {
					name = p
				}
				// By its path, as the grader passes a program (and a course its ./2310A):
				// a subject's PATH is the system's, which does not hold this test's
				// programs (child.SubjectEnv).
				if !strings.Contains(name, "/") {
					if p, err := lookPathIn(name, env.Getenv("PATH")); err == nil {
						name = p
					}
				}
				env.Setenv(v, name)
			}
			// The mock player by its path too, as the grader publishes it (a case that
			// copies a player tells the mock player apart by it).
			var set scriptcmds.Settings
			if p, err := lookPathIn("mockplayer", env.Getenv("PATH")); err == nil {
				set.MockPlayer = p
			}
			return set.Setup(env)
		},
		Cmds:                scriptcmds.Commands(),
		RequireExplicitExec: true,
	}
}

// TestHarness runs the cases about the harness's own script commands.
func TestHarness(t *testing.T) { testscript.Run(t, params("harness")) }

// TestSuites runs every graded game's suite against the reference programs: one subtest
// per game (go test ./testscripts -run TestSuites/stlucia). The games run side by side, so
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

// lookPathIn finds the executable file name in the folders of path.
func lookPathIn(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", os.ErrNotExist
}
