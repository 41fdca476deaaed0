package dealer2310

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"gauntlet/games/judge"
)

// NewJudge returns the dealer's side of a game on path with deck between n players, in the
// shape every game offers (games/judge). Its Log lines are the dealer's standard output.
func NewJudge(path Path, deck Deck, n int) (judge.Judge, error) {
	return NewJudgeAsRead(path, path.String(), deck, n)
}

// NewJudgeAsRead is NewJudge for a path read from a file whose line is line (without its
// '\n'): the judge sends each player that line as read (NewDealerAsRead).
func NewJudgeAsRead(path Path, line string, deck Deck, n int) (judge.Judge, error) {
	d, err := NewDealerAsRead(path, line, deck, n)
	if err != nil {
		return nil, err
	}
	return &dealerJudge{d: d}, nil
}

type dealerJudge struct{ d *Dealer }

func (j *dealerJudge) Seats() int                { return j.d.Game().NumPlayers() }
func (j *dealerJudge) Welcome(s int) []judge.Out { return dealerOuts(j.d.Welcome(s)) }
func (j *dealerJudge) Start() []judge.Out        { return dealerOuts(j.d.Begin()) }
func (j *dealerJudge) Awaiting() int             { return j.d.Awaiting() }
func (j *dealerJudge) Abort() []judge.Out        { return dealerOuts(j.d.Abort()) }
func (j *dealerJudge) Over() bool                { return j.d.Ended() }

// Allowed lists the moves the awaited player may make.
func (j *dealerJudge) Allowed() string {
	p := j.d.Awaiting()
	if p < 0 {
		return "nothing"
	}
	g := j.d.Game()
	var moves []string
	for s := range g.Path() {
		if g.CheckMove(p, s) == nil {
			moves = append(moves, MoveMsg(s).String())
		}
	}
	return fmt.Sprintf("one of %s", strings.Join(moves, " "))
}

// Take feeds the awaited player's line. A refused one ends the game as the reference
// dealer does: EARLY to every player, and a communications error (exit 5).
func (j *dealerJudge) Take(line string) ([]judge.Out, *judge.Violation) {
	p := j.d.Awaiting()
	o, err := j.d.Reply(line)
	if err == nil {
		return dealerOuts(o), nil
	}
	v := &judge.Violation{Seat: p, Line: line, Status: ExitComms, Rule: err.Error()}
	var fe *FormatError
	var me *MoveError
	switch {
	case errors.As(err, &me):
		v.Rule = me.Rule
	case errors.As(err, &fe):
		v.Rule = fe.Rule
	}
	return dealerOuts(o), v
}

func dealerOuts(os []Out) []judge.Out {
	res := make([]judge.Out, len(os))
	for i, o := range os {
		res[i] = judge.Out{To: o.To, Line: o.Line}
	}
	return res
}

// NewResponder returns player me of n playing strategy s, in the shape every game offers:
// it greets with '^' and reacts as the reference players do.
func NewResponder(s Strategy, n, me int) judge.Responder {
	return &responder{p: NewPlayer(s, n, me)}
}

type responder struct{ p *Player }

func (r *responder) Greeting() string { return string(Hello) }

func (r *responder) React(line string) judge.Reaction { return reaction(r.p.Handle(line)) }

func (r *responder) Lost() judge.Reaction { return reaction(r.p.Lost(io.EOF)) }

func reaction(x Reaction) judge.Reaction {
	res := judge.Reaction{Stderr: x.Stderr, Done: x.Done, Status: x.Status}
	if x.Reply != "" {
		res.Replies = []string{x.Reply}
	}
	return res
}
