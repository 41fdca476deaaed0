package sandbox

import (
	"sync"

	"golang.org/x/sys/unix"
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
// process of that user alive: a run that runs as it or lets a judge start programs as it
// (Identity.Delegate), from its Start until a finish that killed and reaped everything.
// A run whose finish could not is never taken off: its user stays busy.
var liveUsers = struct {
	sync.Mutex
	n map[int]int
}{n: map[int]int{}}

// holdUsers marks the users of uids busy for one more run.
func holdUsers(uids []int) {
	liveUsers.Lock()
	defer liveUsers.Unlock()
	for _, u := range uids {
		liveUsers.n[u]++
	}
}

// releaseUsers takes one run off the users of uids.
func releaseUsers(uids []int) {
	liveUsers.Lock()
	defer liveUsers.Unlock()
	for _, u := range uids {
		if liveUsers.n[u]--; liveUsers.n[u] <= 0 {
			delete(liveUsers.n, u)
		}
	}
}

// runsOf is the number of live runs that hold user uid.
func runsOf(uid int) int {
	liveUsers.Lock()
	defer liveUsers.Unlock()
	return liveUsers.n[uid]
}
