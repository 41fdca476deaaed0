package sandbox_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"gauntlet/harness/box/hygiene"
	"gauntlet/harness/box/sandbox"
	"gauntlet/harness/runtime/transcript"
	"gauntlet/internal/buildtest"
)

// progDir holds the compiled test programs. It is made with mode 0700 on purpose: the
// sandbox user cannot search it, so the tests also prove that the program is opened before
// the switch of user.
var progDir string

func TestMain(m *testing.M) {
	buildtest.DefaultSignals() // under nohup, say: the starts as from a terminal
	sandbox.Init()             // the package's init already did; kept to show where it belongs
	if os.Getenv(probeNetEnv) == "1" {
		probeNet()
		return
	}
	if os.Getenv(inheritedEnv) != "" {
		probeInherited()
		return
	}
	if os.Getenv(probeLimitsEnv) == "1" {
		probeLimits()
		return
	}
	if m := os.Getenv(orphanNetHarnessEnv); m != "" {
		orphanNetHarness(m)
		return
	}
	if m := os.Getenv(orphanHarnessEnv); m != "" {
		orphanHarness(m)
		return
	}
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if _, err := exec.LookPath("cc"); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL: the sandbox tests compile C programs and need a C compiler: `cc` was not found in PATH (install gcc)")
		return 1
	}
	var err error
	progDir, err = os.MkdirTemp("", "gauntlet-sandbox-progs-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		return 1
	}
	defer os.RemoveAll(progDir)
	if from := os.Getenv(progsVar); from != "" {
		err = copyAll(from, progDir)
	} else {
		err = compileAll(progDir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		return 1
	}
	code := m.Run()
	if publicProgs != "" {
		os.RemoveAll(publicProgs)
	}
	// A process of the last test may still be on its way out (killed, or ending, not yet
	// reaped by its parent): only one that is not dying (buildtest.Dying) counts.
	if left := descendants(); len(left) > 0 {
		pids := make([]int, 0, len(left))
		for pid := range left {
			pids = append(pids, pid)
		}
		if alive := buildtest.UntilDying(pids); len(alive) > 0 {
			var names []string
			for _, pid := range alive {
				names = append(names, fmt.Sprintf("%d (%s)", pid, left[pid]))
			}
			fmt.Fprintf(os.Stderr, "FAIL: processes left behind by the tests: %v\n", names)
			return 1
		}
	}
	return code
}

// compileAll compiles every testdata/*/*.c into dir, named after the file without ".c"
// (each a copy of the checkout's compiled one, buildtest.CProgram).
func compileAll(dir string) error {
	srcs, err := filepath.Glob("testdata/*/*.c")
	if err != nil || len(srcs) == 0 {
		return fmt.Errorf("no C sources under testdata: %v", err)
	}
	var wg sync.WaitGroup
	errs := make([]error, len(srcs))
	sem := make(chan struct{}, 4)
	for i, src := range srcs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			out := filepath.Join(dir, strings.TrimSuffix(filepath.Base(src), ".c"))
			errs[i] = buildtest.CProgramAt(out, src, "-O0")
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// progsVar names, in a rerun as an unprivileged user (asUnprivileged), a folder that user
// can read holding the programs the root run compiled: the rerun copies them into its own
// progDir instead of compiling all of testdata again in a build cache of its own (its
// TMPDIR is new), which cost each rerun seconds.
const progsVar = "GAUNTLET_SANDBOX_TEST_PROGS"

var (
	publicOnce  sync.Once
	publicProgs string // a copy of progDir every user may read, made for the first rerun
	publicErr   error
)

// asUnprivileged is buildtest.AsUnprivileged, handing the rerun the programs this run
// compiled (progsVar).
func asUnprivileged(t *testing.T, run string) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return false
	}
	return buildtest.AsUnprivilegedWith(t, []string{progsVar + "=" + publicProgsFor(t)}, run)
}

// asAlone is asUnprivileged as buildtest.Alone, a user no other test runs as.
func asAlone(t *testing.T, run string) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return false
	}
	return buildtest.AsAlone(t, []string{progsVar + "=" + publicProgsFor(t)}, run)
}

// publicProgsFor returns a copy of the compiled programs every user may read, made once.
func publicProgsFor(t *testing.T) string {
	t.Helper()
	publicOnce.Do(func() {
		dir, err := os.MkdirTemp("", "gauntlet-sandbox-public-progs-")
		if err == nil {
			if err = os.Chmod(dir, 0o755); err == nil {
				err = copyAll(progDir, dir)
			}
		}
		publicProgs, publicErr = dir, err
	})
	if publicErr != nil {
		t.Fatal(publicErr)
	}
	return publicProgs
}

// copyAll copies every file of from into dir, executable by all.
func copyAll(from, dir string) error {
	entries, err := os.ReadDir(from)
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return fmt.Errorf("no programs in %s", from)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o755); err != nil {
			return err
		}
	}
	return nil
}

// prog returns the path of a compiled test program.
func prog(name string) string { return filepath.Join(progDir, name) }

// descendants maps the live processes below this test process, as /proc shows them, to
// their names.
func descendants() map[int]string {
	procs, _ := hygiene.Scan()
	parent := map[int]int{}
	for _, p := range procs {
		parent[p.Pid] = p.PPid
	}
	self := os.Getpid()
	out := map[int]string{}
	for _, p := range procs {
		if p.Pid == self || p.Zombie() {
			continue
		}
		for q := p.PPid; q > 1; q = parent[q] {
			if q == self {
				out[p.Pid] = p.Comm
				break
			}
		}
	}
	return out
}

// assertNothingLeft fails if any process of the run still exists: owned by the run's
// sandbox user, or carrying the run's token.
func assertNothingLeft(t *testing.T, res *sandbox.Result) {
	t.Helper()
	procs, err := hygiene.Scan()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		if res.UID != os.Getuid() && int(p.UID) == res.UID {
			t.Errorf("process %d (%s, state %c) of sandbox user %d left behind", p.Pid, p.Comm, p.State, res.UID)
			continue
		}
		if v, ok := hygiene.EnvValue(p.Pid, sandbox.TokenEnv); ok && v == res.Token {
			t.Errorf("process %d (%s, state %c) with the run's token left behind", p.Pid, p.Comm, p.State)
		}
	}
}

// testConfig is the configuration of the tests: a deadline that is only a safety bound
// (tests of hangs set a short one), short grace, small bounds, and niceness so that busy
// subjects slow the harness less.
func testConfig() sandbox.Config {
	return sandbox.Config{
		Deadline: slowdown * 5 * time.Second,
		Grace:    slowdown * 300 * time.Millisecond,
		Limits: sandbox.Limits{
			CPU:          5 * time.Second,
			AddressSpace: 256 << 20,
			Processes:    8,
			FileSize:     1 << 20,
			Nice:         10,
		},
		OutputLimit: 64 << 10,
		Transcript:  transcript.New(transcript.Options{MaxBytes: 256 << 10}),
	}
}
