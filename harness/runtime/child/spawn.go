package child

import (
	"os/exec"
	"runtime"
	"sync"
)

// A spawner is a goroutine that programs gauntlet starts with a parent-death signal are
// forked from (all the sandbox starts, and every start as another user), locked to its
// own OS thread for the life of the process. A parent-death signal (Pdeathsig) fires when
// the thread that forked the program ends, not the process: forked from a thread that
// never ends, a program gets it only when the harness itself dies. Forking from any other
// goroutine would risk a thread the runtime retires (one left locked, as a namespace switch
// leaves it) and a program killed for no reason in the middle of a case.
type spawner struct {
	once sync.Once
	reqs chan spawnReq
}

type spawnReq struct {
	cmd   *exec.Cmd
	reply chan error
}

var plain spawner

func (s *spawner) start(req spawnReq) error {
	s.once.Do(func() {
		s.reqs = make(chan spawnReq)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread lives as long as the harness
			for req := range s.reqs {
				req.reply <- req.cmd.Start()
			}
		}()
	})
	req.reply = make(chan error, 1)
	s.reqs <- req
	return <-req.reply
}

// StartCmd starts cmd from the spawner. It is exec.Cmd.Start for every program the harness
// starts, the sandbox's included (harness/box/sandbox): a caller that wires the program's
// streams itself makes the command (Command, or sandbox.Command), starts it here and waits
// for it with cmd.Wait (or cmd.Process.Wait when its streams are all files).
//
// A command without a parent-death signal starts from the caller's own thread: nothing of
// the thread is then inherited that matters, and a reference hub starting its players
// saves a hand-off between threads for each.
func StartCmd(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil || cmd.SysProcAttr.Pdeathsig == 0 {
		return cmd.Start()
	}
	return plain.start(spawnReq{cmd: cmd})
}

// Run starts cmd from the spawner and waits for it, as exec.Cmd.Run does.
func Run(cmd *exec.Cmd) error {
	if err := StartCmd(cmd); err != nil {
		return err
	}
	return cmd.Wait()
}
