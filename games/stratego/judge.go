package stratego

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"gauntlet/games/judge"
)

// Seats in the judge shape: RED is seat 0, BLUE seat 1 (the Colour values).

// NewJudge returns the manager's side of a game between two AIs named names (by colour),
// in the shape every game offers (games/judge). It asks RED then BLUE for a setup, then
// sends each mover its query (START or the opponent's confirmation) and its view, takes its
// move, confirms it to the mover, and at the end tells both QUIT and their word. Its Log
// line, at the end, is the result line. A line that breaks a rule is a violation whose
// Status is 0 (the manager exits 0 whatever the outcome), with the game ended as ILLEGAL or
// BAD_SETUP for that side. A bad setup of RED is a violation at once, but the game goes on
// to ask BLUE for its setup, as the 2012 manager did (Begin), and ends after it.
func NewJudge(names [2]string, turnLimit int) judge.Judge {
	return &managerJudge{names: names, limit: turnLimit, awaiting: -1}
}

type managerJudge struct {
	names    [2]string
	limit    int
	answers  [2][]string // the setup rows each side sent
	g        *Game
	awaiting int // the seat awaited, or -1
	over     bool
}

func (j *managerJudge) Seats() int              { return 2 }
func (j *managerJudge) Welcome(int) []judge.Out { return nil }
func (j *managerJudge) Awaiting() int           { return j.awaiting }
func (j *managerJudge) Over() bool              { return j.over }

// Start asks RED for its setup.
func (j *managerJudge) Start() []judge.Out { return j.askSetup(Red) }

func (j *managerJudge) askSetup(c Colour) []judge.Out {
	j.awaiting = int(c)
	return []judge.Out{{To: int(c), Line: fmt.Sprintf("%s %s %d %d", c, j.names[c.Other()], Size, Size)}}
}

// turn sends the side to move its query and its view.
func (j *managerJudge) turn(query string) []judge.Out {
	c := j.g.Turn()
	j.awaiting = int(c)
	outs := []judge.Out{{To: int(c), Line: query}}
	for _, row := range j.g.View(c) {
		outs = append(outs, judge.Out{To: int(c), Line: row})
	}
	return outs
}

func (j *managerJudge) Allowed() string {
	switch {
	case j.awaiting < 0:
		return "nothing"
	case j.g == nil:
		return fmt.Sprintf("setup row %d of 4: 10 piece characters", len(j.answers[j.awaiting])+1)
	}
	moves := ViewMoves(j.g.View(j.g.Turn()))
	show := make([]string, 0, 6)
	for i, m := range moves {
		if i == 5 {
			show = append(show, fmt.Sprintf("... (%d moves)", len(moves)))
			break
		}
		show = append(show, m.String())
	}
	return "a legal move (" + strings.Join(show, ", ") + ") or SURRENDER"
}

// Take feeds the awaited side's line.
func (j *managerJudge) Take(line string) ([]judge.Out, *judge.Violation) {
	c := Colour(j.awaiting)
	line = strings.TrimSuffix(line, "\r") // tolerated, as the reference manager does
	if j.g == nil {
		j.answers[c] = append(j.answers[c], line)
		if len(j.answers[c]) < SetupRows {
			return nil, nil
		}
		var v *judge.Violation
		if _, err := ParseSetup(j.answers[c]); err != nil {
			v = &judge.Violation{Seat: int(c), Line: line, Rule: Rule(err)}
		}
		if c == Red {
			return j.askSetup(Blue), v
		}
		j.g, _ = Begin(j.answers, j.limit)
		if over, _, _ := j.g.Over(); over {
			return j.end(), v
		}
		return j.turn("START"), v
	}
	m, err := ParseMove(line)
	if err == nil {
		err = j.g.Check(m)
	}
	if err != nil {
		j.g.Forfeit(c, Illegal, MoveReason(line, err))
		return j.end(), &judge.Violation{Seat: int(c), Line: line, Rule: Rule(err)}
	}
	conf, _ := j.g.Play(m)
	outs := []judge.Out{}
	if !m.Surrender {
		outs = append(outs, judge.Out{To: int(c), Line: conf.String()})
	}
	if over, _, _ := j.g.Over(); over {
		return append(outs, j.end()...), nil
	}
	return append(outs, j.turn(conf.String())...), nil
}

// Abort ends the game as an internal error (a side lost for a reason not its own).
func (j *managerJudge) Abort() []judge.Out {
	if j.g == nil { // during the setups: the pieces placed so far stay, as in Begin
		var s [2]Setup
		for c := range j.answers {
			s[c], _ = ParseSetup(j.answers[c])
		}
		j.g = New(s[Red], s[Blue], j.limit)
		j.g.endIn(0, Internal, Colour(max(j.awaiting, 0))) // no turn began: 0, as BAD_SETUP
		j.g.reason = "the game was aborted during the setups"
	} else if over, _, _ := j.g.Over(); !over {
		j.g.Forfeit(Colour(max(j.awaiting, 0)), Internal, "the game was aborted")
	}
	return j.end()
}

// end tells both sides QUIT and their word, and logs the result line.
func (j *managerJudge) end() []judge.Out {
	j.over, j.awaiting = true, -1
	return []judge.Out{
		{To: int(Red), Line: "QUIT " + j.g.EndWord(Red)},
		{To: int(Blue), Line: "QUIT " + j.g.EndWord(Blue)},
		{To: judge.Log, Line: j.g.Result(j.names)},
	}
}

// Rule is the rule err breaks: a FormatError's or a MoveError's Rule, else its text.
func Rule(err error) string {
	var fe *FormatError
	var me *MoveError
	switch {
	case errors.As(err, &fe):
		return fe.Rule
	case errors.As(err, &me):
		return me.Rule
	}
	return err.Error()
}

// MoveReason is the reason of an ILLEGAL end for a move line that breaks a rule: the line
// quoted, then the rule (Game.Forfeit).
func MoveReason(line string, err error) string {
	return strconv.Quote(line) + ": " + Rule(err)
}

// SetupReason is the reason of side c's BAD_SETUP for its answer rows and their error: the
// rule, and the rows quoted when it sent all four.
func SetupReason(c Colour, rows []string, err error) string {
	if len(rows) != SetupRows {
		return fmt.Sprintf("%s: %d setup rows of 4", c, len(rows))
	}
	return fmt.Sprintf("%s: %s: %s", c, strconv.Quote(strings.Join(rows, "|")), Rule(err))
}
