package sandbox

import (
	"sync"

	"gauntlet/harness/box/hygiene"
)

// liveUsers counts, for each sandbox user, the runs of this process that may have a
// process of that user alive: a run that runs as it with a lease (NewLease, Identity.Lease)
// or lets a judge start programs as it (Identity.Delegate), from its Start until its
// finish. Runs of a case overlap when one runs in the background. The last of such
// overlapping runs to finish clears the user (clearUser): every process of it started
// since the first of them began is killed, the escaped ones with them. A user that could
// not be cleared is never taken off: it stays busy.
var liveUsers = struct {
	sync.Mutex
	m map[int]*userRuns
}{m: map[int]*userRuns{}}

// userRuns is what liveUsers knows of one user.
type userRuns struct {
	n     int             // live runs
	since hygiene.PidMark // the pid allocation when the first of them began
}

// holdUsers marks the users of uids busy for one more run, which begins after mark.
func holdUsers(uids []int, mark hygiene.PidMark) {
	liveUsers.Lock()
	defer liveUsers.Unlock()
	for _, u := range uids {
		ur := liveUsers.m[u]
		if ur == nil {
			ur = &userRuns{since: mark}
			liveUsers.m[u] = ur
		}
		ur.n++
	}
}

// releaseUser takes a finished run off user uid. When it was the user's last live run,
// every process of the user started since the first of its runs began is killed (the
// lock held, so that no run starts meanwhile) and returned, with the user's zombies that
// are the harness's children (clearUser); ok is false when they could not all be killed,
// and the user then stays busy.
func releaseUser(uid int) (escaped, zombies []hygiene.Proc, ok bool) {
	liveUsers.Lock()
	defer liveUsers.Unlock()
	ur := liveUsers.m[uid]
	if ur == nil {
		return nil, nil, true
	}
	if ur.n > 1 {
		ur.n--
		return nil, nil, true
	}
	if escaped, zombies, ok = clearUser(uid, ur.since); ok {
		delete(liveUsers.m, uid)
	}
	return escaped, zombies, ok
}

// aloneWith says whether at most one live run holds user uid: the run that asks, whose
// processes are then all of that user's (see tracker.update).
func aloneWith(uid int) bool {
	liveUsers.Lock()
	defer liveUsers.Unlock()
	ur := liveUsers.m[uid]
	return ur == nil || ur.n <= 1
}
