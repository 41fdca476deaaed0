package stlucia

import (
	"fmt"

	"gauntlet/games/judge"
)

// NewJudge returns the hub's side of a game of n players to winscore points with dice drawn
// from rolls, in the shape every game offers (games/judge).
func NewJudge(rolls []Face, winscore, n int) (judge.Judge, error) {
	return NewJudgeRules(Rules{}, rolls, winscore, n)
}

// NewJudgeRules is NewJudge for a game that follows r, one of the other readings the
// suite accepts, instead of the reference's.
func NewJudgeRules(r Rules, rolls []Face, winscore, n int) (judge.Judge, error) {
	g, err := New(rolls, winscore, n)
	if err != nil {
		return nil, err
	}
	g.SetRules(r)
	return &hubJudge{g: g}, nil
}

type hubJudge struct{ g Game }

func (j *hubJudge) Seats() int              { return j.g.N() }
func (j *hubJudge) Welcome(int) []judge.Out { return nil } // the game starts once every player has greeted
func (j *hubJudge) Start() []judge.Out      { return outs(j.g.Start()) }
func (j *hubJudge) Abort() []judge.Out      { return outs(j.g.Shutdown()) }
func (j *hubJudge) Over() bool              { return j.g.Over() }

func (j *hubJudge) Awaiting() int {
	p, ask := j.g.Awaiting()
	if ask == AskNone {
		return -1
	}
	return p
}

func (j *hubJudge) Allowed() string {
	switch _, ask := j.g.Awaiting(); ask {
	case AskDice:
		if j.g.Rerolls() >= MaxRerolls {
			return fmt.Sprintf("keepall (dice %s; no reroll left)", j.g.Dice())
		}
		return fmt.Sprintf("keepall, or reroll some of the dice %s (%d reroll(s) left)", j.g.Dice(), MaxRerolls-j.g.Rerolls())
	case AskStay:
		return "stay or go"
	}
	return "nothing"
}

// Take feeds the awaited player's reply. A refused one ends the game as the reference hub
// does: shutdown to every player, and the hub exits with the rule's status.
func (j *hubJudge) Take(line string) ([]judge.Out, *judge.Violation) {
	o, err := j.g.Reply(line)
	if err != nil {
		re := err.(*ReplyError)
		return outs(j.g.Shutdown()), &judge.Violation{Seat: re.Player, Line: line, Rule: re.Rule, Status: re.Status}
	}
	return outs(o), nil
}

func outs(os []Out) []judge.Out {
	res := make([]judge.Out, len(os))
	for i, o := range os {
		res[i] = judge.Out{To: o.To, Line: o.Line()}
	}
	return res
}

// NewResponder returns player me of n playing strategy s, in the shape every game offers:
// it greets with '!', echoes each message on its stderr as the reference players do
// ("From StLucia:..."), and answers with its strategy.
func NewResponder(s Strategy, n, me int) judge.Responder {
	return &responder{p: NewPlayer(s, n, me)}
}

type responder struct{ p *Player }

func (r *responder) Greeting() string { return "!" }

func (r *responder) React(line string) judge.Reaction {
	echo := "From StLucia:" + line + "\n"
	reply, ok, done, err := r.p.Handle(line)
	switch {
	case err != nil:
		return judge.Reaction{Stderr: echo + PlayerContract.Status(PlayerExitBadMsg).Stderr(), Done: true, Status: PlayerExitBadMsg}
	case done:
		return judge.Reaction{Stderr: echo, Done: true, Status: PlayerExitOK}
	case ok:
		return judge.Reaction{Stderr: echo, Replies: []string{reply.String()}}
	}
	return judge.Reaction{Stderr: echo}
}

// TooLong is the reaction to a line too long to keep: a bad message, which cannot be echoed.
func (r *responder) TooLong() judge.Reaction {
	return judge.Reaction{Stderr: PlayerContract.Status(PlayerExitBadMsg).Stderr(), Done: true, Status: PlayerExitBadMsg}
}

func (r *responder) Lost() judge.Reaction {
	return judge.Reaction{Stderr: PlayerContract.Status(PlayerExitLost).Stderr(), Done: true, Status: PlayerExitLost}
}
