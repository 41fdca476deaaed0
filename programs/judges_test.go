package programs

import (
	"testing"

	"gauntlet/harness/grading/scriptcmds"
)

// A game's own mock program (Clue's mock clients) is a judge of the cases, as the mock hub
// is, from its game's registration; the mock player, which a subject's hub runs, is not.
func TestGamesMocksAreJudges(t *testing.T) {
	for name, judge := range map[string]bool{"mockclients": true, "mockhub": true, "mockplayer": false, "clue-server": false} {
		if got := scriptcmds.IsJudge(name); got != judge {
			t.Errorf("scriptcmds.IsJudge(%q) = %v, want %v", name, got, judge)
		}
	}
}
