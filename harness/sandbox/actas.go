package sandbox

import (
	"sync"

	"golang.org/x/sys/unix"

	"gauntlet/harness/hygiene"
)

// Setting another user's limits (prlimit) takes CAP_SYS_RESOURCE, which a root in a
// container often lacks; without it, the only way is for the calling thread to become that
// user for a moment (actAs). But a thread whose real user is the sandbox user can be sent
// any signal by that user's processes (tkill), SIGKILL included, which kills the whole
// harness: a hostile subject that loops over thread ids would end the grader or the judge
// the moment another of its programs is set up. So a direct start acts as its user only
// when no process of that user can be alive: the run's first program, of a run whose user
// no other run of this process may have alive (liveUsers). Any other start without the
// capability goes through the exec role, which sets its own limits before it becomes the
// user.

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
// lock held, so that no run starts meanwhile) and returned; ok is false when they could
// not all be killed, and the user then stays busy.
func releaseUser(uid int) (escaped []hygiene.Proc, ok bool) {
	liveUsers.Lock()
	defer liveUsers.Unlock()
	ur := liveUsers.m[uid]
	if ur == nil {
		return nil, true
	}
	if ur.n > 1 {
		ur.n--
		return nil, true
	}
	if escaped, ok = clearUser(uid, ur.since); ok {
		delete(liveUsers.m, uid)
	}
	return escaped, ok
}

// runsOf is the number of live runs that hold user uid.
func runsOf(uid int) int {
	liveUsers.Lock()
	defer liveUsers.Unlock()
	if ur := liveUsers.m[uid]; ur != nil {
		return ur.n
	}
	return 0
}
