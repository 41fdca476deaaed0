package clue

import (
	"fmt"

	"gauntlet/games/judge"
)

// Client exit statuses (docs/clue.md).
const (
	ExitOver     = 0 // the server closed the connection between messages: the game is over
	ExitUsage    = 1
	ExitConnect  = 2
	ExitProtocol = 3 // the server sent a message the protocol does not allow here
)

// ProtocolError is what a client writes on stderr before exiting ExitProtocol.
const ProtocolError = "Protocol error from server\n"

// NewClient returns a client's side of the protocol around brain b (games/judge): it
// greets with name, then reads each two-line message, checks its name is the one the
// protocol predicts and its data parses, and answers through b. The end of the
// connection between messages ends it with status 0; a message the protocol does not
// allow, or the end of the connection inside a message, with status 3.
func NewClient(name string, b Brain) judge.Responder {
	return &client{name: name, b: b, expect: []string{MsgHello}}
}

type client struct {
	name   string
	b      Brain
	me     int
	hand   []Card
	board  State
	expect []string // the message names allowed next
	msg    string   // the name of the message whose data line comes next, or ""
	sug    Triple   // our last suggestion
	done   bool
}

func (c *client) Greeting() string { return c.name + "\n" }

func (c *client) Lost() judge.Reaction {
	if c.msg != "" {
		return c.fail("the connection ended inside a %s message", c.msg)
	}
	return judge.Reaction{Done: true, Status: ExitOver}
}

func (c *client) fail(string, ...any) judge.Reaction {
	c.done = true
	return judge.Reaction{Done: true, Status: ExitProtocol, Stderr: ProtocolError}
}

// idle are the messages a client may get between its own exchanges.
var idle = []string{MsgTurn, MsgMoved}

func (c *client) React(line string) judge.Reaction {
	if c.done {
		return judge.Reaction{Done: true, Status: ExitProtocol}
	}
	if c.msg == "" {
		for _, e := range c.expect {
			if line == e {
				c.msg = line
				return judge.Reaction{}
			}
		}
		return c.fail("%q where %v was expected", line, c.expect)
	}
	name := c.msg
	c.msg = ""
	reply, err := c.data(name, line)
	if err != nil {
		return c.fail("%v", err)
	}
	if reply == "" {
		return judge.Reaction{}
	}
	return judge.Reaction{Replies: []string{reply}}
}

// data handles the data line of message name and returns the reply, if any.
func (c *client) data(name, line string) (string, error) {
	switch name {
	case MsgHello:
		h, err := ParseHello(line)
		if err != nil {
			return "", err
		}
		c.me, c.hand = h.Token, h.Cards
		c.b.Start(h)
		c.expect = idle
		return "", nil
	case MsgTurn:
		b, err := ParseState(line)
		if err != nil {
			return "", err
		}
		c.board = b
		cmd := c.b.Command(b)
		if cmd == CmdAccuse {
			c.expect = []string{MsgAccuse}
		} else {
			c.expect = []string{MsgRolled}
		}
		return cmd, nil
	case MsgRolled:
		n, err := ParseRolled(line)
		if err != nil {
			return "", err
		}
		if n == 0 && !c.board[c.me].InRoom() {
			return "", fmt.Errorf("no roll for a token in a corridor")
		}
		dest := c.b.Destination(c.board, n)
		was := c.board[c.me]
		c.board[c.me] = dest
		c.expect = idle
		if dest.InRoom() && (dest.Room != was.Room || was.Mark == 'S') {
			c.expect = []string{MsgSuggest}
		}
		return dest.String(), nil
	case MsgSuggest:
		if line != "?" {
			return "", fmt.Errorf("suggest data %q", line)
		}
		c.sug = c.b.Suggestion(c.board)
		c.expect = []string{MsgCounter}
		return c.sug.String(), nil
	case MsgCounter:
		ct, err := ParseCounter(line)
		if err != nil {
			return "", err
		}
		if ct.Disprover == c.me {
			return "", fmt.Errorf("counter names the suggester")
		}
		c.b.Counter(c.sug, ct)
		c.expect = idle
		return "", nil
	case MsgAccuse:
		if line != "?" {
			return "", fmt.Errorf("accuse data %q", line)
		}
		c.expect = []string{MsgWrong}
		return c.b.Accusation().String(), nil
	case MsgWrong:
		if line != "!" {
			return "", fmt.Errorf("wrong data %q", line)
		}
		c.expect = []string{MsgMoved}
		return "", nil
	case MsgMoved:
		m, err := ParseMoved(line)
		if err != nil {
			return "", err
		}
		if m.Mover == c.me {
			return "", fmt.Errorf("moved names this client's own turn")
		}
		c.board = m.Board
		c.b.Observe(m)
		if m.Disprover != c.me {
			return "", nil
		}
		var options []Card
		for _, x := range m.Suggestion.Cards() {
			for _, h := range c.hand {
				if h == x {
					options = append(options, x)
				}
			}
		}
		if len(options) == 0 {
			return "", fmt.Errorf("asked to disprove %v holding none of it", *m.Suggestion)
		}
		return c.b.Disprove(m, options).String(), nil
	}
	return "", fmt.Errorf("no message %q", name)
}
