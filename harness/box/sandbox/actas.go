package sandbox

import (
	"sync"

	"golang.org/x/sys/unix"

	"gauntlet/harness/box/hygiene"
)

// Setting another user's limits (prlimit) takes CAP_SYS_RESOURCE, which a root in a
// container often lacks; without it, the only way is for the calling thread to become that
// user for a moment (actAs). But a thread whose real user is the sandbox user can be sent
// any signal by that user's processes (tkill), SIGKILL included, which kills the whole
// harness: a hostile subject that loops over thread ids would end the grader or the judge
// the moment another of its programs is set up. So a direct start acts as its user only
// when no process of that user can be alive: the run's first program, of a run whose user
// no other run of this process may have alive (liveUsers), and no other run of the user
// may begin until it is set up (startAlone). Any other start without the capability goes
// through the exec role, which sets its own limits before it becomes the user.

// canSetOthersLimits says whether the harness may set the limits of another user's process
// as it is: CAP_SYS_RESOURCE in its effective set.
var canSetOthersLimits = sync.OnceValue(func() bool {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return false
	}
	return data[unix.CAP_SYS_RESOURCE/32].Effective&(1<<(unix.CAP_SYS_RESOURCE%32)) != 0
})

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
	// alone is held while a program of the user is set up as the user (startAlone): a run
	// that begins meanwhile waits, so that none of its programs exists in that moment.
	alone sync.Mutex
}

// holdUsers marks the users of uids busy for one more run, which begins after mark; it
// returns once no program of theirs is being set up as its user.
func holdUsers(uids []int, mark hygiene.PidMark) {
	var held []*userRuns
	liveUsers.Lock()
	for _, u := range uids {
		ur := liveUsers.m[u]
		if ur == nil {
			ur = &userRuns{since: mark}
			liveUsers.m[u] = ur
		}
		ur.n++
		held = append(held, ur)
	}
	liveUsers.Unlock()
	for _, ur := range held {
		ur.alone.Lock()
		ur.alone.Unlock()
	}
}

// startAlone runs start, telling it whether its program starts alone with user uid: it is
// the first program of its run (first), a run that holds the user, and no other live run
// does. Until start returns, no other run of the user can begin (holdUsers waits).
func startAlone(uid int, first bool, start func(alone bool)) {
	liveUsers.Lock()
	ur := liveUsers.m[uid]
	liveUsers.Unlock()
	if ur == nil || !first {
		start(false)
		return
	}
	ur.alone.Lock()
	defer ur.alone.Unlock()
	liveUsers.Lock()
	alone := ur.n == 1
	liveUsers.Unlock()
	start(alone)
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
