package tournament

import (
	"os/exec"
	"path/filepath"
	"sync"

	"gauntlet/harness/child"
	"gauntlet/harness/hubrt"
	"gauntlet/harness/hygiene"
	"gauntlet/harness/sandbox"
)

// Boxes starts the programs of a tournament's games as a grade starts a subject's: each
// program as a sandbox user of its own, lent by a pool for its game alone, in a box (private
// temporary folders, a /proc that shows only its own user, a network of loopback alone)
// that keeps the programs' folders and the tournament's working folder visible, within the
// sandbox's limits. So a bot cannot signal, trace or read the memory of its opponent or of
// the manager, cannot change another bot or the results file, and whatever it leaves
// running is killed when its game ends, before its user is lent again. A nil *Boxes starts
// the programs as the tournament's own user.
type Boxes struct {
	users  sandbox.UserPool
	net    *sandbox.Net
	keep   []string
	limits sandbox.Limits
}

// NewBoxes returns the boxes of a tournament between progs (paths), run from the folder dir,
// each program with the given limits (zero fields: the sandbox's defaults), or the reason
// the machine cannot give them (sandbox.BoxProblem: the tournament is not root, or the
// kernel refuses the namespaces).
func NewBoxes(progs []string, dir string, limits sandbox.Limits) (*Boxes, error) {
	if err := sandbox.BoxProblem(); err != nil {
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
	net, err := sandbox.NewNet()
	if err != nil {
		return nil, err
	}
	return &Boxes{net: net, keep: keep, limits: limits}, nil
}

// Close gives back the users and the network.
func (b *Boxes) Close() {
	if b == nil {
		return
	}
	b.users.Close()
	b.net.Close()
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
		lease, mark, err := b.users.Borrow()
		if err != nil {
			return err
		}
		mu.Lock()
		users = append(users, lent{lease, mark})
		mu.Unlock()
		cfg := sandbox.Config{Limits: b.limits, Identity: sandbox.Identity{Lease: lease, Alone: true},
			Box: &sandbox.Box{Keep: b.keep, Net: b.net}}
		env := sandbox.SubjectEnv()
		s.Path = path
		s.Build = func(path string, args []string) *exec.Cmd { return sandbox.Command(cfg, env, path, args...) }
		s.Starter = sandbox.Starter(cfg, env, path)
		return nil
	}
	done = func() {
		mu.Lock()
		defer mu.Unlock()
		for _, u := range users {
			b.users.Return(u.lease, u.mark)
		}
		users = nil
	}
	return launch, done
}
