package blackbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gauntlet/harness/box/execfile"
)

// Cases that wait on purpose (here every case has a pause, the "delay" kind) do not hold
// the campaign's busy slots: at -j 1 they are under way together. Busy cases at -j 1 are
// played one at a time. The subject, a wrapper around the reference 2310A, logs when each
// run starts and ends.
func TestWaitingCasesDoNotHoldTheBusySlots(t *testing.T) {
	t.Parallel()
	ref := refDir(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	// The subject may run as a sandbox user: the log is everyone's to write.
	if err := os.WriteFile(log, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(log, 0o666); err != nil {
		t.Fatal(err)
	}
	subject := filepath.Join(dir, "2310A")
	script := "#!/bin/sh\necho start >> '" + log + "'\n'" + filepath.Join(ref, "2310A") + "' \"$@\"\ns=$?\necho end >> '" + log + "'\nexit $s\n"
	if err := execfile.Write(subject, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	// most plays a campaign of kind's cases at -j 1 and returns how many of its subject's
	// runs were under way at once, at most.
	most := func(kind string) int {
		if err := os.Truncate(log, 0); err != nil {
			t.Fatal(err)
		}
		sum, err := Run(Options{
			Game: game(t, "dealer2310"), Vars: vars(game(t, "dealer2310")), Role: RolePlayer, RefDir: ref, InProcess: inProcess,
			Subjects: []Subject{{Path: subject, Ref: "2310A"}},
			Seed:     1, Runs: 8, Jobs: 1, Kinds: []string{kind},
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(sum.Findings) != 0 {
			t.Fatalf("%s: the reference against itself: %d findings", kind, len(sum.Findings))
		}
		data, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		under, top, starts := 0, 0, 0
		for _, line := range strings.Fields(string(data)) {
			if line == "start" {
				under++
				starts++
			} else {
				under--
			}
			top = max(top, under)
		}
		if starts < 8 {
			t.Fatalf("%s: %d runs logged their start, want at least 8:\n%s", kind, starts, data)
		}
		return top
	}
	if n := most("delay"); n < 2 {
		t.Errorf("cases with a pause, -j 1: at most %d under way at once; they held the busy slot", n)
	}
	if n := most("binary"); n != 1 {
		t.Errorf("busy cases, -j 1: %d under way at once, want 1", n)
	}
}

// A hub case waits when a mock player's rule pauses or hangs, and only then: not for the
// word in a line it sends.
func TestHubCaseWaits(t *testing.T) {
	tests := []struct {
		rules []string
		waits bool
	}{
		{[]string{"reply 2 sleep 300ms"}, true},
		{[]string{"hello sleep 200ms"}, true},
		{[]string{"after 3 exit 1", "end hang"}, true},
		{[]string{`reply 1 line "sleep"`, `reply 2 send "hang\n"`}, false},
		{[]string{"after 2 signal TERM"}, false},
		{nil, false},
	}
	for _, tc := range tests {
		c := &HubCase{Faults: [][]string{nil, tc.rules}}
		if got := c.waits(); got != tc.waits {
			t.Errorf("%q: waits %v, want %v", tc.rules, got, tc.waits)
		}
	}
}
