package hubrt

import (
	"bufio"
	"errors"
	"io"
	"time"

	"gauntlet/games/judge"
)

// Policy is what differs between the reference hubs around one loop (Play): the
// handshake, how each kind of end maps to an exit status, how players are given time to
// exit, and what a signal does. Everything else (the game's rules) is the judge's; the
// arguments, starting the players and the final messages stay in the hub.
type Policy struct {
	// Handshake is the byte each player sends first, without a newline ('!' for stlucia,
	// '^' for 2310dealer); the handshakes are read in seat order and each seat gets its
	// Judge.Welcome once its own has been read. 0: the protocol has no handshake, the seats
	// are welcomed at once.
	Handshake byte
	// BadHandshake is the status when a handshake is missing (end of file, a read error)
	// or another byte: the game never starts and every player is killed at once.
	BadHandshake int
	// ReadStatus gives the status when reading the awaited seat's line fails: io.EOF (it
	// quit), lineio.ErrTooLong, ErrTimeout (past ReadTimeout), or another read error. The
	// game is then aborted (Judge.Abort) like on any other loss. Required.
	ReadStatus func(err error) int

	// Grace is how long the players have to exit once the game has ended, before SIGKILL.
	Grace time.Duration
	// GraceFromLastSend makes the grace count from when the last line was sent to a
	// player (stlucia: "2 seconds after the last message") instead of from the end of the
	// loop (2310dealer: after DONE or EARLY).
	GraceFromLastSend bool

	// InterruptStatus is the status when a watched signal arrives (Hub.Watch,
	// Hub.Interrupt).
	InterruptStatus int
	// KillOnInterrupt makes a signal kill the players at once, with nothing more sent
	// (2310dealer on SIGHUP). Otherwise the game is aborted and the players get the grace,
	// as after a loss (stlucia on SIGINT).
	KillOnInterrupt bool

	// ReadTimeout, when not zero, bounds every read: a handshake not read in time is a bad
	// handshake; a line not whole in time is a failed read of that seat with the error
	// ErrTimeout (ReadStatus gives its status). Zero: reads wait as long as the player
	// takes.
	ReadTimeout time.Duration
	// SeatTimeout, when not nil, gives each seat's ReadTimeout (the referee runner's
	// referee and players have their own times).
	SeatTimeout func(seat int) time.Duration
	// ReadBackstop, when not zero, is the time on the clock a read may take whatever the
	// player does (ErrWallTimeout past it): by default WallBackstop times the read's limit,
	// which counts the player's own time, not the time a busy machine held it (cpuBound).
	ReadBackstop time.Duration
	// PauseIdle stops (SIGSTOP) every player but the one whose handshake or line is
	// awaited, and lets that one go on (SIGCONT) before each read, so that a player
	// computes only on its own turn; at the end every player is let go on before the
	// grace. Lines sent to a stopped player wait in its pipe, so a protocol using it must
	// send an idle player less than a pipe holds (64 KiB on Linux) between its turns.
	PauseIdle bool
	// PauseSeat, when not nil, says which idle seats PauseIdle may stop now (the referee
	// runner never stops its referee; the Stratego manager stops no AI during the setups).
	PauseSeat func(seat int) bool

	// Lost gives the account of a failed read of the awaited seat's line, for a judge that
	// is a judge.Loser (nil: its error's text, Timeout for ErrTimeout). Such a judge says
	// itself what follows the loss (Loser.Lose), and the game goes on while it is not over;
	// other judges are aborted (Judge.Abort).
	Lost func(seat int, err error) judge.Lost
	// Record receives the lines of the game's record (judge.Record), flushed with log; nil
	// drops them. It may be log itself.
	Record *bufio.Writer
	// Pace, when not zero, is a wait after each line of the record (Stratego's -t: a person
	// can follow the moves); a watched signal ends it.
	Pace time.Duration
	// PaceInput, when not nil, makes the wait after each line of the record last until a
	// line is read from it (Stratego's -t inf: the person presses Enter), instead of Pace;
	// once it ends, there is no more wait. A watched signal ends a wait.
	PaceInput io.Reader
	// CloseAtEnd closes every player's input when the game ends, before the grace: end of
	// file is the players' sign that it is over (the referee protocol has no last line).
	CloseAtEnd bool
}

// How says how Play ended.
type How int

const (
	GameOver        How = iota // the judge ended the game by its rules; status 0
	RuleBroken                 // a seat's line broke a rule; the status is the violation's
	ReadFailed                 // reading the awaited seat's line failed (Ending.Err)
	HandshakeFailed            // a handshake was missing or wrong; the game never started
	Interrupted                // a watched signal arrived
)

// Ending is how Play ended: the hub's exit status, and how each player ended. Every player
// has been reaped.
type Ending struct {
	How    How
	Status int
	Seat   int   // the seat that broke a rule, whose read failed or whose handshake did; else -1
	Err    error // the read error (ReadFailed, HandshakeFailed; nil: a wrong handshake byte)
	// Violation is the rule broken (RuleBroken).
	Violation *judge.Violation
	Exits     []Exit
}

// Play drives judge j over the players of h, who have just been started, until the game
// ends, and reaps them: it reads the handshakes and sends the welcomes, starts the game,
// then reads each awaited seat's line and feeds it to the judge; every output of the judge
// goes to its seat (Hub.Send) or, for judge.Log, to log, which is flushed before each read
// of a line and at the end. A lost seat or a signal aborts the game (Judge.Abort). At the
// end the players get p.Grace to exit before SIGKILL; a failed handshake, and a signal
// with p.KillOnInterrupt, kill them at once.
func Play(j judge.Judge, h *Hub, log *bufio.Writer, p Policy) Ending {
	g := &game{j: j, h: h, log: log, p: p, paused: make([]bool, h.Len())}
	return g.play()
}

// game is one run of Play.
type game struct {
	j      judge.Judge
	h      *Hub
	log    *bufio.Writer
	p      Policy
	last   time.Time // when the last line was sent to a player
	paused []bool    // the players stopped by PauseIdle
	enters chan bool // PaceInput's lines (true), closed at its end; nil before the first wait
}

func (g *game) play() Ending {
	// A signal that came before Play (one the hub caught before it watched: Hub.Interrupt)
	// ends the game before anything is sent, welcomes included.
	if g.h.interrupted() {
		return g.interrupted()
	}
	for i := 0; i < g.h.Len(); i++ {
		if g.p.Handshake != 0 {
			b, err := g.readHandshake(i)
			if errors.Is(err, ErrInterrupted) {
				return g.interrupted()
			}
			if err != nil || b != g.p.Handshake {
				// The game never started: kill everyone at once.
				return Ending{How: HandshakeFailed, Status: g.p.BadHandshake, Seat: i, Err: err, Exits: g.h.Kill()}
			}
		}
		g.emit(g.j.Welcome(i))
	}
	g.emit(g.j.Start())
	// The first broken rule, where the rules go on after it (a Stratego setup).
	var broken *Ending
	for !g.j.Over() {
		s := g.j.Awaiting()
		g.flush()
		line, err := g.readLine(s)
		switch {
		case errors.Is(err, ErrInterrupted):
			return g.interrupted()
		case err != nil:
			e := Ending{How: ReadFailed, Status: g.p.ReadStatus(err), Seat: s, Err: err}
			l, ok := g.j.(judge.Loser)
			if !ok {
				return g.abort(e)
			}
			g.emit(l.Lose(g.lost(s, err)))
			if g.j.Over() {
				return g.finish(e)
			}
			continue
		}
		outs, v := g.j.Take(line)
		g.emit(outs) // with a violation: what the rules send when they end the game
		if v != nil {
			e := Ending{How: RuleBroken, Status: v.Status, Seat: v.Seat, Violation: v}
			if g.j.Over() {
				return g.finish(e)
			}
			if broken == nil {
				broken = &e
			}
		}
	}
	if broken != nil {
		return g.finish(*broken)
	}
	return g.finish(Ending{How: GameOver, Seat: -1})
}

// lost is the account of seat s's failed read for a judge.Loser.
func (g *game) lost(s int, err error) judge.Lost {
	if g.p.Lost != nil {
		return g.p.Lost(s, err)
	}
	return judge.Lost{Timeout: errors.Is(err, ErrTimeout), Why: err.Error()}
}

// flush flushes log and the record.
func (g *game) flush() {
	if g.p.Record != nil && g.p.Record != g.log {
		g.p.Record.Flush()
	}
	g.log.Flush()
}

// readHandshake reads seat s's handshake, within ReadTimeout.
func (g *game) readHandshake(s int) (byte, error) {
	g.await(s)
	res := g.h.read(s, readByte, g.timeout(s), g.p.ReadBackstop)
	return res.b, res.err
}

// readLine reads seat s's line, within ReadTimeout (and ReadBackstop).
func (g *game) readLine(s int) (string, error) {
	g.await(s)
	res := g.h.read(s, readLine, g.timeout(s), g.p.ReadBackstop)
	return res.line, res.err
}

// timeout is seat s's ReadTimeout.
func (g *game) timeout(s int) time.Duration {
	if g.p.SeatTimeout != nil {
		return g.p.SeatTimeout(s)
	}
	return g.p.ReadTimeout
}

// await leaves only seat s running, with PauseIdle.
func (g *game) await(s int) {
	if g.p.PauseIdle {
		for i := range g.paused {
			g.setPaused(i, i != s && (g.p.PauseSeat == nil || g.p.PauseSeat(i)))
		}
	}
}

// setPaused stops or resumes player i unless it already is so.
func (g *game) setPaused(i int, stop bool) {
	if stop == g.paused[i] {
		return
	}
	if stop {
		g.h.Pause(i)
	} else {
		g.h.Resume(i)
	}
	g.paused[i] = stop
}

// emit carries out the judge's outputs in order.
func (g *game) emit(outs []judge.Out) {
	for _, o := range outs {
		switch o.To {
		case judge.Log:
			g.log.WriteString(o.Line)
			g.log.WriteByte('\n')
			continue
		case judge.Record:
			if g.p.Record != nil {
				g.p.Record.WriteString(o.Line)
				g.p.Record.WriteByte('\n')
			}
			g.pace()
			continue
		}
		g.h.Send(o.To, o.Line)
		g.last = time.Now()
	}
}

// pace waits Policy.Pace after a line of the record, or for a line of PaceInput, or
// until a watched signal.
func (g *game) pace() {
	if g.p.PaceInput != nil && !g.j.Over() {
		g.flush()
		g.awaitEnter()
		return
	}
	if g.p.Pace <= 0 || g.j.Over() {
		return
	}
	g.flush()
	t := time.NewTimer(g.p.Pace)
	defer t.Stop()
	select {
	case <-t.C:
	case <-g.h.interrupt:
	}
}

// awaitEnter waits for the next line of PaceInput (none once it has ended), or until a
// watched signal.
func (g *game) awaitEnter() {
	if g.enters == nil {
		g.enters = make(chan bool)
		go func() {
			defer close(g.enters)
			r := bufio.NewReader(g.p.PaceInput)
			for {
				if _, err := r.ReadString('\n'); err != nil {
					return
				}
				select {
				case g.enters <- true:
				case <-g.h.interrupt:
					return
				}
			}
		}()
	}
	select {
	case <-g.enters:
	case <-g.h.interrupt:
	}
}

// interrupted ends the game after a watched signal.
func (g *game) interrupted() Ending {
	e := Ending{How: Interrupted, Status: g.p.InterruptStatus, Seat: -1}
	if g.p.KillOnInterrupt {
		g.flush()
		e.Exits = g.h.Kill()
		return e
	}
	return g.abort(e)
}

// abort sends what the judge sends when the game ends early, and finishes.
func (g *game) abort(e Ending) Ending {
	g.emit(g.j.Abort())
	return g.finish(e)
}

// finish flushes log, lets every player go on, waits up to the grace for them to exit,
// kills the rest and reaps them all.
func (g *game) finish(e Ending) Ending {
	g.flush()
	for i := range g.paused {
		g.setPaused(i, false)
	}
	if g.p.CloseAtEnd {
		for i := 0; i < g.h.Len(); i++ {
			g.h.CloseInput(i)
		}
	}
	e.Exits = g.h.WaitUntil(g.killAt())
	return e
}

// killAt is when the players still running at the end are killed.
func (g *game) killAt() time.Time {
	if g.p.GraceFromLastSend {
		return g.last.Add(g.p.Grace)
	}
	return time.Now().Add(g.p.Grace)
}
