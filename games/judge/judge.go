// Package judge is the shape every game's engine offers so that the harness can judge a
// program that chooses its own moves, and drive a game without writing the hub-player loop
// again for each game.
//
// A Judge is the hub's side of a game (the hub of St Lucia, the dealer of 2310, later a
// server or a match runner) as a pure value: it says what the hub sends to whom, whose line
// it awaits, and, for each line a seat sends, either what follows or the rule the line
// broke. A Responder is a player's side: its greeting and its reaction to each line. The
// package is pure: no I/O, no clocks, standard library only. Each game provides both shapes
// over its own engine (games/stlucia, games/dealer2310).
package judge

import "fmt"

// Log is the Out.To of a line the hub writes on its own output, not to a seat.
const Log = -1

// Out is one line the hub sends to seat To, or writes on its own output when To is Log;
// Line has no '\n'.
type Out struct {
	To   int
	Line string
}

// Violation is a rule a seat broke: the line it sent (without '\n'), the rule in the
// spec's terms, and the exit status the spec gives the hub when a player breaks it.
type Violation struct {
	Seat   int
	Line   string
	Rule   string
	Status int
}

func (v *Violation) Error() string {
	return fmt.Sprintf("seat %d sent %q: %s (the hub exits %d)", v.Seat, v.Line, v.Rule, v.Status)
}

// Judge is the hub's side of one game.
type Judge interface {
	// Seats is the number of players.
	Seats() int
	// Welcome is what the hub sends seat s once it has the seat's greeting.
	Welcome(s int) []Out
	// Start begins the game once every seat has greeted: the first lines, up to the first
	// line awaited.
	Start() []Out
	// Awaiting is the seat whose line the hub waits for, or -1 (not started, or over).
	Awaiting() int
	// Allowed says, for people, which lines the awaited seat may send now.
	Allowed() string
	// Take feeds the awaited seat's line. A line that breaks a rule gives a Violation and
	// the lines the hub sends when it ends the game for it (the judge is then over), or,
	// where the game's rules go on after the broken rule (Stratego asks BLUE for its setup
	// after RED's bad one), the lines that follow, the judge ending later.
	Take(line string) ([]Out, *Violation)
	// Abort ends the game early (a seat lost, a signal): the lines the hub sends then.
	Abort() []Out
	// Over reports whether the game has ended.
	Over() bool
}

// Reaction is what a player does after one line from the hub, or after losing it.
type Reaction struct {
	Replies []string // lines to send the hub, without '\n'
	Stderr  string   // what the player writes on its stderr, newlines included
	Done    bool     // the player exits now
	Status  int      // its exit status, when Done
}

// Responder is a player's side of one game.
type Responder interface {
	// Greeting is what the player writes first (the handshake), without '\n' unless the
	// protocol has one.
	Greeting() string
	// React is the player's reaction to one line from the hub (without '\n').
	React(line string) Reaction
	// Lost is the player's reaction to the hub's end of file.
	Lost() Reaction
}

// Record is the Out.To of a line of the game's record (a move log, such as the Stratego
// manager's -o file): the hub keeps it where its options say, or drops it.
const Record = -2

// Lost is why the awaited seat's line could not be had: silence past the seat's time, end
// of file, a line too long, input the seat could not take, a read error.
type Lost struct {
	Timeout bool   // no whole line within the seat's time
	Why     string // the hub's account of it, for people ("no whole line within 2s")
}

// Loser is a Judge whose rules say what follows when the awaited seat's line cannot be had
// (Stratego: ILLEGAL for that side; the referee runner: "timeout N" or "lost N"). Lose gives
// the lines then, like Take: the judge is over, or, where the rules go on (a Stratego setup
// not sent, BLUE still asked), it awaits the next seat. A hub without it aborts the game
// (Abort), which stays the answer to the hub's own reasons (a signal).
type Loser interface {
	Lose(l Lost) []Out
}
