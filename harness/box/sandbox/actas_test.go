package sandbox

import (
	"testing"
	"time"

	"gauntlet/harness/box/hygiene"
)

// A program starts alone only as the first of the only live run of its user, and a run of
// that user that begins meanwhile waits until the program is set up.
func TestStartAlone(t *testing.T) {
	const uid = 1_799_999_999 // no lease: only the count is tested
	alone := func(first bool) (got bool) {
		startAlone(uid, first, func(a bool) { got = a })
		return got
	}
	mark := hygiene.MarkPids()
	holdUsers([]int{uid}, mark)
	if !alone(true) {
		t.Error("the first program of the only run of its user does not start alone")
	}
	if alone(false) {
		t.Error("a run's second program starts alone")
	}
	holdUsers([]int{uid}, mark)
	if alone(true) {
		t.Error("the first program of a run starts alone while another run of its user is live")
	}
	releaseUser(uid)
	if !alone(true) {
		t.Error("once the other run finished, the first program does not start alone")
	}

	// A run that begins while a program is set up alone waits for it.
	setUp := make(chan struct{})
	held := make(chan struct{})
	go startAlone(uid, true, func(bool) {
		close(setUp)
		time.Sleep(100 * time.Millisecond)
	})
	<-setUp
	began := time.Now()
	go func() {
		holdUsers([]int{uid}, mark)
		close(held)
	}()
	<-held
	if waited := time.Since(began); waited < 50*time.Millisecond {
		t.Errorf("a run began %v into a program's set-up as its user; want it to wait for the end", waited)
	}
	releaseUser(uid)
	releaseUser(uid)
	liveUsers.Lock()
	defer liveUsers.Unlock()
	if ur := liveUsers.m[uid]; ur != nil {
		t.Errorf("the user is still held by %d runs after every run finished", ur.n)
	}
}
