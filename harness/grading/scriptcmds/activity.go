package scriptcmds

import (
	"sync"
	"time"

	"gauntlet/harness/box/sandbox"
)

// ActivityKey, in a script's testscript values (Env.Values), holds the *Activity its
// grader watches: run adds each program it starts to it.
type ActivityKey struct{}

// Activity is what the programs a script has running are doing, for a grader that gives a
// case a CPU slot only while it uses one: a case whose programs all wait (on input that
// never comes, on a timer) is quiet, and costs the machine nothing while it waits.
type Activity struct {
	mu      sync.Mutex
	groups  map[*sandbox.Group]bool
	longest time.Duration // the longest Quiet seen
	// others are programs of the script that no group runs (the witnessed mock players,
	// outside the box): how long they have all been quiet, and whether any runs.
	others []func() (time.Duration, bool)
	// deadlines counts the runs whose deadline passed, busy those of them whose programs
	// were not all waiting then (the sandbox's diagnosis, taken before the kill, and the
	// others as last seen running).
	deadlines, busy int
	// othersBusy says whether the others were working when Quiet last saw one running.
	othersBusy bool
}

// deadlinePassed notes a run whose deadline passed; waiting says its programs were all
// waiting then (asleep, blocked reading or writing, waiting for a child), not working. The
// others (the witnessed mock players a hub talks to, which the sandbox's diagnosis does
// not see) count too: when Quiet last saw one of them running, they had to be quiet, or
// the hub was waiting on players that worked (a loaded machine slowed them).
func (a *Activity) deadlinePassed(waiting bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.deadlines++
	if !waiting || a.othersBusy {
		a.busy++
	}
}

// AtDeadlines says whether the deadline of a run of the script passed, and if so whether
// the programs were all waiting at every such deadline: what they were doing when the
// time ran out, which the load does not change, unlike how long they looked quiet before
// (a program that the loaded machine held at its start looks quiet a while, then works).
func (a *Activity) AtDeadlines() (passed, waiting bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.deadlines > 0, a.deadlines > 0 && a.busy == 0
}

// watch adds programs of the script that no group runs.
func (a *Activity) watch(quiet func() (time.Duration, bool)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.others = append(a.others, quiet)
}

// Longest is the longest time Quiet has said the script's programs were all quiet at once.
func (a *Activity) Longest() time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.longest
}

func (a *Activity) add(g *sandbox.Group) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.groups == nil {
		a.groups = map[*sandbox.Group]bool{}
	}
	a.groups[g] = true
}

func (a *Activity) remove(g *sandbox.Group) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.groups, g)
}

// Quiet says how long every program the script has running has been quiet
// (sandbox.Group.Quiet, and the witnessed mock players its hubs talk to, which run outside
// the groups): the least of theirs, and 0 when no group runs (the script is between
// commands, or has not started one).
func (a *Activity) Quiet() time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.groups) == 0 {
		return 0
	}
	least := time.Duration(-1)
	for g := range a.groups {
		if q := g.Quiet(); least < 0 || q < least {
			least = q
		}
	}
	if q, running := a.othersQuiet(); running && q < least {
		least = q
	}
	a.longest = max(a.longest, least)
	return least
}

// othersQuiet says how long the others running have all been quiet, and whether any runs;
// it notes whether they were working (othersBusy) when one runs. a.mu is held.
func (a *Activity) othersQuiet() (time.Duration, bool) {
	least, seen, busy := time.Duration(-1), false, false
	for _, other := range a.others {
		q, running := other()
		if !running {
			continue
		}
		seen, busy = true, busy || q <= 0
		if least < 0 || q < least {
			least = q
		}
	}
	if seen {
		a.othersBusy = busy
	}
	return least, seen
}
