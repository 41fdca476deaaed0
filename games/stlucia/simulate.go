package stlucia

import "fmt"

// Transcript is the record of a game played in-process by Simulate.
type Transcript struct {
	Stderr   []string   // the hub's stderr lines, without '\n'
	Received [][]string // per player, the lines the hub sent it
	Sent     [][]string // per player, the lines it answered
	Winner   int        // the winner's index
}

// Simulate plays a whole game in-process: the engine as the hub and one Player per
// strategy, in label order. It fails only if a player sends a reply the engine refuses or
// a player is sent a message after it finished, which the reference strategies never do,
// or when no one has won after maxReplies replies (a guard against endless games).
func Simulate(rolls []Face, winscore int, strategies []Strategy, maxReplies int) (Transcript, error) {
	n := len(strategies)
	g, err := New(rolls, winscore, n)
	if err != nil {
		return Transcript{}, err
	}
	t := Transcript{Received: make([][]string, n), Sent: make([][]string, n), Winner: -1}
	players := make([]*Player, n)
	done := make([]bool, n)
	for i, s := range strategies {
		players[i] = NewPlayer(s, n, i)
	}
	outs := g.Start()
	for turns := 0; ; turns++ {
		var reply string
		for _, o := range outs {
			if o.To == Log {
				t.Stderr = append(t.Stderr, o.Text)
				continue
			}
			line := o.Msg.String()
			t.Received[o.To] = append(t.Received[o.To], line)
			if done[o.To] {
				return t, fmt.Errorf("stlucia: player %c was sent %q after it finished", Label(o.To), line)
			}
			r, ok, fin, err := players[o.To].HandleMsg(o.Msg)
			if err != nil {
				return t, err
			}
			done[o.To] = fin
			if ok {
				reply = r.String()
				t.Sent[o.To] = append(t.Sent[o.To], reply)
			}
		}
		if g.Over() {
			t.Winner = g.Winner()
			return t, nil
		}
		if turns >= maxReplies {
			return t, fmt.Errorf("stlucia: no winner after %d replies", maxReplies)
		}
		if outs, err = g.Reply(reply); err != nil {
			return t, err
		}
	}
}
