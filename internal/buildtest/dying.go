package buildtest

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Dying reports whether process pid has ended or is on its way out: gone, a zombie, or
// with a SIGKILL pending (killed: the kernel runs none of its code again, though on a busy
// machine it may take a while to be scheduled and die). A test that checks what outlived a
// run counts such a process as gone, whatever the load.
func Dying(pid int) bool {
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return true
	}
	for _, l := range strings.Split(string(st), "\n") {
		k, v, _ := strings.Cut(l, ":")
		v = strings.TrimSpace(v)
		switch k {
		case "State":
			if strings.HasPrefix(v, "Z") || strings.HasPrefix(v, "X") {
				return true
			}
		case "SigPnd", "ShdPnd":
			if n, err := strconv.ParseUint(v, 16, 64); err == nil && n&(1<<(uint(syscall.SIGKILL)-1)) != 0 {
				return true
			}
		}
	}
	return false
}

// GoneWithin is how long a test waits for processes that should be dying to show it
// (Dying), a bound that only a failing test reaches: a process that was killed shows its
// pending SIGKILL at once.
const GoneWithin = 10 * time.Second

// UntilDying waits until every process of pids is Dying, up to GoneWithin, and returns
// those that are not.
func UntilDying(pids []int) []int { return until(pids, Dying) }

// UntilGone waits until no process of pids exists any more (reaped), up to GoneWithin, and
// returns those that still do: for a test of a parent that must reap what it kills.
func UntilGone(pids []int) []int {
	return until(pids, func(pid int) bool { return syscall.Kill(pid, 0) == syscall.ESRCH })
}

// until waits until gone holds for every process of pids, up to GoneWithin, polling, and
// returns those for which it does not.
func until(pids []int, gone func(int) bool) []int {
	deadline := time.Now().Add(GoneWithin)
	for {
		var alive []int
		for _, pid := range pids {
			if !gone(pid) {
				alive = append(alive, pid)
			}
		}
		if len(alive) == 0 || time.Now().After(deadline) {
			return alive
		}
		time.Sleep(10 * time.Millisecond)
	}
}
