package stratego

import (
	"slices"
	"strings"
	"testing"
	"time"

	"gauntlet/games/judge"
)

// The 2012 manager's -o log at an end by RED's first answer, and what it sent under -i:
// every want below was measured on the real 2012 manager (RED an AI with these setup rows
// answering the line given, BLUE the random AI with seed 2, whose setup is blueRows).
var blueRows = []string{"BB99674BF9", "6896259889", "7B1967s8B7", "534B453985"}

// managerRecord runs the manager's judge with opts over RED's setup (tableSetup) and
// BLUE's (blueRows), then feeds RED's answers (nil: a lost line, as silence or end of file
// with timeout), and returns the record and what RED and BLUE were sent after the setups.
func managerRecord(t *testing.T, opts ManagerOptions, timeout bool, answers ...*string) (record []string, sent [2][]string) {
	t.Helper()
	opts.Record = true
	j := NewManager([2]string{"./red", "./blue"}, opts)
	take := func(outs []judge.Out) {
		for _, o := range outs {
			switch {
			case o.To == judge.Record:
				record = append(record, strings.Split(o.Line, "\n")...)
			case o.To >= 0:
				sent[o.To] = append(sent[o.To], o.Line)
			}
		}
	}
	take(j.Start())
	for _, rows := range [][]string{tableSetup, blueRows} {
		for _, r := range rows {
			outs, _ := j.Take(r)
			take(outs)
		}
	}
	sent = [2][]string{}
	for _, a := range answers {
		if j.Over() {
			t.Fatalf("the game is over before %v", a)
		}
		if a == nil {
			take(j.Lose(judge.Lost{Timeout: timeout, Why: "lost"}))
			continue
		}
		outs, _ := j.Take(*a)
		take(outs)
	}
	return record, sent
}

func TestLogAsThe2012Manager(t *testing.T) {
	head := []string{"./red RED SETUP", "123344455s", "5566667777", "8888899999", "999BBBBBBF",
		"./blue BLUE SETUP", "BB99674BF9", "6896259889", "7B1967s8B7", "534B453985"}
	line := func(s string) *string { return &s }
	tests := []struct {
		name    string
		answer  *string
		timeout bool
		tail    []string // the log after the setup blocks, without the result line
	}{
		{"a bomb", line("3 3 DOWN"), false, []string{"1 RED: 3 3 DOWN ILLEGAL", "Game ends on RED's turn - REASON: Selected piece is not mobile (FLAG or BOMB)"}},
		{"a malformed line", line("UP UP AND AWAY"), false, []string{"1 RED: UP UP AND AWAY", "Game ends on RED's turn - REASON: Unintelligable response"}},
		{"an empty line", line(""), false, []string{"1 RED: ", "Game ends on RED's turn - REASON: Unintelligable response"}},
		{"a surrender", line("SURRENDER"), false, []string{"1 RED: SURRENDER OK", "Game ends on RED's turn - REASON: This player has surrendered!"}},
		{"end of file", nil, false, []string{"1 RED: ", "Game ends on RED's turn - REASON: Unintelligable response"}},
		{"a timeout", nil, true, []string{"1 RED: ", "Game ends on RED's turn - REASON: Response timeout after 0.500000 seconds."}},
		{"onto its own piece", line("0 0 RIGHT"), false, []string{"1 RED: 0 0 RIGHT ILLEGAL", "Game ends on RED's turn - REASON: Attempted move into square occupied by neutral or allied piece"}},
		{"into a lake", line("2 3 DOWN"), false, []string{"1 RED: 2 3 DOWN ILLEGAL", "Game ends on RED's turn - REASON: Attempted move into square occupied by neutral or allied piece"}},
		{"off the board", line("0 0 UP"), false, []string{"1 RED: 0 0 UP ILLEGAL", "Game ends on RED's turn - REASON: Selected unit cannot move that way"}},
		{"an enemy piece", line("0 6 UP"), false, []string{"1 RED: 0 6 UP ILLEGAL", "Game ends on RED's turn - REASON: Selected piece belongs to other player"}},
		{"an empty square", line("0 5 UP"), false, []string{"1 RED: 0 5 UP ILLEGAL", "Game ends on RED's turn - REASON: Move does not select a piece"}},
		{"a multiplier for a non-scout", line("1 0 DOWN 2"), false, []string{"1 RED: 1 0 DOWN 2 ILLEGAL", "Game ends on RED's turn - REASON: Selected unit cannot move that way"}},
	}
	for _, tc := range tests {
		record, _ := managerRecord(t, ManagerOptions{Timeout: 500 * time.Millisecond}, tc.timeout, tc.answer)
		if want := append(slices.Clone(head), tc.tail...); !slices.Equal(record, want) {
			t.Errorf("%s: the log is\n%s\nthe 2012 manager's\n%s", tc.name, strings.Join(record, "\n"), strings.Join(want, "\n"))
		}
	}
}

// Under -i, the 2012 manager echoed a malformed line as it came, and an illegal move with
// ILLEGAL after it, to the mover and as the opponent's next query; the log has them so.
func TestIgnoredLinesAsThe2012Manager(t *testing.T) {
	for _, tc := range []struct{ answer, echo string }{
		{"UP UP AND AWAY", "UP UP AND AWAY"},
		{"3 3 DOWN", "3 3 DOWN ILLEGAL"},
		{"", ""},
	} {
		a := tc.answer
		record, sent := managerRecord(t, ManagerOptions{IgnoreIllegal: true}, false, &a)
		if len(sent[Red]) != 1 || sent[Red][0] != tc.echo || len(sent[Blue]) != 11 || sent[Blue][0] != tc.echo || record[len(record)-1] != "1 RED: "+tc.echo {
			t.Errorf("%q: RED was sent %q, BLUE %q, the log ends %q; want %q", tc.answer, sent[Red], sent[Blue][:1], record[len(record)-1], tc.echo)
		}
	}
}
