package grade

import (
	"runtime"
	"slices"
	"testing"
)

// A freed slot goes to the waiter with the lowest priority number, then to the one that
// asked first; a waiter whose stop is closed leaves the queue holding nothing, and a slot
// nobody waits for is free again.
func TestSlotsServeByPriority(t *testing.T) {
	p := newPool(1)
	if !p.acquire(5, nil) {
		t.Fatal("the free slot was not taken")
	}
	if p.tryAcquire() {
		t.Fatal("a second slot was taken from a pool of one")
	}
	type ask struct {
		name string
		prio int
	}
	asks := []ask{{"c1", 2}, {"b", 1}, {"c2", 2}, {"quits", 0}, {"a", 0}}
	got := make(chan string)
	quit := make(chan struct{})
	quitDone := make(chan bool)
	for _, a := range asks {
		stop := (<-chan struct{})(nil)
		if a.name == "quits" {
			stop = quit
		}
		go func() {
			ok := p.acquire(a.prio, stop)
			if a.name == "quits" {
				quitDone <- ok
				return
			}
			got <- a.name
		}()
		// Each is queued before the next asks: waiters, by structure, not by time.
		for {
			p.mu.Lock()
			n := len(p.waiters)
			p.mu.Unlock()
			if n == slices.Index(asks, a)+1 {
				break
			}
			runtime.Gosched()
		}
	}
	close(quit)
	if <-quitDone {
		t.Error("the waiter whose stop closed got a slot")
	}
	var order []string
	for range 4 {
		p.release()
		order = append(order, <-got)
	}
	if want := []string{"a", "b", "c1", "c2"}; !slices.Equal(order, want) {
		t.Errorf("slots handed in the order %v, want %v", order, want)
	}
	p.release()
	if !p.tryAcquire() {
		t.Error("the slot given back with nobody waiting is not free")
	}
}
