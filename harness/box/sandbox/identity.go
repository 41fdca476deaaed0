package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"gauntlet/harness/box/hygiene"
)

// The pool of sandbox users: uids (and gids of the same number) that no account uses. The
// preferred range is far above any normal account; in a user namespace that does not map it
// the pool moves just below the top of the largest mapped range.
const (
	poolPreferred = 1_800_000_000
	poolSize      = 4096
	poolTopMargin = 1024 // kept free at the top of a mapped range (nobody, nogroup, -1)
)

// lease is a sandbox user held by one run. The lock is an abstract unix socket bound to a
// name derived from the uid: the kernel frees it when the harness dies, and two harnesses
// on the machine never hold the same uid.
type lease struct {
	uid, gid  int
	exclusive bool // the run owns the uid alone: its processes can be found by owner
	lockFD    int
}

func (l *lease) release() {
	if l != nil && l.lockFD >= 0 {
		unix.Close(l.lockFD)
		l.lockFD = -1
	}
}

// errNoPool is returned when no free sandbox user could be found.
var errNoPool = errors.New("sandbox: no free sandbox user (set Identity.Same or Identity.UID)")

// Lease is a sandbox user its holder keeps across several runs: a case whose subject
// programs run one after another, and whose judges start the subject's programs as that
// user. Runs given it (Identity.Lease) share its uid and do not release it.
type Lease struct{ l *lease }

// NewLease takes a sandbox user from the pool (the harness must be root).
func NewLease() (*Lease, error) { return newLeaseAvoiding(nil) }

// newLeaseAvoiding is NewLease with none of the uids of avoid (those a UserPool lent to
// another owner).
func newLeaseAvoiding(avoid map[int]bool) (*Lease, error) {
	if os.Geteuid() != 0 {
		return nil, errors.New("sandbox: only root can lease a sandbox user")
	}
	l, err := leaseFromPool(avoid)
	if err != nil {
		return nil, err
	}
	return &Lease{l}, nil
}

// UID is the leased user; its group has the same number.
func (l *Lease) UID() int { return l.l.uid }

// GID is the leased user's group.
func (l *Lease) GID() int { return l.l.gid }

// Release gives the user back to the pool.
func (l *Lease) Release() { l.l.release() }

// chooseIdentity returns the lease for a run, or nil when the subject runs as the harness's
// user.
func chooseIdentity(id Identity) (*lease, error) {
	switch {
	case id.Lease != nil:
		return &lease{uid: id.Lease.l.uid, gid: id.Lease.l.gid, exclusive: true, lockFD: -1}, nil
	case id.UID != 0:
		return &lease{uid: id.UID, gid: id.GID, lockFD: -1}, nil
	case id.Same || os.Geteuid() != 0:
		return nil, nil
	}
	return leaseFromPool(nil)
}

// leaseFromPool leases a free uid of the pool, none of avoid.
func leaseFromPool(avoid map[int]bool) (*lease, error) {
	base, err := poolBase()
	if err != nil {
		return nil, err
	}
	inUse := usedIDs()
	start := rand.IntN(poolSize)
	for i := range poolSize {
		uid := base + (start+i)%poolSize
		if inUse[uid] || avoid[uid] {
			continue
		}
		fd, err := lockID(uid)
		if err != nil {
			continue
		}
		return &lease{uid: uid, gid: uid, exclusive: true, lockFD: fd}, nil
	}
	return nil, errNoPool
}

// leaseDir holds one lock file per leased uid. It belongs to root and only root may enter
// it, so no subject can take or block a lease (an abstract socket name could be bound first
// by any process on the machine).
const leaseDir = "/run/gauntlet-sandbox-leases"

func lockID(uid int) (int, error) {
	if err := os.Mkdir(leaseDir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return -1, err
	}
	var st unix.Stat_t
	if err := unix.Lstat(leaseDir, &st); err != nil {
		return -1, err
	}
	if st.Uid != 0 || st.Mode&unix.S_IFMT != unix.S_IFDIR || st.Mode&0o077 != 0 {
		return -1, fmt.Errorf("%s is not a folder only root may use", leaseDir)
	}
	fd, err := unix.Open(filepath.Join(leaseDir, strconv.Itoa(uid)), unix.O_RDWR|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return -1, err
	}
	// The kernel drops the lock when the harness dies.
	if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// usedIDs returns the uids that own a process or name an account or a group: the pool must
// not hand them out.
func usedIDs() map[int]bool {
	used := map[int]bool{}
	owners, _ := hygiene.Owners()
	for uid := range owners {
		used[int(uid)] = true
	}
	for _, file := range []string{"/etc/passwd", "/etc/group"} {
		f, err := os.Open(file)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Split(sc.Text(), ":")
			if len(fields) > 2 {
				if n, err := strconv.Atoi(fields[2]); err == nil {
					used[n] = true
				}
			}
		}
		f.Close()
	}
	return used
}

// idRange is one line of /proc/self/uid_map or gid_map, seen from inside.
type idRange struct{ start, count int }

func readIDMap(file string) []idRange {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var rs []idRange
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		start, err1 := strconv.Atoi(f[0])
		count, err2 := strconv.Atoi(f[2])
		if err1 == nil && err2 == nil {
			rs = append(rs, idRange{start, count})
		}
	}
	return rs
}

func mapped(rs []idRange, lo, hi int) bool {
	for _, r := range rs {
		if lo >= r.start && hi <= r.start+r.count {
			return true
		}
	}
	return false
}

// poolBase finds where the pool lies: the preferred range if this user namespace maps it
// for both users and groups, else just below the top of the largest range mapped for both.
func poolBase() (int, error) {
	uids, gids := readIDMap("/proc/self/uid_map"), readIDMap("/proc/self/gid_map")
	if len(uids) == 0 {
		// No user namespaces: every id is valid.
		return poolPreferred, nil
	}
	if mapped(uids, poolPreferred, poolPreferred+poolSize) && mapped(gids, poolPreferred, poolPreferred+poolSize) {
		return poolPreferred, nil
	}
	best := -1
	for _, r := range uids {
		hi := min(r.start+r.count, 1<<31-1) - poolTopMargin
		lo := hi - poolSize
		if lo > 1000 && mapped(gids, lo, hi) && lo > best {
			best = lo
		}
	}
	if best < 0 {
		return 0, fmt.Errorf("%w: no mapped id range of %d ids", errNoPool, poolSize)
	}
	return best, nil
}
