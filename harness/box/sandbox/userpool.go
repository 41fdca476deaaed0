package sandbox

import (
	"errors"
	"io"
	"os"
	"sync"
	"syscall"

	"gauntlet/harness/box/hygiene"
)

// A UserPool lends sandbox users to runs that overlap but must not share a user (a fuzzing
// campaign's): each borrowed user is its run's alone, and comes back only once nothing the
// run started is left. A
// new lease reads every process of the machine; a user lent again costs only a look at the
// processes started since its run began.
//
// Each user belongs to the owner it was first lent to (BorrowFor: a submission of a
// cohort): it is lent again to that owner only, never to another while that owner's runs
// go on, and not even once Retire has given it back to the machine, as long as the pool
// has a uid no other owner had. So nothing one submission's programs could leave with
// their user (a process that slipped every sweep, a file in a folder a later case shares)
// meets another submission's programs. Only a pool out of fresh uids (4096, about 30
// submissions that each keep 138 cases waiting at once) lends a retired owner's again:
// every process of it was killed, and its folders are gone.
type UserPool struct {
	mu   sync.Mutex
	idle map[string][]*Lease // by owner
	// owners holds the owner of every uid this pool has lent; retired, the owners Retire
	// was called for.
	owners  map[int]string
	retired map[string]bool
	// owned holds each lent user's owner, until Return or Retire.
	owned map[*Lease]string
	// kept is what goes with each user and is lent again with it (Keep): its network
	// namespace (Net), a case's cgroup. It is closed when the user is released.
	kept map[*Lease]map[any]io.Closer
}

// CaseUsers lends the sandbox users of this process's graded cases: a case borrows one for
// all its runs and gives it back at its end (harness/grading/scriptcmds). A new lease reads every
// process (usedIDs); a user lent again costs only a look at the processes started since
// its last case began. The users of one case are never another's at the same time, and a
// user comes back with nothing of its case left running; its files in the case's folders
// are gone with them, and the box hides the machine's shared temporary folders.
var CaseUsers UserPool

// Borrow lends a user for one run (BorrowFor with no owner).
func (p *UserPool) Borrow() (*Lease, hygiene.PidMark, error) { return p.BorrowFor("") }

// BorrowFor lends a user for one run of owner (a submission), and marks the pid allocation:
// every process of the run will have a pid allocated after the mark, which Return needs.
// The user is one this pool has lent to owner before, or one it has never lent.
func (p *UserPool) BorrowFor(owner string) (*Lease, hygiene.PidMark, error) {
	p.mu.Lock()
	if idle := p.idle[owner]; len(idle) > 0 {
		l := idle[len(idle)-1]
		p.idle[owner] = idle[:len(idle)-1]
		p.owned[l] = owner
		p.mu.Unlock()
		return l, hygiene.MarkPids(), nil
	}
	others, active := map[int]bool{}, map[int]bool{}
	for uid, o := range p.owners {
		if o != owner {
			others[uid] = true
			active[uid] = !p.retired[o]
		}
	}
	p.mu.Unlock()
	l, err := newLeaseAvoiding(others)
	if errors.Is(err, errNoPool) {
		l, err = newLeaseAvoiding(active) // out of fresh uids: a retired owner's
	}
	if err != nil {
		return nil, hygiene.PidMark{}, err
	}
	p.mu.Lock()
	if p.owners == nil {
		p.owners, p.owned, p.idle, p.retired = map[int]string{}, map[*Lease]string{}, map[string][]*Lease{}, map[string]bool{}
	}
	p.owners[l.UID()] = owner
	p.owned[l] = owner
	p.mu.Unlock()
	return l, hygiene.MarkPids(), nil
}

// Return takes a user back after its run, whose first start came after mark: every process
// of that user started since then is killed (SIGKILL, again until a look finds none left
// but zombies), and the user is lent again to its owner. A user whose processes cannot all
// be seen gone is released instead, never to be lent by this pool again.
func (p *UserPool) Return(l *Lease, mark hygiene.PidMark) {
	killed, zombies, ok := clearUser(l.UID(), mark)
	// Every program the borrower started has been waited for by now: a child of the
	// harness among the user's processes is one it adopted (see reapAdopted).
	reapAdopted(append(killed, zombies...))
	p.mu.Lock()
	owner := p.owned[l]
	delete(p.owned, l)
	if !ok {
		p.mu.Unlock()
		p.release(l)
		return
	}
	p.idle[owner] = append(p.idle[owner], l)
	p.mu.Unlock()
}

// Retire releases the idle users of owner, whose runs have all ended (a submission graded):
// they go back to the machine, never to be lent by this pool to another owner.
func (p *UserPool) Retire(owner string) {
	p.mu.Lock()
	idle := p.idle[owner]
	delete(p.idle, owner)
	if p.retired != nil {
		p.retired[owner] = true
	}
	p.mu.Unlock()
	for _, l := range idle {
		p.release(l)
	}
}

// release closes what is kept with user l and gives it back to the machine.
func (p *UserPool) release(l *Lease) {
	p.mu.Lock()
	kept := p.kept[l]
	delete(p.kept, l)
	p.mu.Unlock()
	for _, c := range kept {
		c.Close()
	}
	l.Release()
}

// Close releases the idle users. Users still lent are the borrowers' to release.
func (p *UserPool) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, idle := range p.idle {
		for _, l := range idle {
			for _, c := range p.kept[l] {
				c.Close()
			}
			delete(p.kept, l)
			l.Release()
		}
	}
	p.idle = map[string][]*Lease{} // a user still lent may come back after this
}

// Net returns the network namespace that goes with borrowed user l, made on the first
// call: the runs of the borrower share it (Box.Net), and it is lent again with the user.
// Making a network namespace is the dearest part of a box (a fifth of a trivial boxed
// case's CPU, with the kernel's work to free it after), and nothing of one run is left in
// it for the next: a user comes back only once every process of it is killed, so every
// socket of the borrower's programs is closed, and those programs cannot change the
// namespace itself (its interfaces, routes and settings need a capability no sandbox user
// gets). What the kernel keeps for a while after a connection closes (TIME_WAIT) only
// holds that port against a fixed-port bind without SO_REUSEADDR; a port the kernel
// chooses is never one of those.
func (p *UserPool) Net(l *Lease) (*Net, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n, ok := p.kept[l][netKey{}].(*Net); ok {
		return n, nil
	}
	n, err := NewNet()
	if err != nil {
		return nil, err
	}
	p.keepLocked(l, netKey{}, n)
	return n, nil
}

type netKey struct{}

// Kept returns what Keep keeps with user l under key, or nil.
func (p *UserPool) Kept(l *Lease, key any) io.Closer {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.kept[l][key]
}

// Keep keeps c with borrowed user l under key (a value of a type of the caller's own): it
// is lent again with the user, and closed when the pool releases the user (Close, or a
// user whose processes could not all be killed). What is kept must hold nothing of one
// borrower that the next could see: the caller empties it at its borrower's end. A nil c
// forgets what was kept under key, unclosed.
func (p *UserPool) Keep(l *Lease, key any, c io.Closer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c == nil {
		delete(p.kept[l], key)
		return
	}
	p.keepLocked(l, key, c)
}

func (p *UserPool) keepLocked(l *Lease, key any, c io.Closer) {
	if p.kept == nil {
		p.kept = map[*Lease]map[any]io.Closer{}
	}
	if p.kept[l] == nil {
		p.kept[l] = map[any]io.Closer{}
	}
	p.kept[l][key] = c
}

// clearUser kills every live process of user uid started since mark, and says whether a
// last look found no other. It looks again while a look finds new ones: a process may fork
// while it is looked at. A process sent SIGKILL never runs its own code again, so it
// counts as gone even before it has died. It is signalled as the sweeps signal (signalProc:
// its start time checked, through a pidfd), so a pid used again meanwhile is never hit.
//
// It also returns the zombies of the user that are the harness's children: processes it
// adopted (it is a subreaper) that died before it could kill them, such as a program's
// child killed with the program's group; a zombie holds its pid, and counts against its
// user's process limit, until it is reaped.
func clearUser(uid int, mark hygiene.PidMark) (killed, zombies []hygiene.Proc, ok bool) {
	type key struct {
		pid   int
		start uint64
	}
	seen := map[key]bool{}
	for range 5 {
		// A sandbox user's process cannot change its effective user (no privilege, and
		// no_new_privs keeps setuid files from giving one).
		procs, err := hygiene.UserSince(mark, uint32(uid))
		if err != nil {
			return killed, zombies, false
		}
		found := 0
		for _, pr := range procs {
			k := key{pr.Pid, pr.Start}
			if seen[k] {
				continue
			}
			if pr.Zombie() {
				if pr.PPid == selfPid {
					seen[k] = true
					zombies = append(zombies, pr)
				}
				continue
			}
			signalProc(pr, syscall.SIGKILL)
			seen[k] = true
			killed = append(killed, pr)
			found++
		}
		if found == 0 {
			return killed, zombies, true
		}
	}
	return killed, zombies, false
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
