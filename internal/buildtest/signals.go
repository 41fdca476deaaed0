package buildtest

import (
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
)

// defaultSignalsEnv marks the test binary that DefaultSignals started again.
const defaultSignalsEnv = "GAUNTLET_TEST_DEFAULT_SIGNALS"

// DefaultSignals starts the test binary again with every signal at its default action when
// it was started with some ignored (under nohup, or as a shell's background job that
// ignores SIGINT), and returns only where there was nothing to do. A process that ignores
// a signal never lets a program stay in the exec role (only an exec gives the program the
// default actions its spec expects), so the tests of that choice would see another start
// than the one a grade makes from a terminal. The signals get a handler first, which the
// exec turns back into their default action. Called first in a package's TestMain.
func DefaultSignals() {
	if os.Getenv(defaultSignalsEnv) != "" {
		return
	}
	ignored := IgnoredSignals()
	if len(ignored) == 0 {
		return
	}
	self, err := os.Executable()
	if err != nil {
		return
	}
	sigs := make([]os.Signal, len(ignored))
	for i, s := range ignored {
		sigs[i] = s
	}
	signal.Notify(make(chan os.Signal, 1), sigs...)
	os.Setenv(defaultSignalsEnv, "1")
	syscall.Exec(self, os.Args, os.Environ())
	// Only a failed exec comes back: the tests run as they were started.
	signal.Reset(sigs...)
}

// IgnoredSignals lists the standard signals (1 to 31) this process ignores, from the
// SigIgn mask of /proc/self/status.
func IgnoredSignals() []syscall.Signal {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return nil
	}
	for _, line := range strings.Split(string(status), "\n") {
		hex, ok := strings.CutPrefix(line, "SigIgn:")
		if !ok {
			continue
		}
		mask, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
		if err != nil {
			return nil
		}
		var sigs []syscall.Signal
		for s := 1; s <= 31; s++ {
			if mask&(1<<(s-1)) != 0 {
				sigs = append(sigs, syscall.Signal(s))
			}
		}
		return sigs
	}
	return nil
}
