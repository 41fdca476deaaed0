package sandbox_test

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"gauntlet/harness/box/sandbox"
)

// largeHarnessEnv makes the test binary a harness whose own peak resident set is larger
// than 3/4 of its subjects' address-space limit: it runs one small program and prints the
// limit the sandbox says it ran into.
const largeHarnessEnv = "SANDBOX_TEST_LARGE_HARNESS"

func init() {
	if os.Getenv(largeHarnessEnv) == "1" {
		os.Exit(largeHarness())
	}
}

func largeHarness() int {
	ballast := make([]byte, 96<<20)
	for i := 0; i < len(ballast); i += 4096 {
		ballast[i] = 1
	}
	cfg := testConfig()
	cfg.Limits.AddressSpace = 64 << 20
	res, err := sandbox.Run(cfg, sandbox.Spec{Path: "sh", Args: []string{"-c", "exit 0"}})
	runtime.KeepAlive(ballast)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	p := res.Procs[0]
	fmt.Printf("limit=%q peak=%d start=%d\n", p.Limit, p.PeakRSS>>20, p.StartRSS>>20)
	return 0
}

// The kernel counts in a program's peak resident set (the maxrss that wait4 reports) the
// peak of the harness that forked it, with vfork as Go forks. A harness grown to 96 MiB
// must not make a shell that exits at once look as if it ran into a 64 MiB memory limit.
func TestHarnessMemoryIsNotTheSubjects(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), largeHarnessEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.HasPrefix(string(out), `limit=""`) {
		t.Errorf("the sandbox blamed the subject for the harness's memory: %s", out)
	}
}
