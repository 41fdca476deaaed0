package dealer2310

import "errors"

// Reaction is what a player does after a line from the dealer (or a failed read).
type Reaction struct {
	Reply  string // a line to send the dealer, without '\n'; "" for none
	Stderr string // text to write on the player's stderr, newlines included
	Done   bool   // the player exits now
	Status int    // the exit status, when Done
	Err    error  // when Status is an error status: the cause
}

// Player is a reference player's side of a game: it reads the path, follows the game
// from the dealer's HAP messages, answers YT with its strategy's move, and echoes the
// dealer's display on its stderr. It does no I/O.
type Player struct {
	strategy Strategy
	n, me    int
	g        Game
	started  bool // the path has arrived
	done     bool // the player has ended, with status
	status   int
}

// NewPlayer returns player me of n, playing strategy s. It has not seen the path yet.
func NewPlayer(s Strategy, n, me int) *Player {
	return &Player{strategy: s, n: n, me: me}
}

// Game returns the player's view of the game (read it only); its zero value before the
// path has arrived.
func (p *Player) Game() *Game { return &p.g }

// ErrNoMove is the cause of a communications error when the dealer asks a player to move
// who, by its own view, is already on the final barrier.
var ErrNoMove = errors.New("dealer2310: asked to move from the final barrier")

// Handle reacts to one line from the dealer, without its '\n'. The first line must be the
// path: the player prints the display; an invalid path ends it with "Invalid path". Then:
// YT is answered with a DO message; a HAP updates the view and prints the mover's status
// line and the display; DONE prints the scores and ends normally; EARLY ends with "Early
// game over"; anything else (a malformed message, a HAP naming a player or site that does
// not exist) ends with "Communications error".
func (p *Player) Handle(line string) Reaction {
	if p.done {
		return Reaction{Done: true, Status: p.status}
	}
	if !p.started {
		path, err := ParsePathMessage(line)
		if err != nil {
			return p.fail(PlayerExitPath, err)
		}
		g, err := NewView(path, p.n)
		if err != nil {
			return p.fail(PlayerExitPath, err)
		}
		p.g, p.started = g, true
		return Reaction{Stderr: p.g.Display()}
	}
	m, err := ParseDealerMsg(line)
	if err != nil {
		return p.fail(PlayerExitComms, err)
	}
	switch m.Kind {
	case MsgYT:
		s := p.strategy(&p.g, p.me)
		if s < 0 {
			return p.fail(PlayerExitComms, ErrNoMove)
		}
		return Reaction{Reply: MoveMsg(s).String()}
	case MsgHAP:
		if err := p.g.ApplyHAP(m.HAP); err != nil {
			return p.fail(PlayerExitComms, err)
		}
		return Reaction{Stderr: p.g.StatusLine(m.HAP.Player) + "\n" + p.g.Display()}
	case MsgDone:
		p.done, p.status = true, PlayerExitOK
		return Reaction{Stderr: p.g.ScoresLine() + "\n", Done: true, Status: PlayerExitOK}
	default: // MsgEarly
		return p.fail(PlayerExitEarly, nil)
	}
}

// Lost reacts to a failed read from the dealer (EOF, or a line too long to keep): before
// the path it is an invalid path, afterwards a communications error.
func (p *Player) Lost(err error) Reaction {
	if !p.started {
		return p.fail(PlayerExitPath, err)
	}
	return p.fail(PlayerExitComms, err)
}

func (p *Player) fail(status int, err error) Reaction {
	p.done, p.status = true, status
	return Reaction{Stderr: PlayerContract.Status(status).Stderr(), Done: true, Status: status, Err: err}
}
