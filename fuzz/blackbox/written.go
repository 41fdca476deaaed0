package blackbox

import (
	"fmt"
	"strconv"
	"strings"

	"gauntlet/harness/judges/faults"
)

// The summary describes a minimised case as it is written in its regression file, by what
// it does: its Notes are the mutations made to the conversation it came from, by the steps
// of that conversation, which minimising removes, never by the steps of the conversation
// it came from ("1 steps; boundary: step 174 ... became ..." for a case of one step).

// writtenSteps is at most how many steps Written lists.
const writtenSteps = 6

// Written describes the case by its steps as they are played.
func (c *PlayerCase) Written() string {
	var steps []string
	for i, st := range c.Steps {
		if i == writtenSteps {
			steps = append(steps, fmt.Sprintf("and %d more", len(c.Steps)-i))
			break
		}
		switch st.Op {
		case OpSend:
			steps = append(steps, "send "+clipQuote(st.Text))
		case OpRaw:
			steps = append(steps, "send without newline "+clipQuote(st.Text))
		case OpClose:
			steps = append(steps, "close")
		case OpSignal:
			steps = append(steps, "signal SIG"+faults.SignalWord(st.Sig))
		case OpSleep:
			steps = append(steps, "sleep "+st.Delay.String())
		}
	}
	return fmt.Sprintf("player %s %s, %s: %s", c.Ref, strings.Join(c.Args, " "), plural(len(c.Steps), "step"), strings.Join(steps, "; "))
}

// Written describes the case by its seats and each seat's faults as they are played.
func (c *HubCase) Written() string {
	var seats []string
	for i, p := range c.Setup.Players {
		seat := seatName(i) + " (" + p
		if i < len(c.Faults) && len(c.Faults[i]) > 0 {
			seat += ": " + strings.Join(c.Faults[i], "; ")
		}
		seats = append(seats, seat+")")
	}
	return fmt.Sprintf("hub %s, %s: %s", strings.Join(c.Setup.Args, " "), plural(len(c.Setup.Players), "seat"), strings.Join(seats, ", "))
}

// clipQuote quotes s, cut to 40 bytes with its length said when longer.
func clipQuote(s string) string {
	if len(s) <= 40 {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%s... (%d bytes)", strconv.Quote(s[:40]), len(s))
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// written describes a minimised case as written (Written).
func written(c shrinker) string {
	switch c := c.(type) {
	case *PlayerCase:
		return c.Written()
	case *HubCase:
		return c.Written()
	}
	return ""
}
