package judge

import "fmt"

// Line is one line of one seat's conversation with the hub, as the seat sees it: a line
// the hub sent it, or (FromPlayer) a line it sent the hub. Text has no '\n'; a handshake
// is not a line. Every game's Conversation gives a seat's lines in order, and the mock hub
// plays them back against a program in that seat (mockhub.FromEvents): the one
// conversation type of every game.
type Line struct {
	FromPlayer bool
	Text       string
}

// Event is one line of a played game, in the order the hub saw it.
type Event struct {
	From, To int    // a seat, or Log for the hub itself
	Line     string // without '\n'
}

// Game is a whole game as Play saw it.
type Game struct {
	Events    []Event    // every line: hub to seat, seat to hub, hub to its output (To Log)
	Stderr    []string   // what each seat wrote on its stderr
	Exits     []Reaction // how each seat ended (Done false: it did not end by itself)
	Violation *Violation // the first broken rule, if any
}

// Log returns the lines the hub wrote on its own output.
func (g Game) Log() []string { return g.Received(Log) }

// Play plays a whole game between judge j and one responder per seat, the way a hub and
// its players would: greetings and welcomes, then each awaited seat's replies, every line
// delivered in order. maxLines bounds the lines the seats may send (a game that would not
// end); Play fails past it, when a seat is sent a line after it ended, and when the loop
// itself breaks (no reply where one is awaited). A broken rule is not a failure of Play:
// Game.Violation says which.
func Play(j Judge, rs []Responder, maxLines int) (Game, error) {
	if len(rs) != j.Seats() {
		return Game{}, fmt.Errorf("judge: %d responders for %d seats", len(rs), j.Seats())
	}
	g := Game{Stderr: make([]string, len(rs)), Exits: make([]Reaction, len(rs))}
	pending := make([][]string, len(rs)) // replies a seat has made and the hub not yet read
	var late error
	deliver := func(outs []Out) {
		for _, o := range outs {
			g.Events = append(g.Events, Event{From: Log, To: o.To, Line: o.Line})
			if o.To == Log || o.To == Record {
				continue
			}
			if g.Exits[o.To].Done {
				if late == nil {
					late = fmt.Errorf("judge: seat %d was sent %q after it ended", o.To, o.Line)
				}
				continue
			}
			r := rs[o.To].React(o.Line)
			g.Stderr[o.To] += r.Stderr
			pending[o.To] = append(pending[o.To], r.Replies...)
			if r.Done {
				g.Exits[o.To] = r
			}
		}
	}
	for s := range rs {
		g.Events = append(g.Events, Event{From: s, To: Log, Line: rs[s].Greeting()})
	}
	for s := range rs {
		deliver(j.Welcome(s))
	}
	deliver(j.Start())
	for sent := 0; !j.Over() && late == nil; sent++ {
		s := j.Awaiting()
		if s < 0 {
			return g, fmt.Errorf("judge: the game is not over and awaits no one")
		}
		if sent >= maxLines {
			return g, fmt.Errorf("judge: more than %d lines from the seats", maxLines)
		}
		if len(pending[s]) == 0 {
			return g, fmt.Errorf("judge: seat %d has no reply where one is awaited", s)
		}
		line := pending[s][0]
		pending[s] = pending[s][1:]
		g.Events = append(g.Events, Event{From: s, To: Log, Line: line})
		outs, v := j.Take(line)
		if v != nil && g.Violation == nil {
			g.Violation = v
		}
		deliver(outs)
	}
	return g, late
}

// Record returns the lines of the game's record (judge.Record), in order.
func (g Game) Record() []string { return g.Received(Record) }

// Received returns the lines the hub sent seat s, in order (s Log: its own output; Record:
// the game's record).
func (g Game) Received(s int) []string {
	var out []string
	for _, e := range g.Events {
		if e.From == Log && e.To == s {
			out = append(out, e.Line)
		}
	}
	return out
}

// Sent returns the lines seat s sent the hub after its greeting, in order.
func (g Game) Sent(s int) []string {
	var out []string
	greeted := false
	for _, e := range g.Events {
		if e.From == s {
			if greeted {
				out = append(out, e.Line)
			}
			greeted = true
		}
	}
	return out
}
