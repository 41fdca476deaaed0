package cluejudges

import (
	"os/exec"
	"strings"
	"testing"

	"gauntlet/harness/runtime/limitkill"
)

// How the server ended says when a limit ended it, so that the grader and the Clue
// fuzzer call it LIMIT: a server past its (own, soft, 1 s) CPU limit dies of SIGXCPU.
func TestStatusSaysTheLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("a second of CPU")
	}
	t.Parallel()
	err := exec.Command("sh", "-c", "ulimit -S -t 1; while :; do :; done").Run()
	got := status(err)
	if !strings.HasPrefix(got, "killed by ") || limitkill.InReport("server: "+got) != limitkill.CPU {
		t.Errorf("status %q: want a death that names the CPU time limit", got)
	}
	if got := status(exec.Command("sh", "-c", "exit 3").Run()); got != "exit status 3" {
		t.Errorf("status %q, want exit status 3", got)
	}
}
