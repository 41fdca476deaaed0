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
	"runtime"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"gauntlet/harness/scriptcmds"
	"gauntlet/programs"
)

func TestMain(m *testing.M) {
	// Most scripts spend their time waiting on their programs (the 2-second kill rule, slow
	// replies, signals a second in), so more of them run at once than there are cores. A
	// -test.parallel on the command line still wins: the flags are parsed after this. (No
	// flag.Parse here: this binary is also every program the scripts run, whose own flags
	// are not the test's.)
	flag.Set("test.parallel", strconv.Itoa(4*runtime.GOMAXPROCS(0)))
	testscript.Main(m, programs.Commands())
}

// subjects maps each script variable to the spec name of the program it defaults to.
var subjects = map[string]string{
	"DEALER": "2310dealer", "PLAYER_A": "2310A", "PLAYER_B": "2310B",
	"STLUCIA": "stlucia", "EAIT": "EAIT", "SCIENCE": "SCIENCE", "HABS": "HABS", "HASS": "HASS", "MABS": "MABS",
	"AI": "ai", "MANAGER": "stratego",
	"CLIENT": "clue-client", "SERVER": "clue-server",
	"TTT_REFEREE": "ttt-referee", "TTT_PLAYER": "ttt-player", "C4_PLAYER": "c4-player",
}

func params(dir string) testscript.Params {
	return testscript.Params{
		Dir: dir,
		Setup: func(env *testscript.Env) error {
			for v, name := range subjects {
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

func TestHarness(t *testing.T)    { testscript.Run(t, params("harness")) }
func TestStLucia(t *testing.T)    { testscript.Run(t, params("stlucia")) }
func TestDealer2310(t *testing.T) { testscript.Run(t, params("dealer2310")) }
func TestStratego(t *testing.T)   { testscript.Run(t, params("stratego")) }
func TestClue(t *testing.T)       { testscript.Run(t, params("clue")) }
func TestReferee(t *testing.T)    { testscript.Run(t, params("referee")) }
