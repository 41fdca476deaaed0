package blackbox

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// A minimised case is described by what it plays, never by the mutation notes of the
// conversation it came from, whose steps it no longer has.
func TestWrittenDescribesTheCaseAsPlayed(t *testing.T) {
	p := &PlayerCase{Ref: "EAIT", Args: []string{"2", "A"}, Notes: []string{`boundary: step 174 "attacks D 1 in" became "attacks F 1 in"`},
		Steps: []Step{{Op: OpSend, Text: "attacks F 1 in", Await: true}, {Op: OpRaw, Text: strings.Repeat("x", 50)},
			{Op: OpSignal, Sig: syscall.SIGHUP}, {Op: OpSleep, Delay: time.Second}, {Op: OpClose}}}
	want := `player EAIT 2 A, 5 steps: send "attacks F 1 in"; send without newline "` + strings.Repeat("x", 40) + `"... (50 bytes); signal SIGHUP; sleep 1s; close`
	if got := p.Written(); got != want {
		t.Errorf("player case:\n%s\nwant\n%s", got, want)
	}
	for range writtenSteps {
		p.Steps = append(p.Steps, Step{Op: OpClose})
	}
	if got := p.Written(); !strings.HasSuffix(got, "; close; and 5 more") {
		t.Errorf("a long case: %s", got)
	}
	h := &HubCase{Setup: HubSetup{Args: []string{"x.roll", "10"}, Players: []string{"SCIENCE", "HASS"}},
		Faults: [][]string{{`reply 1 line ""`}}, Notes: []string{`garbage: p1 (SCIENCE) reply 5 line "!"`}}
	if got, want := h.Written(), `hub x.roll 10, 2 seats: p1 (SCIENCE: reply 1 line ""), p2 (HASS)`; got != want {
		t.Errorf("hub case:\n%s\nwant\n%s", got, want)
	}
}
