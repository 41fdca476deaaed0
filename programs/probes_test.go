package programs

import (
	"testing"

	"gauntlet/harness/judges/mockhub"
	"gauntlet/judges/refereejudges"
)

// The referee protocol's registration teaches the mock hub its probe: every binary that
// links this package (the gauntlet binary, whose mock hub the suites and gauntlet fuzz
// referee run) reads a conversation's `referee` line.
func TestRefereeProbeIsRegistered(t *testing.T) {
	c, err := mockhub.Parse("referee check=all mutate=1 seed=5\n")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Probe.Spec.(*refereejudges.Spec); c.Probe.Word != "referee" || !ok {
		t.Errorf("probe %+v, want the referee probe", c.Probe)
	}
	if got, want := c.Format(), "referee check=all games=1 mutate=1 seed=5 sessions=400 time=12s\n"; got != want {
		t.Errorf("format %q, want %q", got, want)
	}
}
