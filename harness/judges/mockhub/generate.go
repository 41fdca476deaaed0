package mockhub

import "gauntlet/games/judge"

// FromEvents builds a conversation: the player's arguments, its handshake, each event as a
// send or an expect, and finally the exit status the player must end with (after the hub's
// last line, the player must close its stdout).
func FromEvents(args []string, hello string, events []judge.Line, status int) *Conversation {
	c := &Conversation{Args: append([]string{}, args...)}
	c.Steps = append(c.Steps, Step{Kind: Hello, Text: hello})
	for _, e := range events {
		kind := Send
		if e.FromPlayer {
			kind = Expect
		}
		c.Steps = append(c.Steps, Step{Kind: kind, Text: e.Text})
	}
	c.Steps = append(c.Steps, Step{Kind: EOF}, Step{Kind: Exit, Status: status})
	return c
}
