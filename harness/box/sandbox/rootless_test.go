package sandbox_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gauntlet/harness/box/sandbox"
	"gauntlet/internal/buildtest"
)

// A grader that is not root boxes its programs in a user namespace of its own (a rootless
// box): the same allow-list root, its own PID namespace, no capability left to the
// program, the loopback only, kept folders read-only (the program has the grader's user,
// which could otherwise rewrite the grader's programs) and the working folder writable.
// As root, the test runs again as an unprivileged user.
func TestRootlessBox(t *testing.T) {
	if asUnprivileged(t, "^TestRootlessBox$") {
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
	// A file the program may only run (as the grader's programs are, rootless): in a user
	// namespace of its own it would be root, with the capabilities to read it.
	secret := filepath.Join(keep, "execute-only")
	if err := os.WriteFile(secret, []byte("#!/bin/sh\necho the suites\n"), 0o111); err != nil {
		t.Fatal(err)
	}
	script := `
cat ` + secret + ` 2>/dev/null || echo "execute-only: unread"
unshare -Ur cat ` + secret + ` 2>/dev/null || echo "nested: refused"
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
		"dev: null\n", "tmp: writable\n", "execute-only: unread\n", "nested: refused\n"} {
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

// A program that traces a child of its own from before that child execs a program it may
// only run (the grader's copy of its binary, which carries every suite: the published
// mock players and reference programs) can read none of that program's memory: the kernel
// makes a process started from a file its user cannot read undumpable, with its memory
// out of reach of a tracer that has no capability over it, in a root box as a sandbox
// user (the copy 0711, root's) and in a rootless box (the copy 0111, the program's own
// user's, which no user namespace it could make lets it read). It read 8.3 MB of the
// grader's binary this way before 2026-11-28, from a copy it could read.
func TestTracedExecOfAnExecuteOnlyProgramIsNotRead(t *testing.T) {
	if os.Geteuid() == 0 {
		if asUnprivileged(t, "^TestTracedExecOfAnExecuteOnlyProgramIsNotRead$") {
			t.Run("root", func(t *testing.T) { tracedExec(t, testConfig(), 0o711) })
		}
		return
	}
	buildtest.NeedBox(t, sandbox.RootlessProblem())
	tracedExec(t, sandbox.Config{}, 0o111)
}

// tracedExec runs tracedump boxed under cfg against a copy of /bin/true of the given mode,
// and checks it read nothing; a readable copy shows that it would have.
func tracedExec(t *testing.T, cfg sandbox.Config, mode os.FileMode) {
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	data, err := os.ReadFile("/bin/true")
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]os.FileMode{"execute-only": mode, "readable": 0o755} {
		if err := os.WriteFile(filepath.Join(dir, name), data, m); err != nil {
			t.Fatal(err)
		}
		os.Chmod(filepath.Join(dir, name), m)
	}
	cfg.Box = &sandbox.Box{Keep: []string{dir, progDir}}
	for name, wantRead := range map[string]bool{"execute-only": false, "readable": true} {
		res, err := sandbox.Run(cfg, sandbox.Spec{Path: prog("tracedump"), Args: []string{filepath.Join(dir, name)}})
		if err != nil {
			t.Fatal(err)
		}
		out := string(res.Procs[0].Stdout)
		if read := strings.Contains(out, "READ"); read != wantRead || !strings.Contains(out, "mem:") && !read {
			t.Errorf("%s (mode %v): the tracer read it: %v, want %v:\n%s%s", name, mode, read, wantRead, out, res.Procs[0].Stderr)
		}
	}
}

// The box's tests again, as a sandbox that is not root makes its boxes (rootless): run as
// an unprivileged user by a root test run.
func TestSandboxRootless(t *testing.T) {
	t.Parallel() // a process of its own: beside the parallel tests, after the serial ones (TestUnboxedProgramGetsItsProcessLimit counts this user's tasks)
	if os.Geteuid() != 0 {
		buildtest.ByRerun(t, "not root: the tests it reruns run here directly")
	}
	asUnprivileged(t, "^(TestBoxIsolates|TestBoxHides|TestBoxMasksTheJudgesFiles|TestBoxHoldsOnlyWhatItNeeds|TestBoxedProgramHasItsOwnPIDNamespace|"+
		"TestBoxedCommandEndsAsItsProgram|TestBoxedProgramsEndWithAKilledHarness|TestKeyringsAreRefused|TestInheritedDescriptorsDoNotReachPrograms|TestFIFOInTheProgramsPlaceIsRefused|"+
		"TestInitSurvivesItsProgramsSignals|TestBoxRefusesUserNamespaces|TestBoxedProgramLeadsItsSessionAndLeavesNoChildUncounted|TestBoxHygieneThroughTheRole|TestBoxedProgramsExtraFilesEndWithIt|"+
		"TestBoxHoldsTheHostsSystemFiles|TestBoxedRunThatLeftNothingIsNotSwept|TestStoppedBoxedRunEndsWithItsInits)$")
}
