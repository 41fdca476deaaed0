package acceptance

import (
	"path/filepath"
	"runtime"
	"testing"

	"gauntlet/harness/grading/grade"
)

// The deliberately buggy C submission (fixtures/submissions/buggy2310, see its README) is
// built with make, and each of its bugs gets exactly its verdict: a wrong exit status for a
// bad ID (WRONG-EXIT), unpadded display rows (WRONG-STDERR), a crash at end of file (CRASH),
// and its missing dealer (BUILD-FAIL wherever their dealer is needed). Where its 2310A plays
// with the reference dealer, it passes. Its one compiler warning is counted.
func TestBuggyCSubmission(t *testing.T) {
	t.Parallel()
	_, here, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(here), "..", "fixtures", "submissions", "buggy2310")
	cases := `^(player_A_args_id_equal_count|player_A_first_move_mo_next|player_A_eof_mid_game|game_spec_example)$`
	status, rep, text := gradeRun(t, "dealer2310", "-run", cases, dir)
	if status != 1 {
		t.Errorf("exit %d, want 1\n%s", status, text)
	}
	want := map[string]grade.Verdict{
		"player_A_args_id_equal_count":              grade.WrongExit,
		"player_A_first_move_mo_next":               grade.WrongStderr,
		"player_A_eof_mid_game":                     grade.Crash,
		"game_spec_example@their-hub+ref-players":   grade.BuildFail,
		"game_spec_example@ref-hub+their-players":   grade.Pass,
		"game_spec_example@their-hub+their-players": grade.BuildFail,
	}
	got := verdicts(rep)
	for name, v := range want {
		if got[name] != v {
			t.Errorf("%s: %s, want %s", name, got[name], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d outcomes, want %d: %v", len(got), len(want), got)
	}
	b := rep.Build
	if b == nil || !b.OK || b.Warnings != 1 || len(b.Missing) != 2 {
		t.Errorf("build: %+v; want ok, 1 warning, 2310dealer and 2310B missing", b)
	}
	t.Logf("report:\n%s", text)
}
