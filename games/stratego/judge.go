package stratego

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

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
	return NewManager(names, ManagerOptions{TurnLimit: turnLimit})
}

// ManagerOptions are the manager's rules that its flags change.
type ManagerOptions struct {
	TurnLimit int // -m: the turn limit (0: DefaultTurnLimit; NoTurnLimit: none)
	// IgnoreIllegal (-i): an illegal or malformed move is not made; the mover is told
	// "<its line> ILLEGAL", which is also its opponent's next query, and the turn passes.
	IgnoreIllegal bool
	// Record makes the judge write the game's record (judge.Record), the manager's -o log
	// as the 2012 manager wrote it: the setup blocks, a line a move ("1 RED: 5 3 DOWN 2 OK"),
	// and the line saying on whose turn and why the game ended (log.go).
	Record bool
	// Timeout is the time a line is due in, which the record's reason for a silence names
	// ("Response timeout after 2.000000 seconds.").
	Timeout time.Duration
}

// NewManager is NewJudge with the manager's options; the reference manager (hub/strategohub)
// runs it. It is also a judge.Loser: a line not had in time (or end of file) is ILLEGAL for
// that side during the game, and during the setups an incomplete setup whose account
// names the silence, BLUE still being asked.
func NewManager(names [2]string, o ManagerOptions) *Manager {
	return &Manager{names: names, limit: o.TurnLimit, opts: o, awaiting: -1}
}

// Manager is the manager's judge (NewManager).
type Manager = managerJudge

type managerJudge struct {
	names    [2]string
	limit    int
	opts     ManagerOptions
	answers  [2][]string // the setup rows each side sent
	silence  [2]string   // why a side's setup rows stopped coming (Lose), or ""
	g        *Game
	awaiting int // the seat awaited, or -1
	over     bool
	cause    string // the record's reason for an ILLEGAL end, in the 2012 manager's words
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
		return j.setupDone(c), v
	}
	m, err := ParseMove(line)
	if err == nil {
		err = j.g.Check(m)
	}
	if err != nil && j.opts.IgnoreIllegal {
		// -i: the move is not made, the mover is told so, and the turn passes. As in 2012,
		// an illegal move comes back with ILLEGAL after it, a malformed line as it came.
		told := moveLogText(line, err)
		outs := j.record(nil, moveLog(j.g.Turns(), c, told))
		j.g.Pass()
		outs = append(outs, judge.Out{To: int(c), Line: told})
		if over, _, _ := j.g.Over(); over {
			return append(outs, j.end()...), nil
		}
		return append(outs, j.turn(told)...), nil
	}
	if err != nil {
		outs := j.record(nil, moveLog(j.g.Turns(), c, moveLogText(line, err)))
		j.cause = illegalCause(j.g, err)
		j.g.Forfeit(c, Illegal, MoveReason(line, err))
		return append(outs, j.end()...), &judge.Violation{Seat: int(c), Line: line, Rule: Rule(err)}
	}
	turn := j.g.Turns()
	conf, _ := j.g.Play(m)
	outs := []judge.Out{}
	if m.Surrender {
		// A surrender is not confirmed (its confirmation would be no line of the
		// protocol); the record has it as the 2012 manager logged it.
		outs = j.record(outs, moveLog(turn, c, m.String()+" "+string(OK)))
	} else {
		outs = j.record(outs, moveLog(turn, c, conf.String()))
		outs = append(outs, judge.Out{To: int(c), Line: conf.String()})
	}
	if over, _, _ := j.g.Over(); over {
		return append(outs, j.end()...), nil
	}
	return append(outs, j.turn(conf.String())...), nil
}

// setupDone follows side c's last setup row (or its silence): BLUE is asked after RED;
// after BLUE the game begins, or ends at once on a bad setup.
func (j *managerJudge) setupDone(c Colour) []judge.Out {
	if c == Red {
		return j.askSetup(Blue)
	}
	j.g, _ = Begin(j.answers, j.limit)
	// The setup blocks as one entry of the record: -t waits once for them, not per row.
	outs := j.record(nil, strings.Join(setupLog(j.names, j.answers), "\n"))
	if over, _, about := j.g.Over(); over {
		why := j.g.Reason()
		silent := false
		for s := Red; s <= Blue; s++ {
			if j.silence[s] != "" && (about == s || about == Both) {
				why += fmt.Sprintf(" (%s: %s)", s, j.silence[s])
				silent = true
			}
		}
		if silent {
			j.g.Forfeit(about, BadSetup, why)
		}
		return append(outs, j.end()...)
	}
	return append(outs, j.turn("START")...)
}

// Lose ends the awaited side's part when its line cannot be had: during the setups its
// rows stop there (BLUE is still asked after RED); during the game it is ILLEGAL for it,
// with l.Why as the reason.
func (j *managerJudge) Lose(l judge.Lost) []judge.Out {
	if j.awaiting < 0 {
		return nil
	}
	c := Colour(j.awaiting)
	if j.g == nil {
		j.silence[c] = l.Why
		return j.setupDone(c)
	}
	outs := j.record(nil, moveLog(j.g.Turns(), c, ""))
	j.cause = silenceCause(l.Timeout, j.opts.Timeout)
	j.g.Forfeit(c, Illegal, l.Why)
	return append(outs, j.end()...)
}

// Playing reports whether the setups are over and the moves have begun (the manager stops
// the idle AI only from then on).
func (j *managerJudge) Playing() bool { return j.g != nil && !j.over }

// Game is the game being played, once both setups are in (nil before).
func (j *managerJudge) Game() *Game { return j.g }

// record adds line to outs as an entry of the game's record, with ManagerOptions.Record.
func (j *managerJudge) record(outs []judge.Out, line string) []judge.Out {
	if j.opts.Record {
		outs = append(outs, judge.Out{To: judge.Record, Line: line})
	}
	return outs
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
	outs := j.record(nil, endLog(j.g, j.cause))
	return append(outs,
		judge.Out{To: int(Red), Line: "QUIT " + j.g.EndWord(Red)},
		judge.Out{To: int(Blue), Line: "QUIT " + j.g.EndWord(Blue)},
		judge.Out{To: judge.Log, Line: j.g.Result(j.names)},
	)
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
