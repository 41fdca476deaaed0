package grade

import (
	"slices"
	"sync"
)

// Slots are the busy-case slots (-j) that several grades on one machine share: a cohort's
// submissions (harness/grading/grade/cohort). Each grade that is given them (Options.Slots) runs its
// busy cases in these, and keeps the slots of its cases that wait (Case.Waits) and of its
// cases found quiet (moveWhenQuiet) to itself, as a grade alone has them: one submission
// that hangs moves its cases out of the shared slots as a grade alone does, and never holds
// the CPU's slots the others need (a submission whose programs all paused would otherwise
// take 22 minutes in a 9-submission cohort, 84 s alone). A freed slot goes to the waiter with the
// lowest priority number (Options.Priority: the cohort's earliest submission), then to the
// one that asked first, so that a cohort's submissions finish about in their order.
type Slots struct{ busy *pool }

// NewSlots makes jobs shared busy slots (at least 1).
func NewSlots(jobs int) *Slots { return &Slots{busy: newPool(max(jobs, 1))} }

// Acquire takes a slot for work that is not a case (a cohort's build) with priority prio,
// waiting for one; false, holding none, when stop was closed first.
func (s *Slots) Acquire(prio int, stop <-chan struct{}) bool { return s.busy.acquire(prio, stop) }

// Release gives back a slot Acquire took.
func (s *Slots) Release() { s.busy.release() }

// pool is a counting semaphore whose waiters are served by priority, then in order of
// arrival.
type pool struct {
	mu      sync.Mutex
	free    int
	seq     int
	waiters []*slotWaiter // in the order they are served
}

type slotWaiter struct {
	prio, seq int
	ready     chan struct{} // closed when the slot is handed over
}

func newPool(n int) *pool { return &pool{free: n} }

// acquire takes a slot, waiting for one; false, holding none, when stop (nil: never) was
// closed first.
func (p *pool) acquire(prio int, stop <-chan struct{}) bool {
	p.mu.Lock()
	if p.free > 0 && len(p.waiters) == 0 {
		p.free--
		p.mu.Unlock()
		return true
	}
	w := &slotWaiter{prio: prio, seq: p.seq, ready: make(chan struct{})}
	p.seq++
	i, _ := slices.BinarySearchFunc(p.waiters, w, func(a, b *slotWaiter) int {
		if a.prio != b.prio {
			return a.prio - b.prio
		}
		return a.seq - b.seq
	})
	p.waiters = slices.Insert(p.waiters, i, w)
	p.mu.Unlock()
	select {
	case <-w.ready:
		return true
	case <-stop:
	}
	p.mu.Lock()
	if i := slices.Index(p.waiters, w); i >= 0 {
		p.waiters = slices.Delete(p.waiters, i, i+1)
		p.mu.Unlock()
		return false
	}
	p.mu.Unlock()
	p.release() // handed over as stop came: passed on
	return false
}

// tryAcquire takes a slot when one is free and nobody waits for it.
func (p *pool) tryAcquire() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.free > 0 && len(p.waiters) == 0 {
		p.free--
		return true
	}
	return false
}

// release gives a slot back: to the first waiter, else to the free ones.
func (p *pool) release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.waiters) > 0 {
		w := p.waiters[0]
		p.waiters = p.waiters[1:]
		close(w.ready)
		return
	}
	p.free++
}
