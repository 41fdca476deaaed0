// Package buildtest builds the project's main packages for tests that must run the real
// binaries (exit codes, signals, pipes between processes), once per test binary.
package buildtest

import (
	"flag"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
)

var (
	mu    sync.Mutex
	dir   string
	built = map[string]bool{}
)

// Programs builds the given main packages (import paths such as "gauntlet/cmd/2310A") and
// returns the directory holding the binaries, each named after its package's last element.
// A package is built at most once per test binary; later calls reuse it.
//
// The directory sits beside the test binary, inside the work directory that `go test`
// removes when it finishes, so nothing is left behind.
func Programs(tb testing.TB, pkgs ...string) string {
	tb.Helper()
	mu.Lock()
	defer mu.Unlock()
	if dir == "" {
		d, err := binDir()
		if err != nil {
			tb.Fatalf("buildtest: %v", err)
		}
		dir = d
	}
	var todo []string
	for _, p := range pkgs {
		if !built[p] {
			todo = append(todo, p)
		}
	}
	if len(todo) > 0 {
		args := append([]string{"build", "-o", dir + string(filepath.Separator)}, todo...)
		cmd := exec.Command(goTool(), args...)
		if out, err := cmd.CombinedOutput(); err != nil {
			tb.Fatalf("buildtest: go build %v: %v\n%s", todo, err, out)
		}
		for _, p := range todo {
			built[p] = true
		}
	}
	return dir
}

// Path builds pkg and returns the path of its binary.
func Path(tb testing.TB, pkg string) string {
	tb.Helper()
	return filepath.Join(Programs(tb, pkg), path.Base(pkg))
}

func binDir() (string, error) {
	if exe, err := os.Executable(); err == nil {
		d := filepath.Join(filepath.Dir(exe), "buildtest-bin")
		if err := os.MkdirAll(d, 0o755); err == nil {
			return d, nil
		}
	}
	return os.MkdirTemp("", "gauntlet-buildtest-")
}

// goTool finds the go command: the one on PATH, else the one of the running toolchain.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(os.Getenv("GOROOT"), "bin", "go")
}

// WaitingTests lets four parallel tests (t.Parallel) run per core instead of one, for a
// package whose tests mostly wait on programs (read timeouts, the 2-second kill rules, slow
// replies) rather than compute. Call it first in TestMain; a -test.parallel given on the
// command line still wins, since the test flags are parsed after it.
func WaitingTests() {
	flag.Set("test.parallel", strconv.Itoa(4*runtime.GOMAXPROCS(0)))
}
