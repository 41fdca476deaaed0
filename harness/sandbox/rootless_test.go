package sandbox_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gauntlet/harness/buildtest"
	"gauntlet/harness/sandbox"
)

// A grader that is not root boxes its programs in a user namespace of its own (a rootless
// box): the same allow-list root, its own PID namespace, no capability left to the
// program, the loopback only, kept folders read-only (the program has the grader's user,
// which could otherwise rewrite the grader's programs) and the working folder writable.
// As root, the test runs again as an unprivileged user.
func TestRootlessBox(t *testing.T) {
	if buildtest.AsUnprivileged(t, "^TestRootlessBox$") {
		return
	}
	buildtest.NeedBox(t, sandbox.RootlessProblem())
	keep := t.TempDir()
	if err := os.WriteFile(filepath.Join(keep, "input"), []byte("kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Beside the kept folder: what the box must not show (a checkout of the suites).
	hidden := t.TempDir()
	if err := os.WriteFile(filepath.Join(hidden, "secret"), []byte("expected output\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `
echo "uid: $(id -u)"
grep -E '^Cap(Eff|Prm|Amb):' /proc/self/status
echo "procs: $(ls -d /proc/[0-9]* | wc -l)"
echo "pid: $$"
echo "netdevs: $(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\n' ' ')"
cat ` + keep + `/input
echo x > ` + keep + `/input 2>/dev/null && echo "keep: written" || echo "keep: read-only"
echo x > here && echo "work: writable"
cat ` + hidden + `/secret 2>/dev/null || echo "hidden: not there"
echo x > /dev/null && echo "dev: null"
echo x > /tmp/t && echo "tmp: writable"
`
	cfg := sandbox.Config{Box: &sandbox.Box{Keep: []string{keep}}}
	res, err := sandbox.Run(cfg, sandbox.Spec{Path: "/bin/bash", Args: []string{"-c", script}})
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.Procs[0].Stdout)
	t.Logf("the rootless box said:\n%s%s", out, res.Procs[0].Stderr)
	for _, want := range []string{"uid: " + strconv.Itoa(os.Getuid()) + "\n", "CapEff:\t0000000000000000\n", "CapPrm:\t0000000000000000\n",
		"CapAmb:\t0000000000000000\n", "netdevs: lo \n", "kept\n", "keep: read-only\n", "work: writable\n", "hidden: not there\n",
		"dev: null\n", "tmp: writable\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside the rootless box, want %q; the box said:\n%s%s", want, out, res.Procs[0].Stderr)
		}
	}
	if strings.Contains(out, "pid: 1\n") {
		t.Errorf("the program is its namespace's init:\n%s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(keep, "input")); string(b) != "kept\n" {
		t.Errorf("the kept file became %q", b)
	}
	assertNothingLeft(t, res)
}
