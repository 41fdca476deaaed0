package cluehub

import (
	"io"
	"strings"
	"testing"
	"time"

	"gauntlet/games/clue"
	"gauntlet/games/judge"
	"gauntlet/internal/buildtest"
	"gauntlet/players/clueplayers"
)

// faulty plays as the sensible client until its first turn, where it does its fault.
type faulty struct {
	judge.Responder
	fault  string
	inTurn bool
	done   bool
}

func (f *faulty) React(line string) judge.Reaction {
	if f.done {
		return f.Responder.React(line)
	}
	if line == clue.MsgTurn {
		f.inTurn = true
		return judge.Reaction{}
	}
	if !f.inTurn {
		return f.Responder.React(line)
	}
	switch f.fault {
	case "wall":
		if line == clue.MsgRolled {
			return judge.Reaction{}
		}
		if strings.HasPrefix(line, "(") {
			return judge.Reaction{Replies: []string{clue.CmdRoll}}
		}
		f.done = true
		return judge.Reaction{Replies: []string{"(12 12)"}}
	case "garbage":
		f.done = true
		return judge.Reaction{Replies: []string{"dance"}}
	case "silent":
		f.done = true
		return judge.Reaction{}
	case "gone":
		return judge.Reaction{Done: true}
	case "slow":
		f.done = true
		time.Sleep(200 * time.Millisecond)
		f.Responder.React(clue.MsgTurn)
		return f.Responder.React(line)
	}
	panic(f.fault)
}

// Every fault of a client ends with that client dropped, and the game goes on to its end
// without it; a slow client within the timeout is not dropped.
func TestFaultyClients(t *testing.T) {
	t.Parallel() // its subtests wait on their clients: the package goes on meanwhile
	for fault, want := range map[string]string{
		"wall":    `Scarlet dropped: sent "(12 12)": (12 12) cannot be reached`,
		"garbage": `Scarlet dropped: sent "dance": a turn is answered with roll, no-roll or accuse`,
		"silent":  "Scarlet dropped: no line in time",
		"gone":    "Scarlet dropped: the connection ended",
		"slow":    "",
	} {
		t.Run(fault, func(t *testing.T) {
			t.Parallel() // each a server of its own that mostly waits on its faulty client
			o := options(4)
			o.Clients, o.Reply = 1, 300*time.Millisecond
			if fault == "slow" {
				// 200 ms late within a window fifteen times as long: not a race with
				// the machine's load.
				o.Reply = 3 * time.Second
			}
			start := time.Now()
			port, wait := serve(t, o)
			conn := dialed(t, port)
			go playOn2(conn, &faulty{Responder: clue.NewClient("f", brain("sensible", 4, 0)), fault: fault})
			account := wait()
			if want == "" {
				if strings.Contains(account, "dropped") {
					t.Errorf("a slow client within the timeout was dropped:\n%s", account)
				}
			} else if !strings.Contains(account, want) || !strings.Contains(account, "Scarlet is out of the game") {
				t.Errorf("account has no %q:\n%s", want, account)
			}
			if !strings.Contains(account, "\nsolution (") {
				t.Errorf("the game did not end:\n%s", account)
			}
			t.Logf("%s: %v", fault, time.Since(start))
		})
	}
}

func playOn2(conn io.ReadWriteCloser, r judge.Responder) {
	defer conn.Close()
	clueplayers.Play(r, conn, io.Discard)
}

// A connection that sends no name is not seated; the seat goes to a bot when the join
// time is up.
func TestNoName(t *testing.T) {
	buildtest.Long(t)
	o := options(5)
	o.Clients, o.Reply, o.Join = 1, 200*time.Millisecond, time.Second
	port, wait := serve(t, o)
	conn := dialed(t, port)
	defer conn.Close()
	account := wait()
	for _, want := range []string{"a connection sent no name: no line in time", "0 of 1 clients connected in time", "seat 0 Scarlet: sensible (bot)"} {
		if !strings.Contains(account, want) {
			t.Errorf("no %q in:\n%s", want, account)
		}
	}
}

// docs/clue.md: a connection that ends before its name gets no seat, and the next
// connection takes the seat it would have had (Scarlet here).
func TestSeatOfAConnectionWithoutAName(t *testing.T) {
	o := options(5)
	o.Clients = 1
	port, wait := serve(t, o)
	dialed(t, port).Close()
	conn := dialed(t, port)
	done := make(chan int)
	go func() { done <- playOn(conn, "sensible", 5, 0) }()
	account := wait()
	<-done
	for _, want := range []string{"a connection sent no name: the connection ended", "seat 0 Scarlet: \"sensible\"", "seat 1 Mustard: sensible (bot)"} {
		if !strings.Contains(account, want) {
			t.Errorf("no %q in:\n%s", want, account)
		}
	}
}
