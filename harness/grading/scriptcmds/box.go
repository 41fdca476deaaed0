package scriptcmds

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/sys/unix"

	"gauntlet/harness/box/cgroup"
	"gauntlet/harness/box/hygiene"
	"gauntlet/harness/box/sandbox"
)

// BoxKeepVar, in the grader's own environment (the staff's), lists (separated like PATH)
// folders every case's boxes must keep visible beside the grader's scratch space: shared
// data a submission reads (docs/security.md). The grader passes them on in
// Settings.BoxKeep.
const BoxKeepVar = "GAUNTLET_BOX_KEEP"

// JudgeOutputFile, in the folder above a script's $WORK, receives the output of the last
// judge program that failed (the mock hub's "FAIL at step ..." report), written by the
// harness: the grader classifies a failure from it, never from the log, where the subject's
// own output could imitate it.
const JudgeOutputFile = "judge-output.txt"

// judges are the programs that judge the subject from inside a case: they run as the
// harness's user (root), not as the subject, and start the subject's program themselves.
// The mock hub is one; a game's own (Clue's mock clients) comes with its game's
// registration (RegisterJudge), so that this package names no game's program.
var judges = map[string]bool{"mockhub": true}

// RegisterJudge makes the program named a judge of the cases (a game's own mock program,
// which starts the subject's program itself). Call it from an init function.
func RegisterJudge(name string) { judges[name] = true }

// IsJudge says whether the program named is a judge of the cases: the mock hub, or a
// program registered with RegisterJudge.
func IsJudge(name string) bool { return judges[name] }

// caseBox is how a graded case keeps the oracle out of the subject's reach (see
// Settings.SandboxUser). The folder above $WORK (made by the grader, searchable only) holds:
//
//	WORK/  the script's files: expected outputs, conversations, inputs (root only, 0700)
//	box/   the subject's working folder: a copy of the inputs each run names (the subject's)
//	bin/   mkplayer's wrappers, which the subject's hub runs (readable by all)
//
// Every program of the subject runs as one sandbox user leased for the case, in a box of
// its own (sandbox.Box); judge programs run as root in the same kind of box, and start the
// subject's programs as that user.
type caseBox struct {
	work, box, bin string
	lease          *sandbox.Lease
	keep           []string        // what a subject's box holds of the case: box/, bin/ and the programs
	judgeKeep      []string        // what a judge's box holds: the whole case folder and the programs
	hide           []string        // what a subject's box covers of what it keeps (Settings.BoxHide)
	copiedBack     map[string]bool // files of WORK that came from box/: later runs may update them
	reserved       map[string]bool // files of WORK that a witnessed mock writes: never from box/
	group          *cgroup.Group   // the case's totals (nil where the machine has no cgroups)
	noBox          bool            // users without the box (Settings.NoBox)
	seen           cgroup.Events   // the group's counters after the last run
	net            *sandbox.Net    // the network the case's runs share (see network)
	netErr         error           // why a rootless case has none (rootlessNetwork)
	mark           hygiene.PidMark // the pid allocation as the user was lent, before any start
	disk           int64           // a rootless grade's bound of the subject's folder (see rootless)
	// subjectRan: a program of the case has run in box/ (the subject's, or a judge that
	// starts it), so that what box/ holds may be the subject's doing (folderFail).
	subjectRan bool
}

type caseBoxKey struct{}

// setupBox prepares a graded case's folders and user.
func setupBox(env *testscript.Env) (*caseBox, error) {
	top := filepath.Dir(env.WorkDir)
	b := &caseBox{work: env.WorkDir, box: filepath.Join(top, "box"), bin: filepath.Join(top, "bin"),
		copiedBack: map[string]bool{}, reserved: map[string]bool{}, noBox: envSettings(env).NoBox}
	if err := os.Chmod(b.work, 0o700); err != nil {
		return nil, err
	}
	if err := os.Mkdir(b.bin, 0o755); err != nil {
		return nil, err
	}
	if sandbox.Rootless() {
		return b.rootless(env, top)
	}
	lease, mark, err := sandbox.CaseUsers.BorrowFor(envSettings(env).Owner)
	if err != nil {
		return nil, err
	}
	b.lease, b.mark = lease, mark
	env.Defer(func() { sandbox.CaseUsers.Return(lease, mark) })
	if !b.noBox {
		if b.net, err = sandbox.CaseUsers.Net(lease); err != nil {
			return nil, fmt.Errorf("the case's network: %w", err)
		}
	}
	limits := envSettings(env).caseLimits()
	// The subject's folder is a tmpfs of its own: all its files together are bounded.
	if err := os.Mkdir(b.box, 0o700); err != nil {
		return nil, err
	}
	if b.noBox {
		// No mount here: a plain folder of the subject's, unbounded but for -fsize.
		if err := os.Chown(b.box, lease.UID(), lease.GID()); err != nil {
			return nil, err
		}
	} else {
		opts := fmt.Sprintf("size=%d,mode=0700,uid=%d,gid=%d", limits.CaseDisk, lease.UID(), lease.GID())
		if err := unix.Mount("tmpfs", b.box, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
			return nil, fmt.Errorf("the subject's folder: %w", err)
		}
		env.Defer(func() { unix.Unmount(b.box, unix.MNT_DETACH) })
	}
	if cgroup.Problem() == nil && !b.noBox {
		g, err := caseGroup(lease, "gauntlet-case-"+filepath.Base(top)+"-"+strconv.Itoa(lease.UID()),
			cgroup.Limits{Memory: limits.CaseMemory, Processes: limits.Processes})
		if err != nil {
			return nil, err
		}
		b.group, b.seen = g.Group, g.Events()
		env.Defer(func() {
			if !g.Kill() {
				// Something of the case is still in the group: the group goes (Remove
				// kills its members again first), and the user's next case gets a new one.
				sandbox.CaseUsers.Keep(lease, caseGroupKey{}, nil)
				g.Remove()
			}
		})
	}
	b.keepLists(env, top)
	return b, nil
}

// keepLists sets what the case's boxes hold: a subject's, its box/ and bin/ and the
// programs (Settings.BoxKeep, but Settings.BoxHide); a judge's, the whole case folder and
// the programs.
func (b *caseBox) keepLists(env *testscript.Env, top string) {
	s := envSettings(env)
	b.keep = append(b.keep, s.BoxKeep...)
	b.hide = append(b.hide, s.BoxHide...)
	b.judgeKeep = append([]string{top}, b.keep...)
	b.keep = append([]string{b.box, b.bin}, b.keep...)
}

// rootless prepares a graded case's folders for a grader that is not root (sandbox's
// rootless.go): no sandbox user, so every program has the grader's user, and what keeps
// the oracle from the subject is its box alone: a subject's box holds box/ and bin/ and
// the programs, never WORK, and a judge starts the subject in such a box of its own
// (mockhub.Subject's Keep). box/ is a plain folder (a tmpfs on the host needs root), but
// all the files a subject's run writes in it together are bounded by the case's disk as a
// root grader's are: each subject's run (and a judge's subject) works in a tmpfs of
// Limits.CaseDisk made in its box over its folder, copied in before it starts and back out
// once it has ended (sandbox.Box.WorkDisk, execrole's workdisk.go), so box/ holds at most
// that much after each run (a run in the background beside another copies back its own
// folder: each is bounded so). Case totals (cgroups) there are only where delegated.
// The case's runs share a network of the case's own (rootlessNetwork), and a judge's
// subject shares its judge's.
func (b *caseBox) rootless(env *testscript.Env, top string) (*caseBox, error) {
	if b.noBox {
		return nil, fmt.Errorf("a grader that is not root has no sandbox users to grade without the box")
	}
	if err := os.Mkdir(b.box, 0o700); err != nil {
		return nil, err
	}
	b.rootlessNetwork(env) // (network.go)
	limits := envSettings(env).caseLimits()
	b.disk = limits.CaseDisk
	// Totals where the grader's cgroups are delegated to it (cgroup.Problem): a group of
	// the case's own, made and removed with it (there is no case user to keep it with).
	if cgroup.Problem() == nil {
		name := "gauntlet-case-self-" + strconv.FormatInt(selfCases.Add(1), 10)
		g, err := cgroup.New(name, cgroup.Limits{Memory: limits.CaseMemory, Processes: limits.Processes})
		if err != nil {
			return nil, err
		}
		b.group, b.seen = g, g.Events()
		env.Defer(func() { g.Remove() })
	}
	b.keepLists(env, top)
	return b, nil
}

// selfCases numbers the cases of a grader that is not root, whose groups cannot be named
// after a case user.
var selfCases atomic.Int64

// caseGroupKey keeps a case's cgroup with its user (sandbox.UserPool.Keep).
type caseGroupKey struct{}

// keptGroup is a case's cgroup, kept with the case's user for its next case: a group
// made and removed per case was a tenth of a boxed trivial case's CPU, and the kernel's
// work to free it comes after. Its totals are set again for each case that asks for
// others; its counters go on, so a case reads them against what they were at its start
// (caseBox.seen). The group is emptied at each case's end, and the user comes back only
// once every process of it is killed; what a case leaves charged to the group is page
// cache the kernel reclaims before any total is reached.
type keptGroup struct {
	*cgroup.Group
	limits cgroup.Limits
}

func (g *keptGroup) Close() error { return g.Remove() }

// caseGroup returns the cgroup kept with the case's user (a new one named name, the first
// time), with the given totals.
func caseGroup(lease *sandbox.Lease, name string, lim cgroup.Limits) (*keptGroup, error) {
	if g, ok := sandbox.CaseUsers.Kept(lease, caseGroupKey{}).(*keptGroup); ok {
		if g.limits == lim {
			return g, nil
		}
		if err := g.SetLimits(lim); err == nil {
			g.limits = lim
			return g, nil
		}
		// The group holds more than the new total allows: a new group.
		sandbox.CaseUsers.Keep(lease, caseGroupKey{}, nil)
		g.Remove()
	}
	g, err := cgroup.New(name, lim)
	if err != nil {
		return nil, err
	}
	kg := &keptGroup{Group: g, limits: lim}
	sandbox.CaseUsers.Keep(lease, caseGroupKey{}, kg)
	return kg, nil
}

// dirs maps the script's current folder, inside WORK, to the subject's: the same place
// inside box/, made if needed. A script that left WORK gets box/ itself.
func (b *caseBox) dirs(cwd string) (box string, err error) {
	rel, err := filepath.Rel(b.work, cwd)
	if err != nil || !filepath.IsLocal(rel) {
		return b.box, nil
	}
	box = filepath.Join(b.box, rel)
	return box, b.mkdirs(box)
}

// giveInputs copies from the script's folder cwd into the subject's folder box each
// argument of a subject's command that names a file there: the inputs it is run with (a
// deck, a path, a rolls file), and nothing else.
func (b *caseBox) giveInputs(cwd, box string, args []string) error {
	for _, a := range args {
		if a == "" || filepath.IsAbs(a) || !filepath.IsLocal(a) {
			continue
		}
		src := filepath.Join(cwd, a)
		if b.copiedBack[src] {
			// The subject's own file (a program it copied, a recording): box/ has the
			// original, which the copy in WORK may only show in part.
			continue
		}
		st, err := os.Lstat(src)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		dst := filepath.Join(box, a)
		if err := b.mkdirs(filepath.Dir(dst)); err != nil {
			return err
		}
		// An executable input (a script the case has the subject's hub run as a player)
		// stays executable in the copy.
		mode := os.FileMode(0o644)
		if st.Mode()&0o111 != 0 {
			mode = 0o755
		}
		uid, gid := b.owner()
		if err := writeNoFollow(dst, data, mode, uid, gid); err != nil {
			return err
		}
	}
	return nil
}

// owner is the user and group the subject's files belong to: the case's sandbox user, or
// -1 (the grader's own, in a rootless grade).
func (b *caseBox) owner() (uid, gid int) {
	if b.lease == nil {
		return -1, -1
	}
	return b.lease.UID(), b.lease.GID()
}

// mkdirs makes the folders leading to dir inside box/, owned by the subject.
func (b *caseBox) mkdirs(dir string) error {
	rel, err := filepath.Rel(b.box, dir)
	if err != nil || rel == "." {
		return err
	}
	cur := b.box
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		st, err := os.Lstat(cur)
		switch {
		case errors.Is(err, os.ErrNotExist):
			if err := os.Mkdir(cur, 0o755); err != nil {
				return err
			}
			if uid, gid := b.owner(); uid >= 0 {
				if err := os.Lchown(cur, uid, gid); err != nil {
					return err
				}
			}
		case err != nil:
			return err
		case !st.IsDir():
			return fmt.Errorf("%s is not a folder: %w", cur, unix.ENOTDIR)
		}
	}
	return nil
}

// maxCopyBack bounds each file copied back from box/.
const maxCopyBack = 4 << 20

// takeResults copies back into the script's folder cwd the regular files a run left at the
// top of the subject's folder box (a mock player's recording, a file the subject must not
// create), so that the script's checks see them. A file of the script itself is never
// replaced, nor is a record a witnessed mock writes (reserved), whether it wrote it yet or
// not; links are never followed, and each file is read up to maxCopyBack bytes.
func (b *caseBox) takeResults(cwd, box string) error {
	ents, err := os.ReadDir(box)
	if err != nil {
		return err
	}
	for _, e := range ents {
		dst := filepath.Join(cwd, e.Name())
		if _, err := os.Lstat(dst); err == nil && !b.copiedBack[dst] || b.reserved[dst] {
			continue
		}
		data, ok := readNoFollow(filepath.Join(box, e.Name()))
		if !ok {
			continue
		}
		if err := writeNoFollow(dst, data, 0o644, -1, -1); err != nil {
			return err
		}
		b.copiedBack[dst] = true
	}
	return nil
}

// readNoFollow reads a regular file without following a link in its place.
func readNoFollow(path string) ([]byte, bool) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return nil, false
	}
	data, err := io.ReadAll(io.LimitReader(f, maxCopyBack))
	return data, err == nil
}

// writeNoFollow replaces path with a regular file holding data, with the given mode, never
// writing through a link or into another kind of file planted there, owned by uid:gid when
// uid >= 0.
func writeNoFollow(path string, data []byte, mode os.FileMode, uid, gid int) error {
	if st, err := os.Lstat(path); err == nil && !st.Mode().IsRegular() {
		if err := os.RemoveAll(path); err != nil {
			return err
		}
	}
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), path)
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if uid >= 0 {
		if err := f.Chown(uid, gid); err != nil {
			f.Close()
			return err
		}
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// totalsReached says which of the case's totals the last run reached, if any: "memory"
// when the kernel killed a process of the case for its memory total, "processes" when it
// refused a fork for the process total.
func (b *caseBox) totalsReached() string {
	if b.group == nil {
		return ""
	}
	now := b.group.Events()
	defer func() { b.seen = now }()
	switch {
	case now.OOMKills > b.seen.OOMKills:
		return "memory"
	case now.PidsMax > b.seen.PidsMax:
		return "processes"
	}
	return ""
}
