package sandbox

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"gauntlet/harness/hygiene"
)

// A UserPool lends sandbox users to runs that overlap but must not share a user (a fuzzing
// campaign's): each borrowed user is its run's alone, and comes back only once nothing the
// run started is left, so that the next run's program starts alone (Identity.Alone). A
// new lease reads every process of the machine; a user lent again costs only a look at the
// processes started since its run began.
type UserPool struct {
	mu   sync.Mutex
	idle []*Lease
}

// Borrow lends a user for one run, and marks the pid allocation: every process of the run
// will have a pid allocated after the mark, which Return needs.
func (p *UserPool) Borrow() (*Lease, hygiene.PidMark, error) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		l := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return l, hygiene.MarkPids(), nil
	}
	p.mu.Unlock()
	l, err := NewLease()
	if err != nil {
		return nil, hygiene.PidMark{}, err
	}
	return l, hygiene.MarkPids(), nil
}

// Return takes a user back after its run, whose first start came after mark: every process
// of that user started since then is killed (SIGKILL, again until a look finds none left
// but zombies), and the user is lent again. A user whose processes cannot all be seen gone
// is released instead, never to be lent by this pool again.
func (p *UserPool) Return(l *Lease, mark hygiene.PidMark) {
	killed, ok := clearUser(l.UID(), mark)
	reapAdopted(killed)
	if !ok {
		l.Release()
		return
	}
	p.mu.Lock()
	p.idle = append(p.idle, l)
	p.mu.Unlock()
}

// Close releases the idle users. Users still lent are the borrowers' to release.
func (p *UserPool) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range p.idle {
		l.Release()
	}
	p.idle = nil
}

// clearUser kills every live process of user uid started since mark, and says whether a
// last look found no other. It looks again while a look finds new ones: a process may fork
// while it is looked at. A process sent SIGKILL never runs its own code again, so it
// counts as gone even before it has died.
func clearUser(uid int, mark hygiene.PidMark) (killed []hygiene.Proc, ok bool) {
	type key struct {
		pid   int
		start uint64
	}
	seen := map[key]bool{}
	for range 5 {
		procs, err := hygiene.ScanSince(&mark, nil, nil)
		if err != nil {
			return killed, false
		}
		found := 0
		for _, pr := range procs {
			k := key{pr.Pid, pr.Start}
			// /proc shows a process of uid as uid's, or as root's once it is non-dumpable.
			if pr.State == 'Z' || seen[k] || pr.UID != uint32(uid) && (pr.UID != 0 || !ownedBy(pr.Pid, uid)) {
				continue
			}
			if err := syscall.Kill(pr.Pid, syscall.SIGKILL); err != nil && err != syscall.ESRCH {
				return killed, false
			}
			seen[k] = true
			killed = append(killed, pr)
			found++
		}
		if found == 0 {
			return killed, true
		}
	}
	return killed, false
}

// reapAdopted reaps, once dead, the processes of procs that the harness adopted (it is a
// subreaper): orphans nobody else waits for. Only for processes the harness did not start.
func reapAdopted(procs []hygiene.Proc) {
	for _, p := range procs {
		if p.PPid == os.Getpid() {
			go syscall.Wait4(p.Pid, nil, 0, nil)
		}
	}
}

// ownedBy says whether process pid has uid as its real, effective or saved user: from its
// status file, which tells the truth where the owner of /proc/PID does not (a process that
// made itself non-dumpable shows as root's there). A process gone by now is not.
func ownedBy(pid, uid int) bool {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		ids, ok := strings.CutPrefix(sc.Text(), "Uid:")
		if !ok {
			continue
		}
		for _, id := range strings.Fields(ids)[:3] {
			if id == strconv.Itoa(uid) {
				return true
			}
		}
		return false
	}
	return false
}
