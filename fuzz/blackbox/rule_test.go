package blackbox

import (
	"strings"
	"syscall"
	"testing"

	"gauntlet/fuzz/record"
)

// ruleOf names the rule from what the reference did: its exit status's row, the message of a
// row, or the kind of line it wrote.
func TestRuleOf(t *testing.T) {
	d := game(t, "dealer2310")
	s := game(t, "stlucia")
	tests := []struct {
		g      Game
		role   Role
		sig    Signature
		ref    record.Exit
		id     string
		prefix string
	}{
		{d, RolePlayer, Signature{Kind: KindWrongExit, Where: `stderr: want "Communications error", got EOF`}, record.Exit{Code: 6},
			"player/exit-6", "Communications error: exit 6 with \"Communications error\""},
		{d, RolePlayer, Signature{Kind: KindCrash}, record.Exit{Code: 0}, "player/exit-0", "Normal end: exit 0"},
		{d, RolePlayer, Signature{Kind: KindTimeout}, record.Exit{Signal: syscall.SIGINT}, "player/signal-SIGINT", "die of SIGINT"},
		{d, RoleHub, Signature{Kind: KindWrongExit}, record.Exit{Code: 77}, "hub/exit-77", "exit with status 77"},
		{d, RolePlayer, Signature{Kind: KindWrongStderr, Where: `stderr: want "Early game over", got "x"`}, record.Exit{Code: 5},
			"player/exit-5", "Early game over: exit 5"},
		{d, RolePlayer, Signature{Kind: KindWrongStderr, Where: `stderr: want "1  0     ", got "1 0"`}, record.Exit{}, "player/stderr/display", "the path display"},
		{d, RolePlayer, Signature{Kind: KindWrongStderr, Where: `stderr: want ":: Mo ", got ""`}, record.Exit{}, "player/stderr/display", "the path display"},
		{d, RoleHub, Signature{Kind: KindWrongStdout, Where: `stdout: want "Player 1 Money=7 V1=0...(70 bytes)", got "x"`}, record.Exit{}, "hub/stdout/status", "after each move"},
		{d, RolePlayer, Signature{Kind: KindWrongStdout, Where: `stdout: want "DO3", got "DO4"`}, record.Exit{}, "player/stdout/move", "on YT"},
		{d, RolePlayer, Signature{Kind: KindWrongStderr, Where: `stderr: want EOF, got "Player 0"`}, record.Exit{}, "player/stderr/end", "nothing more on stderr"},
		{s, RolePlayer, Signature{Kind: KindWrongStderr, Where: `stderr: want "From StLucia:turn 11HAAP", got "x"`}, record.Exit{}, "player/stderr/echo", "every line from the hub echoed"},
		{s, RolePlayer, Signature{Kind: KindWrongStdout, Where: `stdout: want "reroll 11", got "keepall"`}, record.Exit{}, "player/stdout/dice", "on turn and rerolled"},
		{s, RoleHub, Signature{Kind: KindWrongStderr, Where: `stderr: want "Player A rolled 123333", got "x"`}, record.Exit{}, "hub/stderr/report", "the hub's account"},
		{s, RoleHub, Signature{Kind: KindWrongStderr, Where: `stderr: want "Whatever else", got "x"`}, record.Exit{}, "hub/stderr/Whatever", "the stderr line the reference writes there"},
	}
	for _, tc := range tests {
		r := ruleOf(tc.g, tc.role, tc.sig, tc.ref)
		if r.ID != tc.id || len(r.Words) < len(tc.prefix) || r.Words[:len(tc.prefix)] != tc.prefix {
			t.Errorf("%s %s %v: [%s] %q, want [%s] %q...", tc.g.Name(), tc.sig.Where, tc.ref, r.ID, r.Words, tc.id, tc.prefix)
		}
	}
}

// The line a reference player refused is named by the engine's own error, and refines an
// exit rule: two malformed lines that end the player the same way are two rules.
func TestRefusal(t *testing.T) {
	d, s := game(t, "dealer2310"), game(t, "stlucia")
	path := "7;::-Mo1V11V22Mo1Mo1::-"
	tests := []struct {
		g     Game
		prog  string
		args  []string
		lines []string
		want  string
	}{
		{d, "2310A", []string{"2", "0"}, []string{path, "HAP0,1,0, 0,0"}, "a number is decimal digits without leading zeros (m may start with '-')"},
		{d, "2310A", []string{"2", "0"}, []string{path, "HAP0,1,0,0"}, "HAP carries five comma-separated fields"},
		{d, "2310A", []string{"2", "0"}, []string{path, "HAP5,1,0,0,0"}, "HAP: the player exists"},
		{d, "2310A", []string{"2", "0"}, []string{"7;::-Mo1"}, "the path holds as many sites as its count says"},
		{d, "2310A", []string{"2", "0"}, []string{path, "EARLY"}, ""},
		{d, "2310A", []string{"2", "9"}, []string{path, "HAP0,1,0, 0,0"}, ""},
		{s, "EAIT", []string{"2", "B"}, []string{"rolled A 123333", "points C 1"}, "a message names only players of the game"},
		{s, "EAIT", []string{"2", "B"}, []string{"turn 11HAAPX"}, "dice are six faces from 123HAP in increasing order"},
		{s, "EAIT", []string{"2", "B"}, []string{"shutdown", "garbage"}, ""},
	}
	for _, tc := range tests {
		got := tc.g.Refusal(tc.prog, tc.args, tc.lines)
		if !strings.HasPrefix(got, tc.want) || (tc.want == "") != (got == "") {
			t.Errorf("%s %v %q: %q, want %q", tc.prog, tc.args, tc.lines, got, tc.want)
		}
	}
	r := refined(Rule{ID: "player/exit-6", Words: "Communications error: exit 6"}, "HAP carries five comma-separated fields")
	if r.ID != "player/exit-6/hap-carries-five-comma-separated-fields" || !strings.HasSuffix(r.Words, "; the line it refused breaks: HAP carries five comma-separated fields") {
		t.Errorf("refined: %+v", r)
	}
}
