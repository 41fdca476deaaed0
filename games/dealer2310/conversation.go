package dealer2310

import (
	"fmt"
	"strings"

	"gauntlet/games/judge"
)

// Conversation returns player p's side of a simulated game, in the order it happened:
// every line the dealer sent it (the path first, DONE last), each of its replies right
// after the YT that asked for it. With the player's arguments (the player count and its
// id) this is all a mock hub needs to test that player alone; the player's expected stderr
// is the transcript's Players[p].Stderr. It fails when the transcript's replies do not fit
// its YT messages, which a transcript made by Simulate never does.
func (t Transcript) Conversation(p int) ([]judge.Line, error) {
	if p < 0 || p >= len(t.Players) {
		return nil, fmt.Errorf("dealer2310: no player %d in a %d-player transcript", p, len(t.Players))
	}
	pt := t.Players[p]
	sent, ok := strings.CutPrefix(pt.Stdout, string(Hello))
	if !ok {
		return nil, fmt.Errorf("dealer2310: player %d's output does not start with the handshake: %q", p, pt.Stdout)
	}
	replies := lines(sent)
	var conv []judge.Line
	for i, line := range lines(pt.Stdin) {
		conv = append(conv, judge.Line{Text: line})
		if i == 0 {
			continue // the path
		}
		m, err := ParseDealerMsg(line)
		if err != nil {
			return nil, fmt.Errorf("dealer2310: player %d received %q: %w", p, line, err)
		}
		if m.Kind != MsgYT {
			continue
		}
		if len(replies) == 0 {
			return nil, fmt.Errorf("dealer2310: player %d has no reply to YT", p)
		}
		conv = append(conv, judge.Line{FromPlayer: true, Text: replies[0]})
		replies = replies[1:]
	}
	if len(replies) > 0 {
		return nil, fmt.Errorf("dealer2310: player %d sent %q unasked", p, replies[0])
	}
	return conv, nil
}

// lines splits '\n'-terminated text into its lines; a last line without '\n' counts too.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// Conversations plays a whole game with Simulate and returns the transcript and every
// player's conversation, in id order.
func Conversations(path Path, deck Deck, strategies []Strategy) (Transcript, [][]judge.Line, error) {
	t, err := Simulate(path, deck, strategies)
	if err != nil {
		return Transcript{}, nil, err
	}
	convs := make([][]judge.Line, len(strategies))
	for p := range convs {
		if convs[p], err = t.Conversation(p); err != nil {
			return Transcript{}, nil, err
		}
	}
	return t, convs, nil
}
