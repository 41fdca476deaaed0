package hubrt

import (
	"sync"
	"time"

	"gauntlet/harness/box/hygiene"
)

// WallBackstop is how many times a read's time limit a read may take on the clock, however
// long the machine held the player: the bound of a read that readBound could not stop (a
// player the machine never ran).
const WallBackstop = 10

// wallBackstop is WallBackstop, but for the package's tests, whose players stand beside busy
// loops of their own and must be judged by their own time, however busy the machine is.
var wallBackstop time.Duration = WallBackstop

// cpuBound ends one timed read of a player once the player's own time on it reaches the
// read's limit: the time it computed or waited, less the time the machine held it, ready to
// run but running something else (hygiene.TreeUse: its process and everything it started,
// every thread; while a thread is runnable, or blocked writing to a hub the machine holds,
// its CPU time only). So a verdict that rests on a read's time (a Stratego AI's setup or move, a
// referee's feature line) does not depend on how busy the machine is: on a loaded machine a
// program that computes gets more wall time for the same work, and one that waits (asleep,
// or for input that never comes) times out at the limit as on an idle one. Past WallBackstop
// times the limit on the clock (or the backstop its hub sets) the read ends whatever the
// player did. The bound ends the
// read by setting the pipe's deadline in the past, as Interrupt does; it costs nothing
// until the limit has passed on the clock, then one look at /proc each time the player
// could have reached the limit.
type cpuBound struct {
	mu    sync.Mutex
	timer *time.Timer
	done  bool
	clock bool // the clock's backstop ended the read, not the player's own time
}

// boundRead starts the bound of a read of p limited to d of the player's own time (0: none)
// and to wall on the clock (0: wallBackstop times d); one of them is not 0.
func boundRead(p *player, d, wall time.Duration) *cpuBound {
	b := &cpuBound{}
	switch {
	case wall <= 0:
		wall = wallBackstop * d
	case d <= 0:
		d = wall // the clock alone: the player's own time cannot pass it first
	}
	pid := p.cmd.Process.Pid
	start := time.Now()
	before, _ := hygiene.ReadTreeUse(pid, false) // gone already: the read sees its end of file
	b.mu.Lock()
	defer b.mu.Unlock()
	b.timer = time.AfterFunc(min(d, wall), func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.done {
			return
		}
		elapsed := time.Since(start)
		now, err := hygiene.ReadTreeUse(pid, true)
		own := elapsed - now.HeldSince(before) // computed or waited, not held
		cpu := now.CPU - before.CPU            // more than own when it computes on several cores
		// A tree with a thread runnable now may be in a wait the kernel has not yet added
		// to its run delay, and one blocked writing waits for the hub to read (the machine
		// holds the hub): its own time is not known, only its CPU time.
		spent := err != nil || own >= d && !now.Runnable && !now.Writing || cpu >= d
		if spent || elapsed >= wall {
			b.clock = !spent
			p.deadline.SetReadDeadline(time.Unix(1, 0))
			return
		}
		// It cannot reach the limit sooner than that (a runnable tree: than a tick).
		next := min(d-max(own, cpu), wall-elapsed)
		if own >= d {
			next = min(d-cpu, wall-elapsed, 10*time.Millisecond)
		}
		b.timer.Reset(max(next, time.Millisecond))
	})
	return b
}

// onTheClock says whether the bound ended the read at the clock's backstop rather than at
// the limit of the player's own time.
func (b *cpuBound) onTheClock() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.clock
}

// stop ends the bound: from now on it never touches the pipe's deadline (the next read sets
// its own).
func (b *cpuBound) stop() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done = true
	b.timer.Stop()
}
