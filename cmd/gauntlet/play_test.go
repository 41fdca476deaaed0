package main

import (
	"strings"
	"testing"

	"gauntlet/internal/buildtest"
)

// As root, play with HUB-ARGS says on stderr that the programs named there run as root,
// without a box; with the built-in example (only reference programs) it says nothing of it.
func TestPlayNotesUnboxedProgramsAsRoot(t *testing.T) {
	buildtest.NeedRoot(t, "the note is for root")
	const note = "as root, the programs HUB-ARGS names run as root, without a box"
	if _, _, stderr := gauntlet("play", "stlucia", "--", "x.roll"); !strings.Contains(stderr, note) {
		t.Errorf("play with HUB-ARGS: no note on stderr:\n%s", stderr)
	}
	if code, _, stderr := gauntlet("play", "stlucia"); code != 0 || strings.Contains(stderr, note) {
		t.Errorf("play of the example: exit %d, stderr:\n%s", code, stderr)
	}
}
