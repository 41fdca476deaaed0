package referee

import (
	"fmt"
	"strings"

	"gauntlet/games/judge"
)

// NewMatchJudge returns a match as the players see it, in the shape every game offers
// (games/judge): the runner and the example game's referee together as the hub. The mover
// gets the last move ("Start" first), or with no_last_move the referee's write_lines, and
// its move is judged by rules; an invalid move is a violation (the mover loses). Its Log
// line, at the end, is the runner's result line.
func NewMatchJudge(rules Rules) judge.Judge {
	return &matchJudge{rules: rules, last: StartMove}
}

type matchJudge struct {
	rules  Rules
	mover  int
	last   string
	over   bool
	result string
}

func (j *matchJudge) Seats() int              { return 2 }
func (j *matchJudge) Welcome(int) []judge.Out { return nil }
func (j *matchJudge) Over() bool              { return j.over }

func (j *matchJudge) Awaiting() int {
	if j.over {
		return -1
	}
	return j.mover
}

// prompt is what the mover gets before its move.
func (j *matchJudge) prompt() []judge.Out {
	var outs []judge.Out
	if j.rules.Features().WriteLines {
		for _, w := range j.rules.Show() {
			var p int
			fmt.Sscan(w[0], &p)
			outs = append(outs, judge.Out{To: p, Line: w[1]})
		}
	}
	if !j.rules.Features().NoLastMove {
		outs = append(outs, judge.Out{To: j.mover, Line: j.last})
	}
	return outs
}

func (j *matchJudge) Start() []judge.Out { return j.prompt() }

func (j *matchJudge) Allowed() string {
	switch r := j.rules.(type) {
	case *TicTacToe:
		var cells []string
		for i, c := range r.Cells {
			if c == 0 {
				cells = append(cells, fmt.Sprintf("%d %d", i/3, i%3))
			}
		}
		return "ROW COL of an empty cell: " + strings.Join(cells, ", ")
	case *ConnectFour:
		var cols []string
		for c := 0; c < 7; c++ {
			if r.Cells[0][c] == 0 {
				cols = append(cols, fmt.Sprint(c))
			}
		}
		return "a column that is not full: " + strings.Join(cols, " ")
	}
	return "a legal move"
}

// RuleLegalMove is what a player's move breaks when the referee says invalid.
const RuleLegalMove = "a player's move is one the referee judges valid"

func (j *matchJudge) Take(line string) ([]judge.Out, *judge.Violation) {
	p := j.mover
	if !j.rules.Move(p, line) {
		j.end(p)
		return j.log(), &judge.Violation{Seat: p, Line: line, Rule: RuleLegalMove}
	}
	if over, scores := j.rules.Over(); over {
		j.over, j.result = true, fmt.Sprintf("%d %d end", scores[0], scores[1])
		return j.log(), nil
	}
	j.mover, j.last = 1-p, line
	return j.prompt(), nil
}

// end ends the game with the offender p scoring 0 and its opponent 1.
func (j *matchJudge) end(p int) {
	scores := [2]int{}
	scores[1-p] = 1
	j.over, j.result = true, fmt.Sprintf("%d %d invalid %d", scores[0], scores[1], p)
}

func (j *matchJudge) log() []judge.Out { return []judge.Out{{To: judge.Log, Line: j.result}} }

func (j *matchJudge) Abort() []judge.Out {
	j.over = true
	return nil
}

// NewTTTResponder and NewC4Responder are the example players in the shape every game
// offers.
func NewTTTResponder(p *TTTPlayer) judge.Responder { return tttResponder{p} }
func NewC4Responder(p *C4Player) judge.Responder   { return c4Responder{p} }

type tttResponder struct{ p *TTTPlayer }

func (r tttResponder) Greeting() string     { return "" }
func (r tttResponder) Lost() judge.Reaction { return judge.Reaction{Done: true} }
func (r tttResponder) React(l string) judge.Reaction {
	return judge.Reaction{Replies: []string{r.p.React(l)}}
}

type c4Responder struct{ p *C4Player }

func (r c4Responder) Greeting() string     { return "" }
func (r c4Responder) Lost() judge.Reaction { return judge.Reaction{Done: true} }
func (r c4Responder) React(l string) judge.Reaction {
	if m, ok := r.p.React(l); ok {
		return judge.Reaction{Replies: []string{m}}
	}
	return judge.Reaction{}
}
