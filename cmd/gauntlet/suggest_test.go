package main

import (
	"strings"
	"testing"
)

func TestDidYouMean(t *testing.T) {
	for _, tc := range []struct{ typed, want string }{
		{"grdae", " (did you mean grade?)"},
		{"stlucai", " (did you mean stlucia?)"},
		{"dealer", ""}, // too far from dealer2310 to guess
		{"xyz", ""},
		{"grade", ""},
	} {
		known := append([]string{"stlucia", "dealer2310", "clue"}, commands...)
		if got := didYouMean(tc.typed, known); got != tc.want {
			t.Errorf("didYouMean(%q) = %q, want %q", tc.typed, got, tc.want)
		}
	}
	// Through the CLI: a mistyped command and a mistyped game.
	if code, _, stderr := gauntlet("grdae"); code != 2 || !strings.Contains(stderr, "did you mean grade?") {
		t.Errorf("gauntlet grdae: exit %d, stderr %.80q", code, stderr)
	}
	if code, _, stderr := gauntlet("grade", "stlucai"); code != 2 || !strings.Contains(stderr, "did you mean stlucia?") {
		t.Errorf("gauntlet grade stlucai: exit %d, stderr %.80q", code, stderr)
	}
}
