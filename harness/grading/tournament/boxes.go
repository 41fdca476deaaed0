package tournament

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"gauntlet/harness/box/hygiene"
	"gauntlet/harness/box/sandbox"
	"gauntlet/harness/runtime/child"
	"gauntlet/harness/runtime/hubrt"
)

// Boxes starts the programs of a tournament's games as a grade starts a subject's: each
// program as a sandbox user of its own, lent by a pool for its game alone, in a box (private
// temporary folders, a /proc that shows only its own user, a network of loopback alone)
// that keeps the programs' folders and the tournament's working folder visible, within the
// sandbox's limits. So a bot cannot signal, trace or read the memory of its opponent or of
// the manager, cannot change another bot or the results file, and whatever it leaves
// running is killed when its game ends, before its user is lent again. A nil *Boxes starts
// the programs as the tournament's own user.
//
// Each competitor has a folder of its own for the whole tournament, where it runs: a bot
// that keeps files from one game to the next (a database of its opponents, as ramen did in
// 2012) finds them there. The folder is handed to the user lent for each game (its files
// given to that user first), and is removed with the tournament: were every game run in
// the tournament's folder as a fresh user that cannot write it, such a bot would lose all
// its games as ILLEGAL.
type Boxes struct {
	users sandbox.UserPool
	net   *sandbox.Net
	// rootless: the tournament is not root, and boxes its programs rootless (sandbox's
	// rootless.go): each program has the tournament's own user, so a box holds only its
	// competitor's own folder (never the other competitors'), and has a network of its
	// own (a shared one would start each program through sandbox's C helper, netjoin.go,
	// for nothing: the games talk over pipes).
	rootless bool
	keep     []string
	limits   sandbox.Limits
	homes    string // the competitors' folders, one per program path
	mu       sync.Mutex
	home     map[string]*home
	made     int // folders made
}

// home is a competitor's folder. Run plays a competitor's games one at a time, so it has
// one folder for the whole tournament; a caller that put it in two games at once would
// have a second made for it meanwhile.
type home struct {
	dirs []string // free folders of the competitor
}

// NewBoxes returns the boxes of a tournament between progs (paths), run from the folder dir,
// each program with the given limits (zero fields: the sandbox's defaults), or the reason
// the machine cannot give them (sandbox.BoxProblem: the tournament is not root, or the
// kernel refuses the namespaces).
func NewBoxes(progs []string, dir string, limits sandbox.Limits) (*Boxes, error) {
	problem := sandbox.BoxProblem
	if sandbox.Rootless() {
		problem = sandbox.RootlessProblem
	}
	if err := problem(); err != nil {
		return nil, err
	}
	keep := []string{dir}
	for _, p := range progs {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		keep = append(keep, filepath.Dir(abs))
	}
	// One network for every box of the tournament, with its loopback alone, as a fuzzing
	// campaign's: the games talk over pipes.
	homes, err := os.MkdirTemp("", "gauntlet-tournament-homes-")
	if err != nil {
		return nil, err
	}
	// Searchable, not listable, by the competitors' users.
	if err := os.Chmod(homes, 0o711); err != nil {
		os.RemoveAll(homes)
		return nil, err
	}
	if sandbox.Rootless() {
		return &Boxes{rootless: true, keep: keep, limits: limits, homes: homes, home: map[string]*home{}}, nil
	}
	net, err := sandbox.NewNet()
	if err != nil {
		os.RemoveAll(homes)
		return nil, err
	}
	return &Boxes{net: net, keep: append(keep, homes), limits: limits, homes: homes, home: map[string]*home{}}, nil
}

// takeHome hands a folder of the competitor at path to user uid:gid (every file of it given
// to that user), making the competitor's first (or, while its folders are all in games, one
// more) folder.
func (b *Boxes) takeHome(path string, uid, gid int) (string, error) {
	b.mu.Lock()
	h := b.home[path]
	if h == nil {
		h = &home{}
		b.home[path] = h
	}
	var dir string
	if len(h.dirs) > 0 {
		dir, h.dirs = h.dirs[len(h.dirs)-1], h.dirs[:len(h.dirs)-1]
	} else {
		b.made++
		dir = filepath.Join(b.homes, fmt.Sprintf("%d-%s", b.made, filepath.Base(path)))
	}
	b.mu.Unlock()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	if uid < 0 {
		return dir, nil // rootless: the folder is the tournament's user's already
	}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
	return dir, err
}

// giveHome gives a competitor's folder back when its game is over.
func (b *Boxes) giveHome(path, dir string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	h := b.home[path]
	h.dirs = append(h.dirs, dir)
}

// Close gives back the users and the network.
func (b *Boxes) Close() {
	if b == nil {
		return
	}
	b.users.Close()
	if b.net != nil {
		b.net.Close()
	}
	os.RemoveAll(b.homes)
}

// CPU is the CPU time limit each program of a game runs under, as the kernel applies it
// (rounded up to whole seconds); 0 for no boxes (the programs run with the caller's).
func (b *Boxes) CPU() time.Duration {
	if b == nil {
		return 0
	}
	return (b.limits.WithDefaults().CPU + time.Second - 1).Truncate(time.Second)
}

// Game returns how one game starts its programs (for hubrt.StartWith), and the function to
// call once the game's hub has reaped them all: it kills what they left and gives their
// users back. With a nil *Boxes, the launch is nil and the function does nothing.
func (b *Boxes) Game() (launch hubrt.Launch, done func()) {
	if b == nil {
		return nil, func() {}
	}
	type lent struct {
		lease *sandbox.Lease
		mark  hygiene.PidMark
		path  string // the competitor's program
		home  string // its folder, handed to it for the game
	}
	var mu sync.Mutex
	var users []lent
	launch = func(i int, s *child.Spec) error {
		path, err := exec.LookPath(s.Path)
		if err == nil {
			path, err = filepath.Abs(path)
		}
		if err != nil {
			return err
		}
		var cfg sandbox.Config
		var dir string
		if b.rootless {
			// The competitor's folder is the run's working folder, its box's one
			// writable folder; the other competitors' are not in it.
			if dir, err = b.takeHome(path, -1, -1); err != nil {
				return err
			}
			mu.Lock()
			users = append(users, lent{path: path, home: dir})
			mu.Unlock()
			cfg = sandbox.Config{Limits: b.limits, Identity: sandbox.Identity{Same: true}, Box: &sandbox.Box{Keep: b.keep}}
		} else {
			lease, mark, err := b.users.Borrow()
			if err != nil {
				return err
			}
			if dir, err = b.takeHome(path, lease.UID(), lease.GID()); err != nil {
				b.users.Return(lease, mark)
				return err
			}
			mu.Lock()
			users = append(users, lent{lease, mark, path, dir})
			mu.Unlock()
			cfg = sandbox.Config{Limits: b.limits, Identity: sandbox.Identity{Lease: lease},
				Box: &sandbox.Box{Keep: b.keep, Net: b.net}}
		}
		s.Dir = dir
		env := sandbox.ProgramEnv()
		s.Path = path
		s.Build = func(path string, args []string) *exec.Cmd { return sandbox.Command(cfg, env, path, args...) }
		s.GroupEndsWithIt = true // its PID namespace's processes die with it
		return nil
	}
	done = func() {
		mu.Lock()
		defer mu.Unlock()
		for _, u := range users {
			if u.lease != nil {
				b.users.Return(u.lease, u.mark)
			}
			b.giveHome(u.path, u.home)
		}
		users = nil
	}
	return launch, done
}
