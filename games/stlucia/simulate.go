package stlucia

import (
	"fmt"

	"gauntlet/games/judge"
)

// Transcript is the record of a game played in-process by Simulate.
type Transcript struct {
	Stderr   []string   // the hub's stderr lines, without '\n'
	Received [][]string // per player, the lines the hub sent it
	Sent     [][]string // per player, the lines it answered
	Winner   int        // the winner's index
}

// Simulate plays a whole game in-process: the engine as the hub and one Player per
// strategy, in label order (judge.Play between NewJudge and NewResponder). It fails only if
// a player sends a reply the engine refuses or a player is sent a message after it
// finished, which the reference strategies never do, or when no one has won after
// maxReplies replies (a guard against endless games).
func Simulate(rolls []Face, winscore int, strategies []Strategy, maxReplies int) (Transcript, error) {
	return SimulateRules(Rules{}, rolls, winscore, strategies, maxReplies)
}

// SimulateRules is Simulate with a hub that follows r instead of the reference reading.
func SimulateRules(r Rules, rolls []Face, winscore int, strategies []Strategy, maxReplies int) (Transcript, error) {
	n := len(strategies)
	j, err := NewJudgeRules(r, rolls, winscore, n)
	if err != nil {
		return Transcript{}, err
	}
	rs := make([]judge.Responder, n)
	for i, s := range strategies {
		rs[i] = NewResponder(s, n, i)
	}
	played, err := judge.Play(j, rs, maxReplies)
	t := Transcript{Stderr: played.Log(), Received: make([][]string, n), Sent: make([][]string, n), Winner: -1}
	for i := range rs {
		t.Received[i], t.Sent[i] = played.Received(i), played.Sent(i)
	}
	switch {
	case played.Violation != nil:
		return t, played.Violation
	case err != nil:
		return t, fmt.Errorf("stlucia: %w", err)
	}
	t.Winner = j.(*hubJudge).g.Winner()
	return t, nil
}
