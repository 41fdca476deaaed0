package blackbox

import (
	"fmt"

	"gauntlet/fuzz/pipegame"
)

// The fuzzer's names for what a game's adapter gives it (fuzz/pipegame), which its
// options and cases carry.
type (
	Game     = pipegame.Game
	Role     = pipegame.Role
	HubSetup = pipegame.HubSetup
)

// The roles.
const (
	RolePlayer = pipegame.RolePlayer
	RoleHub    = pipegame.RoleHub
)

// scriptVar is the suite variable of a program of game g ("2310A" -> "PLAYER_A"), from vars
// (Options.Vars: the grader's table of the game's programs, the one place that maps them).
// A program the table does not have is the fuzzer's own mistake.
func scriptVar(g Game, vars func(program string) (string, bool), program string) string {
	if v, ok := vars(program); ok {
		return v
	}
	panic(fmt.Sprintf("blackbox: %s has no program %q", g.Name(), program))
}
