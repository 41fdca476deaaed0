package stratego

import (
	"math/rand/v2"
	"strings"

	"gauntlet/games/judge"
)

// Brain is an AI's decisions, pure: its setup for its colour, and its move from its view.
type Brain interface {
	Setup(c Colour) Setup
	Move(view []string) Move
}

// Observer is a Brain that learns from confirmations: its own moves' (mine) and its
// opponent's.
type Observer interface {
	Observe(confirmation string, mine bool)
}

// Random plays any legal move, drawn at random, from a random setup.
type Random struct{ R *rand.Rand }

func (b Random) Setup(Colour) Setup      { return RandomSetup(b.R) }
func (b Random) Move(view []string) Move { return RandomMove(view, b.R) }

// NewResponder returns an AI's side of the manager protocol around brain b (games/judge):
// the setup query is answered with b's four rows; a turn query (START or the opponent's
// confirmation) and the 10 rows of the view that follow it, with b's move; the line after
// its own move is that move's confirmation; QUIT ends it with status 0. It has no greeting.
func NewResponder(b Brain) judge.Responder { return &aiResponder{b: b} }

type aiResponder struct {
	b        Brain
	view     []string // rows of the view being received, after a turn query
	inTurn   bool
	ownConf  bool // the next line confirms this AI's own move
	finished bool
}

func (r *aiResponder) Greeting() string { return "" }

func (r *aiResponder) Lost() judge.Reaction { return judge.Reaction{Done: true, Status: 1} }

func (r *aiResponder) React(line string) judge.Reaction {
	switch {
	case r.finished:
		return judge.Reaction{Done: true}
	case len(line) >= 4 && line[:4] == "QUIT":
		r.finished = true
		return judge.Reaction{Done: true}
	case r.inTurn:
		r.view = append(r.view, line)
		if len(r.view) < Size {
			return judge.Reaction{}
		}
		r.inTurn, r.ownConf = false, true
		return judge.Reaction{Replies: []string{r.b.Move(r.view).String()}}
	case r.ownConf:
		r.ownConf = false
		if o, ok := r.b.(Observer); ok {
			o.Observe(line, true)
		}
		return judge.Reaction{}
	}
	if f := strings.Fields(line); len(f) == 4 {
		if c, err := ParseColour(f[0]); err == nil {
			return judge.Reaction{Replies: r.b.Setup(c).Lines()}
		}
	}
	// A turn query: START or the opponent's confirmation; the view follows.
	if o, ok := r.b.(Observer); ok && line != "START" {
		o.Observe(line, false)
	}
	r.inTurn, r.view = true, nil
	return judge.Reaction{}
}
