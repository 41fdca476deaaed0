package stlucia

import (
	"fmt"

	"gauntlet/games/judge"
)

// Conversation returns player p's side of the game, in the order it happened: every line
// the hub sent it, each reply right after the turn, rerolled or stay? that asked for it.
// With the player's arguments (the count and its label) this is all a mock hub needs to
// test that player alone, and the lines received are exactly what the player must echo on
// stderr. It fails when the transcript's replies do not fit its requests, which a
// transcript made by Simulate never does.
func (t Transcript) Conversation(p int) ([]judge.Line, error) {
	if p < 0 || p >= len(t.Received) {
		return nil, fmt.Errorf("stlucia: no player %d in a %d-player transcript", p, len(t.Received))
	}
	sent := t.Sent[p]
	var conv []judge.Line
	for _, line := range t.Received[p] {
		conv = append(conv, judge.Line{Text: line})
		m, err := ParseMsg(line)
		if err != nil {
			return nil, fmt.Errorf("stlucia: player %c received %q: %w", Label(p), line, err)
		}
		if m.Kind != MsgTurn && m.Kind != MsgRerolled && m.Kind != MsgStay {
			continue
		}
		if len(sent) == 0 {
			return nil, fmt.Errorf("stlucia: player %c has no reply to %q", Label(p), line)
		}
		conv = append(conv, judge.Line{FromPlayer: true, Text: sent[0]})
		sent = sent[1:]
	}
	if len(sent) > 0 {
		return nil, fmt.Errorf("stlucia: player %c sent %q unasked", Label(p), sent[0])
	}
	return conv, nil
}

// Conversations plays a whole game with Simulate and returns every player's conversation,
// in label order.
func Conversations(rolls []Face, winscore int, strategies []Strategy, maxReplies int) ([][]judge.Line, error) {
	t, err := Simulate(rolls, winscore, strategies, maxReplies)
	if err != nil {
		return nil, err
	}
	convs := make([][]judge.Line, len(strategies))
	for p := range convs {
		if convs[p], err = t.Conversation(p); err != nil {
			return nil, err
		}
	}
	return convs, nil
}
