package dealer2310

import (
	"fmt"
	"strings"
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
// strategy (player i plays strategies[i]), exchanging the lines the real programs would.
// It fails only if a player stops before the game ends or a move is refused, which the
// reference strategies never cause.
func Simulate(path Path, deck Deck, strategies []Strategy) (Transcript, error) {
	n := len(strategies)
	d, err := NewDealer(path, deck, n)
	if err != nil {
		return Transcript{}, err
	}
	var out strings.Builder // the dealer's stdout
	in := make([]strings.Builder, n)
	pout := make([]strings.Builder, n)
	perr := make([]strings.Builder, n)
	ps := make([]*Player, n)
	status := make([]int, n)
	done := make([]bool, n)

	// deliver carries out the dealer's outputs and returns the awaited player's reply.
	deliver := func(outs []Out) (string, error) {
		reply := ""
		for _, o := range outs {
			if o.To == Stdout {
				out.WriteString(o.Line)
				out.WriteByte('\n')
				continue
			}
			in[o.To].WriteString(o.Line)
			in[o.To].WriteByte('\n')
			if done[o.To] {
				return "", fmt.Errorf("dealer2310: player %d was sent %q after it ended", o.To, o.Line)
			}
			r := ps[o.To].Handle(o.Line)
			perr[o.To].WriteString(r.Stderr)
			if r.Reply != "" {
				pout[o.To].WriteString(r.Reply)
				pout[o.To].WriteByte('\n')
				reply = r.Reply
			}
			if r.Done {
				done[o.To], status[o.To] = true, r.Status
				if r.Status != PlayerExitOK {
					return "", fmt.Errorf("dealer2310: player %d ended with status %d: %v", o.To, r.Status, r.Err)
				}
			}
		}
		return reply, nil
	}

	for i, s := range strategies {
		ps[i] = NewPlayer(s, n, i)
		pout[i].WriteByte(Hello)
		if _, err := deliver(d.Welcome(i)); err != nil {
			return Transcript{}, err
		}
	}
	reply, err := deliver(d.Begin())
	for err == nil && !d.Ended() {
		var outs []Out
		outs, err = d.Reply(reply)
		if err != nil {
			break
		}
		reply, err = deliver(outs)
	}
	if err != nil {
		return Transcript{}, err
	}
	t := Transcript{Stdout: out.String(), Status: ExitOK, Players: make([]PlayerTranscript, n)}
	for i := range t.Players {
		t.Players[i] = PlayerTranscript{Stdin: in[i].String(), Stdout: pout[i].String(), Stderr: perr[i].String(), Status: status[i]}
	}
	return t, nil
}
