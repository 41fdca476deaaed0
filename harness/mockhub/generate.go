package mockhub

// Event is one line of a game as one player sees it: a line the hub sends it, or a line it
// answers. A game's engine, playing every player's reference strategy in-process, gives the
// events of each player in order; FromEvents turns them into the conversation a mock hub
// plays against that player under test.
type Event struct {
	FromPlayer bool   // the player sent Line; otherwise the hub sent it
	Line       string // without '\n'
}

// FromEvents builds a conversation: the player's arguments, its handshake, each event as a
// send or an expect, and finally the exit status the player must end with (after the hub's
// last line, the player must close its stdout).
func FromEvents(args []string, hello string, events []Event, status int) *Conversation {
	c := &Conversation{Args: append([]string{}, args...)}
	c.Steps = append(c.Steps, Step{Kind: Hello, Text: hello})
	for _, e := range events {
		kind := Send
		if e.FromPlayer {
			kind = Expect
		}
		c.Steps = append(c.Steps, Step{Kind: kind, Text: e.Line})
	}
	c.Steps = append(c.Steps, Step{Kind: EOF}, Step{Kind: Exit, Status: status})
	return c
}
