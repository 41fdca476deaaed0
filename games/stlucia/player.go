package stlucia

// Player is a reference player without I/O: a strategy and the view it tracks. Feed it
// each line the hub sends; it says what to answer.
type Player struct {
	View     View
	Strategy Strategy
}

// NewPlayer returns player me of an n-player game playing strategy s.
func NewPlayer(s Strategy, n, me int) *Player {
	return &Player{View: NewView(n, me), Strategy: s}
}

// Handle processes one line from the hub (without '\n'). It returns the reply to send
// (ok false when there is none), whether the player must now exit with status 0 (winner,
// shutdown, or its own eliminated), or an error for a bad message (exit 5).
func (p *Player) Handle(line string) (reply Reply, ok, done bool, err error) {
	m, err := ParseMsg(line)
	if err != nil {
		return Reply{}, false, false, err
	}
	return p.HandleMsg(m)
}

// HandleMsg is Handle for a parsed message.
func (p *Player) HandleMsg(m Msg) (reply Reply, ok, done bool, err error) {
	if err := p.View.Observe(m); err != nil {
		return Reply{}, false, false, err
	}
	switch m.Kind {
	case MsgTurn, MsgRerolled:
		r := p.Strategy.DiceReply(p.View)
		if r.Kind == ReplyKeepAll {
			p.View.Kept()
		}
		return r, true, false, nil
	case MsgStay:
		return p.Strategy.StayReply(p.View), true, false, nil
	case MsgWinner, MsgShutdown:
		return Reply{}, false, true, nil
	case MsgEliminated:
		return Reply{}, false, m.Player == p.View.Me, nil
	}
	return Reply{}, false, false, nil
}
