package scriptcmds

import "testing"

func TestUnboxedCommand(t *testing.T) {
	for _, tc := range []struct{ script, want string }{
		{"run $STLUCIA x\n", ""},
		{"# exec in a comment\nrun sh -c 'exec cat'\n", ""},
		{"run $STLUCIA\n-- p.sh --\nexec cat >/dev/null\n", ""}, // a file's body, not a command
		{"exec $STLUCIA x\n", "exec $STLUCIA x"},
		{"  ! exec $STLUCIA\n", "! exec $STLUCIA"},
		{"[unix] ? exec sh -c 'exit 0'\n", "[unix] ? exec sh -c 'exit 0'"},
		{"[!windows] [unix] exec $EAIT\n", "[!windows] [unix] exec $EAIT"},
	} {
		if got := UnboxedCommand([]byte(tc.script)); got != tc.want {
			t.Errorf("UnboxedCommand(%q) = %q, want %q", tc.script, got, tc.want)
		}
	}
}
