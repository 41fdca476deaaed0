package dealer2310

import (
	"fmt"
	"strings"

	"gauntlet/games/judge"
)

// Transcript is the record of a game played in-process by Simulate: everything each
// program wrote and read, byte for byte as the processes would.
type Transcript struct {
	Stdout  string // the dealer's standard output
	Stderr  string // the dealer's standard error
	Status  int    // the dealer's exit status
	Players []PlayerTranscript
}

// PlayerTranscript is what one player read and wrote during a simulated game.
type PlayerTranscript struct {
	Stdin  string // what the dealer sent it
	Stdout string // what it sent the dealer, handshake included
	Stderr string // its standard error
	Status int    // its exit status
}

// Moves returns the HAP lines of the game in order, as every player received them.
func (t Transcript) Moves() []string {
	var out []string
	if len(t.Players) == 0 {
		return nil
	}
	for _, l := range strings.Split(t.Players[0].Stdin, "\n") {
		if strings.HasPrefix(l, "HAP") {
			out = append(out, l)
		}
	}
	return out
}

// Simulate plays a whole game in-process: a Dealer on path and deck, and one Player per
// strategy (player i plays strategies[i]), exchanging the lines the real programs would
// (judge.Play between NewJudge and NewResponder). It fails only if a player stops before
// the game ends or a move is refused, which the reference strategies never cause.
func Simulate(path Path, deck Deck, strategies []Strategy) (Transcript, error) {
	n := len(strategies)
	j, err := NewJudge(path, deck, n)
	if err != nil {
		return Transcript{}, err
	}
	rs := make([]judge.Responder, n)
	for i, s := range strategies {
		rs[i] = NewResponder(s, n, i)
	}
	// A game ends after at most one move per site and player.
	played, err := judge.Play(j, rs, n*len(path)+1)
	if err != nil {
		return Transcript{}, fmt.Errorf("dealer2310: %w", err)
	}
	if v := played.Violation; v != nil {
		return Transcript{}, fmt.Errorf("dealer2310: player %d: %w", v.Seat, v)
	}
	for i, x := range played.Exits {
		if x.Done && x.Status != PlayerExitOK {
			return Transcript{}, fmt.Errorf("dealer2310: player %d ended with status %d", i, x.Status)
		}
	}
	t := Transcript{Stdout: linesText(played.Log()), Status: ExitOK, Players: make([]PlayerTranscript, n)}
	for i := range t.Players {
		t.Players[i] = PlayerTranscript{Stdin: linesText(played.Received(i)), Stdout: string(Hello) + linesText(played.Sent(i)),
			Stderr: played.Stderr[i], Status: played.Exits[i].Status}
	}
	return t, nil
}

// linesText is lines, each ended by '\n'.
func linesText(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}
