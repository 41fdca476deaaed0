package referee

import (
	"fmt"
	"strconv"

	"gauntlet/games/judge"
)

// RefereeSeat is the referee program's seat in the runner's judge; the players follow it
// (PlayerSeat).
const RefereeSeat = 0

// PlayerSeat is player p's seat in the runner's judge (1 + p).
func PlayerSeat(p int) int { return 1 + p }

// StatusMatchError is the runner's exit status when the match itself failed: a referee
// that broke its protocol, or a program that could not start.
const StatusMatchError = 2

// NewRunner returns the match runner's side of a match with a referee program, in the shape
// every game offers (games/judge): three seats, the referee (RefereeSeat) and the players
// named names (PlayerSeat). It reads the referee's feature lines, tells it the number of
// players and their names, forwards its write_lines blocks, and for each turn gives the
// mover the last move ("Start" first; none with no_last_move), forwards the mover's move to
// the referee as "P MOVE" and reads its verdict (then a write_lines block, with that
// feature), and after "valid end" its scores. Its Log line, at the end, is the result line
// "SCORE0 SCORE1 REASON". A referee line that breaks the protocol is a violation of the
// referee's seat with Status StatusMatchError (no result); a move the referee judges
// invalid is a violation of the mover's seat with Status 0 ("0 1 invalid 0"). It is a
// judge.Loser: a player's line not had is "timeout P" or "lost P"; a referee's line not
// had ends the match without a result.
func NewRunner(names [2]string) *Runner {
	return &Runner{names: names, awaiting: RefereeSeat, phase: features, last: StartMove}
}

// Runner is the runner's judge (NewRunner).
type Runner struct {
	names    [2]string
	feats    Features
	phase    phase
	then     phase   // after a write_lines block: the phase it came before
	verdict  Verdict // the verdict a write_lines block follows
	mover    int     // the player to move
	last     string  // the last move, for the mover
	started  bool    // the features and the first write_lines block are done
	awaiting int
	over     bool
}

type phase int

const (
	features   phase = iota // the referee's feature lines
	writeLines              // a write_lines block from the referee
	move                    // the mover's move
	verdict                 // the referee's verdict
	scores                  // the scores after "valid end"
)

// expecting names each referee phase, for the runner's account of a failure.
var expecting = [...]string{features: "feature line", writeLines: "write_lines line", verdict: "verdict", scores: "scores after 'valid end'"}

func (j *Runner) Seats() int              { return 3 }
func (j *Runner) Welcome(int) []judge.Out { return nil }
func (j *Runner) Start() []judge.Out      { return nil }
func (j *Runner) Over() bool              { return j.over }

func (j *Runner) Awaiting() int {
	if j.over {
		return -1
	}
	return j.awaiting
}

// Features are the features the referee asked for.
func (j *Runner) Features() Features { return j.feats }

// Playing reports whether the moves have begun (the features and the first write_lines
// block are done) and the match is not over: the idle players are stopped from then on.
func (j *Runner) Playing() bool { return j.started && !j.over }

// Expecting names the referee's line awaited ("feature line", "verdict", ...), for the
// runner's account when it does not come; "" when a player's move is awaited.
func (j *Runner) Expecting() string {
	if j.phase == move {
		return ""
	}
	return expecting[j.phase]
}

func (j *Runner) Allowed() string {
	if j.over {
		return "nothing"
	}
	if j.phase == move {
		return "a move line"
	}
	return "the referee's " + expecting[j.phase]
}

// Take feeds the awaited seat's line.
func (j *Runner) Take(line string) ([]judge.Out, *judge.Violation) {
	var outs []judge.Out
	var err error
	switch j.phase {
	case features:
		var name string
		var end bool
		if name, end, err = ParseFeature(line); err == nil {
			if !end {
				j.feats.Set(name)
				return nil, nil
			}
			outs = []judge.Out{{To: RefereeSeat, Line: "2"}, {To: RefereeSeat, Line: j.names[0]}, {To: RefereeSeat, Line: j.names[1]}}
			return append(outs, j.after(move)...), nil
		}
	case writeLines:
		var p int
		var text string
		var end bool
		if p, text, end, err = ParseWriteLine(line, 2); err == nil {
			if !end {
				return []judge.Out{{To: PlayerSeat(p), Line: text}}, nil
			}
			return j.next(j.then)
		}
	case move:
		j.last = line
		j.phase, j.awaiting = verdict, RefereeSeat
		return []judge.Out{{To: RefereeSeat, Line: MoveLine(j.mover, line)}}, nil
	case verdict:
		if j.verdict, err = ParseVerdict(line); err == nil {
			if j.feats.WriteLines {
				j.phase, j.then, j.awaiting = writeLines, verdict, RefereeSeat
				return nil, nil
			}
			return j.judged()
		}
	case scores:
		var s []int
		if s, err = ParseScores(line, 2); err == nil {
			return j.end(fmt.Sprintf("%d %d end", s[0], s[1])), nil
		}
	}
	// The referee broke its protocol: the match fails.
	j.over = true
	return nil, &judge.Violation{Seat: RefereeSeat, Line: line, Rule: err.Error(), Status: StatusMatchError}
}

// after goes to phase p, through a write_lines block first with that feature.
func (j *Runner) after(p phase) []judge.Out {
	if j.feats.WriteLines {
		j.phase, j.then, j.awaiting = writeLines, p, RefereeSeat
		return nil
	}
	outs, _ := j.next(p)
	return outs
}

// next goes on after a write_lines block to phase p.
func (j *Runner) next(p phase) ([]judge.Out, *judge.Violation) {
	switch p {
	case move:
		j.started = true
		return j.turn(), nil
	case verdict:
		return j.judged()
	}
	return nil, nil
}

// turn gives the mover the last move and awaits its move.
func (j *Runner) turn() []judge.Out {
	j.phase, j.awaiting = move, PlayerSeat(j.mover)
	if j.feats.NoLastMove {
		return nil
	}
	return []judge.Out{{To: PlayerSeat(j.mover), Line: j.last}}
}

// judged follows the verdict on the mover's move (after its write_lines block).
func (j *Runner) judged() ([]judge.Out, *judge.Violation) {
	p := j.mover
	switch j.verdict {
	case Invalid:
		return j.end(loss(p, "invalid")), &judge.Violation{Seat: PlayerSeat(p), Line: j.last, Rule: RuleLegalMove}
	case ValidEnd:
		j.phase, j.awaiting = scores, RefereeSeat
		return nil, nil
	}
	j.mover = 1 - p
	return j.turn(), nil
}

// Lose ends the match when the awaited line cannot be had: a player's is "timeout P" (no
// whole line in its time) or "lost P" (it died, closed its output, sent a line too long or
// could not take its input); the referee's fails the match (no result).
func (j *Runner) Lose(l judge.Lost) []judge.Out {
	if j.over {
		return nil
	}
	if j.phase != move {
		j.over = true
		return nil
	}
	why := "lost"
	if l.Timeout {
		why = "timeout"
	}
	return j.end(loss(j.mover, why))
}

// Abort ends the match with no result (the runner's own reason: a signal).
func (j *Runner) Abort() []judge.Out {
	j.over = true
	return nil
}

// loss is the result line when player p lost for the reason why: it scores 0, its
// opponent 1.
func loss(p int, why string) string {
	s := [2]int{}
	s[1-p] = 1
	return fmt.Sprintf("%d %d %s %s", s[0], s[1], why, strconv.Itoa(p))
}

// end ends the match with the result line result.
func (j *Runner) end(result string) []judge.Out {
	j.over = true
	return []judge.Out{{To: judge.Log, Line: result}}
}
