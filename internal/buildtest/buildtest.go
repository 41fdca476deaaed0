// Package buildtest builds the project's main packages for tests that must run the real
// binaries (exit codes, signals, pipes between processes), once per test binary.
package buildtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"gauntlet/harness/box/execfile"
	"gauntlet/harness/box/hygiene"
	"gauntlet/harness/runtime/tcp"
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
// The directory is a cache shared by every test binary of one checkout (see binDir):
// `go build -o` relinks only when the program is out of date, so the dozen packages of one
// `go test ./...` that run the gauntlet binary pay for one link, not one each. Asking the
// go command still costs about 0.2 s of CPU, so within one `go test` command the first
// test binary that builds a program leaves a stamp naming that command (goTestRun), and
// the others take the program as it is. A lock keeps two test binaries from writing a
// program at once.
func Programs(tb testing.TB, pkgs ...string) string {
	tb.Helper()
	if d := os.Getenv(prebuiltVar); d != "" {
		// A rerun as an unprivileged user (AsUnprivileged): built by the first run.
		for _, p := range pkgs {
			if _, err := os.Stat(filepath.Join(d, path.Base(p))); err != nil {
				tb.Fatalf("buildtest: %s was not built before the rerun as another user: %v", p, err)
			}
		}
		return d
	}
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
	if len(todo) == 0 {
		return dir
	}
	unlock, err := lockDir(dir)
	if err != nil {
		tb.Fatalf("buildtest: %v", err)
	}
	defer unlock()
	run := goTestRun()
	var stale []string
	for _, p := range todo {
		if run == "" || !builtIn(dir, p, run) {
			stale = append(stale, p)
		}
	}
	if len(stale) > 0 {
		args := append([]string{"build", "-o", dir + string(filepath.Separator)}, stale...)
		out, err := exec.Command(goTool(), args...).CombinedOutput()
		if err != nil {
			tb.Fatalf("buildtest: go build %v: %v\n%s", stale, err, out)
		}
		for _, p := range stale {
			if run != "" {
				os.WriteFile(stampPath(dir, p), []byte(run), 0o644)
			} else {
				os.Remove(stampPath(dir, p))
			}
		}
	}
	for _, p := range todo {
		built[p] = true
	}
	return dir
}

// CProgram compiles the C file src with cc and flags into the folder Programs uses, once
// per checkout: the binary's name carries a hash of the compiler (its path, size and
// time), the flags and the source, so that an edited source, other flags or another
// compiler build anew, and an unchanged one costs a hash instead of a compiler run. A new
// build removes the one it replaces (same source file and flags), so the folder keeps one
// binary per program. It returns the binary's path. It needs no testing.TB, for a TestMain.
func CProgram(src string, flags ...string) (string, error) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		return "", fmt.Errorf("a C compiler (cc) is needed: %w", err)
	}
	real, err := filepath.EvalSymlinks(cc)
	if err != nil {
		return "", err
	}
	ccInfo, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	source, err := os.ReadFile(src)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%d\x00%q\x00", real, ccInfo.Size(), ccInfo.ModTime().UnixNano(), flags)
	h.Write(source)
	mu.Lock()
	if dir == "" {
		if dir, err = binDir(); err != nil {
			mu.Unlock()
			return "", err
		}
	}
	d := dir
	mu.Unlock()
	// c-PROGRAM-CONTENT-NAME: PROGRAM hashes the source's path and the flags (what stays
	// the same when the source is edited), CONTENT everything.
	abs, err := filepath.Abs(src)
	if err != nil {
		return "", err
	}
	program := sha256.Sum256(fmt.Appendf(nil, "%s\x00%q", abs, flags))
	name := strings.TrimSuffix(filepath.Base(src), ".c")
	prefix := "c-" + hex.EncodeToString(program[:4]) + "-"
	out := filepath.Join(d, prefix+hex.EncodeToString(h.Sum(nil)[:8])+"-"+name)
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	// Compiled under a name of its own, then renamed: another test binary that compiles
	// the same program at the same moment finds either nothing or the whole binary.
	tmp := fmt.Sprintf("%s.%d.tmp", out, os.Getpid())
	args := append(append([]string{}, flags...), "-o", tmp, src)
	if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("cc %s: %v\n%s", src, err, b)
	}
	if err := os.Rename(tmp, out); err != nil {
		os.Remove(tmp)
		return "", err
	}
	// The builds this one replaces: same program, other content (16 hex digits: not the
	// temporary file of a build under way).
	old, _ := filepath.Glob(filepath.Join(d, prefix+strings.Repeat("[0-9a-f]", 16)+"-"+name))
	for _, o := range old {
		if o != out {
			os.Remove(o)
		}
	}
	return out, nil
}

// CProgramAt is CProgram, then a copy of the binary at dst (executable): for a test that
// wants the program under a name of its own, or in a folder of its own.
func CProgramAt(dst, src string, flags ...string) error {
	bin, err := CProgram(src, flags...)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o755)
}

// goTestRun names the `go test` command that started this test binary (its pid and start
// time) when the binary's parent is the go tool, or returns "" (a test binary run by hand,
// or through -exec: every program is then checked with the go command).
func goTestRun() string {
	ppid := os.Getppid()
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", ppid))
	if err != nil || filepath.Base(exe) != "go" {
		return ""
	}
	p, err := hygiene.ReadProc(ppid)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("go test %d started at %d", ppid, p.Start)
}

// stampPath is the file that says which go test command last built pkg into dir.
func stampPath(dir, pkg string) string {
	return filepath.Join(dir, ".built-"+strings.ReplaceAll(pkg, "/", "_"))
}

// builtIn reports whether pkg's program in dir was built during the go test command run.
func builtIn(dir, pkg, run string) bool {
	stamp, err := os.ReadFile(stampPath(dir, pkg))
	if err != nil || string(stamp) != run {
		return false
	}
	_, err = os.Stat(filepath.Join(dir, path.Base(pkg)))
	return err == nil
}

// Path builds pkg and returns the path of its binary.
func Path(tb testing.TB, pkg string) string {
	tb.Helper()
	return filepath.Join(Programs(tb, pkg), path.Base(pkg))
}

// RunBuilt builds the main package pkg, runs it with args and returns its exit status,
// stdout and stderr: the CLI's own tests and those of a package the CLI carries run the
// binary as a user would, in a process of its own. A program that cannot be run, or
// that a signal ends, fails tb.
func RunBuilt(tb testing.TB, pkg string, args ...string) (status int, stdout, stderr string) {
	tb.Helper()
	cmd := exec.Command(Path(tb, pkg), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		tb.Fatal(err)
	}
	if status = cmd.ProcessState.ExitCode(); status < 0 {
		tb.Fatalf("%s %q: %v", pkg, args, err)
	}
	return status, out.String(), errb.String()
}

// binDir is the checkout's folder of built programs: in the temporary folder, one per user
// and module root (the test runs in its package's folder, below it). It must be reachable
// by the sandbox users some tests run the programs as, so it is not under a private home;
// a folder there that this user does not own, or that others may write, is not trusted
// and a fresh one is made instead.
func binDir() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(root))
	d := filepath.Join(os.TempDir(), fmt.Sprintf("gauntlet-buildtest-%d-%s", os.Getuid(), hex.EncodeToString(sum[:8])))
	if err := os.Mkdir(d, 0o755); err != nil && !os.IsExist(err) {
		return "", err
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(d, &st); err != nil || int(st.Uid) != os.Getuid() ||
		st.Mode&syscall.S_IFMT != syscall.S_IFDIR || st.Mode&0o022 != 0 {
		return os.MkdirTemp("", "gauntlet-buildtest-")
	}
	return d, nil
}

// moduleRoot is the nearest folder above the working directory that holds a go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod above %s", dir)
		}
	}
}

// lockDir takes an exclusive lock on dir's lock file, and returns its release.
func lockDir(dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
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

// Long skips tb under `go test -short`: a test that costs seconds of CPU and checks
// something no suite case does (a cohort, a hostile flood, a whole fuzzing campaign). It
// runs in the full `go test ./...` and in CI; -short is the quick loop while editing.
func Long(tb testing.TB) {
	tb.Helper()
	if testing.Short() {
		tb.Skip("a long test: it runs without -short")
	}
}

// OnThreadThatEnds runs f in a goroutine locked to an OS thread that ends when f returns,
// as a thread left locked (after a namespace switch) ends: what a start from the wrong
// thread does to a program's parent-death signal. The main thread never ends (the runtime
// parks it instead), so a goroutine that lands on it holds it while f runs on another.
// It returns once that thread is gone: by then the kernel has sent the parent-death
// signal of every child the thread forked, so a test checks at once (Dying) whether a
// program survived, instead of waiting a while to see it die.
func OnThreadThatEnds(f func()) {
	done := make(chan int, 1)
	go func() {
		runtime.LockOSThread()
		if syscall.Gettid() == syscall.Getpid() {
			OnThreadThatEnds(f)
			runtime.UnlockOSThread()
			done <- 0
			return
		}
		f()
		done <- syscall.Gettid()
	}()
	if tid := <-done; tid != 0 {
		task := "/proc/self/task/" + strconv.Itoa(tid)
		for {
			if _, err := os.Stat(task); os.IsNotExist(err) {
				return
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// Backstop returns a channel that fires a little before tb's deadline (go test -timeout),
// or after ten minutes where there is none. A test waits on it beside what it waits for,
// only to fail with a clear message where the alternative is a hang (a program that
// should have been stopped, made to sleep for an hour so that no load can pass for it):
// it never decides a result that the machine's load could change.
func Backstop(tb testing.TB) <-chan time.Time {
	left := 10 * time.Minute
	if d, ok := tb.(interface{ Deadline() (time.Time, bool) }); ok {
		if at, ok := d.Deadline(); ok {
			left = time.Until(at)
			left -= min(30*time.Second, left/10)
		}
	}
	return time.After(left)
}

// Returns runs f on a goroutine of its own and returns once f has returned. If f has not
// returned by the Backstop, it fails tb with hang, what f's hang would mean (f is left
// running: the test is failing anyway).
func Returns(tb testing.TB, hang string, f func()) {
	tb.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-Backstop(tb):
		select {
		case <-done:
		default:
			tb.Fatalf("has not ended: %s", hang)
		}
	}
}

// KillAtBackstop kills process p if it still runs at tb's Backstop: a program under test
// that hangs then ends, and the test fails on how it ended, instead of hanging. The
// returned stop ends the watch (deferred by the caller once it has waited for p).
func KillAtBackstop(tb testing.TB, p *os.Process) (stop func()) {
	done := make(chan struct{})
	backstop := Backstop(tb)
	go func() {
		select {
		case <-backstop:
			p.Kill()
		case <-done:
		}
	}()
	return func() { close(done) }
}

// LoopbackService stands for a service of the grading machine on its loopback: it listens
// on a free port of 127.0.0.1, answers every connection with reply and closes it, until tb
// ends, and returns the port. It is made with harness/runtime/tcp rather than net on purpose: a
// test binary that links net is built with cgo and linked dynamically, and every program it
// starts as itself (exec roles, reference and mock programs) then pays about 1.3 ms more
// to start (cmd/gauntlet's TestBinaryLinksNoCgo).
func LoopbackService(tb testing.TB, reply string) int {
	tb.Helper()
	l, err := tcp.Listen("127.0.0.1", 0)
	if err != nil {
		tb.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept(time.Time{})
			if err != nil {
				return
			}
			c.WriteString(reply)
			c.Close()
		}
	}()
	tb.Cleanup(func() {
		l.Close()
		<-done
	})
	return l.Port
}

// PublicCopy copies the program at path into a folder of its own that every user may
// search, removed when the test ends, and returns the copy's path: for a test that runs a
// program as another user, who cannot reach the test's own folders.
func PublicCopy(tb testing.TB, path string) string {
	tb.Helper()
	dir, err := os.MkdirTemp("", "gauntlet-public-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	cp := filepath.Join(dir, filepath.Base(path))
	if err := execfile.Write(cp, data, 0o755); err != nil {
		tb.Fatal(err)
	}
	return cp
}

// HostileProgram compiles the hostile test program NAME.c of the sandbox's corpus
// (harness/box/sandbox/testdata/hostile) and returns its binary, for the tests of other
// packages that play it against their layer.
func HostileProgram(tb testing.TB, name string) string {
	tb.Helper()
	root, err := moduleRoot()
	if err != nil {
		tb.Fatal(err)
	}
	bin, err := CProgram(filepath.Join(root, "harness", "box", "sandbox", "testdata", "hostile", name+".c"))
	if err != nil {
		tb.Fatal(err)
	}
	return bin
}

// SearchableByOthers lets other users search dir and the folders above it that the test
// made (t.TempDir's folder and the one testing made above it, both under the system's temp
// folder), as the sandbox users that run a case must. It never changes a folder the test
// did not make: one of those that others cannot search fails the test, which names it
// (adding the search bits to every folder up to / with a folder's plain permissions would
// take the sticky bit off /tmp when the tests run as root).
func SearchableByOthers(tb testing.TB, dir string) {
	tb.Helper()
	tmp := filepath.Clean(os.TempDir())
	for d := filepath.Clean(dir); d != "/" && d != "."; d = filepath.Dir(d) {
		var st syscall.Stat_t
		if err := syscall.Stat(d, &st); err != nil {
			tb.Fatal(err)
		}
		if st.Mode&0o011 == 0o011 {
			continue
		}
		// Only a folder strictly under the system's temp folder, owned by this user, is
		// the test's own to change; its other bits (sticky, setgid) are kept.
		if !strings.HasPrefix(d, tmp+"/") || int(st.Uid) != os.Getuid() {
			tb.Fatalf("%s is not searchable by others, and the test did not make it: it will not change it", d)
		}
		if err := syscall.Chmod(d, st.Mode&0o7777|0o011); err != nil {
			tb.Fatal(err)
		}
	}
}

// RequireBoxVar, set to 1 (as .ci/run does), makes a security test whose box (or cgroups,
// or root) this machine cannot give fail instead of skip: CI must run them all.
const RequireBoxVar = "GAUNTLET_REQUIRE_BOX"

// NeedBox skips the test, saying why, when problem is not nil (the machine cannot give
// what the test checks: a box, cgroups, root), or fails it when RequireBoxVar is 1.
func NeedBox(tb testing.TB, problem error) {
	tb.Helper()
	if problem == nil {
		return
	}
	if os.Getenv(RequireBoxVar) == "1" {
		tb.Fatalf("%s=1, but this machine cannot run this security test: %v", RequireBoxVar, problem)
	}
	tb.Skipf("not on this machine: %v", problem)
}

// RequireToolsVar, set to 1 (as .ci/run does), makes a test whose tool this machine lacks
// (Chromium, bash, git, a kernel feature: anything beyond Go, a C compiler and a shell)
// fail instead of skip: CI installs them all, so a skip there would hide a missing install.
const RequireToolsVar = "GAUNTLET_REQUIRE_TOOLS"

// NeedTool skips the test when problem is not nil (the machine lacks a tool it needs),
// saying what is missing and how to get it; under RequireToolsVar=1 it fails instead.
func NeedTool(tb testing.TB, problem error, howToGet string) {
	tb.Helper()
	if problem == nil {
		return
	}
	if os.Getenv(RequireToolsVar) == "1" {
		tb.Fatalf("%s=1, but this machine cannot run this test: %v (%s)", RequireToolsVar, problem, howToGet)
	}
	tb.Skipf("not on this machine: %v (%s)", problem, howToGet)
}

// NeedCommand is NeedTool for a program found on PATH; it returns the program's path.
func NeedCommand(tb testing.TB, name, howToGet string) string {
	tb.Helper()
	path, err := exec.LookPath(name)
	NeedTool(tb, err, howToGet)
	return path
}

// NeedRoot is NeedBox for a test only root can run (sandbox users, leases, mounts, a root
// grader's notes): for another user it skips, saying why, or fails when RequireBoxVar is 1.
func NeedRoot(tb testing.TB, why string) {
	tb.Helper()
	if os.Geteuid() != 0 {
		NeedBox(tb, fmt.Errorf("not root, and %s", why))
	}
}

// ByRerun skips a test whose body runs in a rerun of it as another user (AsUnprivileged
// and the like) rather than in this process: a root run's rootless-only test, which the
// named rerun covers, or the rerun's wrapper in a run that is not root, where the tests it
// reruns run directly. Nothing the machine lacks is hidden by it, so RequireBoxVar does not
// turn it into a failure; a test whose rerun cannot happen for want of root uses NeedRoot.
func ByRerun(tb testing.TB, why string) {
	tb.Helper()
	tb.Skipf("runs in a rerun as another user: %s", why)
}

// boxMaskedVar is sandbox.MaskedVar (which buildtest cannot import): set, the boxes of a
// test run mask none of the judge's files (the VM tests: the search is minutes there), and
// a rerun as another user keeps it.
const boxMaskedVar = "GAUNTLET_BOX_MASKED"

// Unprivileged is the user AsUnprivileged runs a test as: nobody's uid and group.
const Unprivileged = 65534

// prebuiltVar names, in a rerun as an unprivileged user, the folder where the first run
// built the programs the test needs (Programs), which that user could not build: the
// module cache is the first run's user's.
const prebuiltVar = "GAUNTLET_BUILDTEST_PREBUILT"

// AsUnprivileged runs the tests that run (a -test.run pattern) matches again,
// in a copy of the test binary run as an unprivileged user (Unprivileged), in the package's
// folder (which it must be able to read) with a temporary folder of its own, and reports its output and end as this test's: so a root test run, as in CI,
// also checks what a grader that is not root does (a rootless box). It returns false in
// that copy's run itself, where the test goes on as the unprivileged user; true when this
// call did the whole test (the caller returns). Without root it returns false at once.
// Programs pkgs are built first, for the rerun to use.
func AsUnprivileged(tb testing.TB, run string, pkgs ...string) (done bool) {
	tb.Helper()
	return AsUnprivilegedWith(tb, nil, run, pkgs...)
}

// AsUnprivilegedWith is AsUnprivileged with more variables (NAME=VALUE) in the rerun's
// environment: what the root run prepared for it (a cgroup delegated to that user).
func AsUnprivilegedWith(tb testing.TB, env []string, run string, pkgs ...string) (done bool) {
	tb.Helper()
	return AsUnprivilegedIn(tb, "", env, run, pkgs...)
}

// AsUnprivilegedIn is AsUnprivilegedWith with the rerun started in the cgroup v2 group at
// cgroupDir ("": where this process is): a group delegated to that user, which it could not
// join by itself (under v2, moving a process takes write access to the cgroup.procs of the
// common ancestor of its group and the new one).
func AsUnprivilegedIn(tb testing.TB, cgroupDir string, env []string, run string, pkgs ...string) (done bool) {
	tb.Helper()
	return asUser(tb, Unprivileged, cgroupDir, env, run, pkgs...)
}

// Alone is a user no test but one at a time runs as (no group, no name): for a test whose
// check counts its user's processes (a process limit), which another package's test
// running as Unprivileged at the same time would upset.
const Alone = 65533

// AsAlone is AsUnprivilegedWith as the user Alone.
func AsAlone(tb testing.TB, env []string, run string) (done bool) {
	tb.Helper()
	return asUser(tb, Alone, "", env, run)
}

// asUser reruns the test binary's tests matching run as user uid (and group uid).
func asUser(tb testing.TB, uid int, cgroupDir string, env []string, run string, pkgs ...string) (done bool) {
	tb.Helper()
	if os.Geteuid() != 0 {
		return false
	}
	prebuilt := ""
	if len(pkgs) > 0 {
		prebuilt = Programs(tb, pkgs...)
	}
	self, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	bin := PublicCopy(tb, self)
	work, err := os.MkdirTemp("", "gauntlet-unprivileged-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(work) })
	// Searchable by others, as a system's temporary folder is (tests of sandbox users
	// check that their folders are).
	if err := os.Chmod(work, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.Chown(work, uid, uid); err != nil {
		tb.Fatal(err)
	}
	args := []string{"-test.run", run, "-test.v", "-test.count=1"}
	if testing.Short() {
		// The rerun is part of a short suite too: its long-only parts are left out
		// there as they are here.
		args = append(args, "-test.short")
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + work, "TMPDIR=" + work,
		RequireBoxVar + "=" + os.Getenv(RequireBoxVar), prebuiltVar + "=" + prebuilt}
	if v, ok := os.LookupEnv(boxMaskedVar); ok {
		cmd.Env = append(cmd.Env, boxMaskedVar+"="+v) // as its parent's boxes, the rerun's
	}
	cmd.Env = append(cmd.Env, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid), Groups: []uint32{}},
		Pdeathsig: syscall.SIGKILL}
	if cgroupDir != "" {
		fd, err := syscall.Open(cgroupDir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err != nil {
			tb.Fatal(err)
		}
		defer syscall.Close(fd)
		cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, fd
	}
	// The parent-death signal comes when the thread that forked the rerun ends, not this
	// process: a thread the runtime later gave a goroutine that locks it and ends locked
	// (the sandbox's threads that enter a box's namespaces do) would kill the rerun. CI's
	// loaded step saw three reruns killed at once so. The rerun is forked and waited for
	// on a thread this goroutine holds until it has ended.
	runtime.LockOSThread()
	out, err := cmd.CombinedOutput()
	runtime.UnlockOSThread()
	tb.Logf("as uid %d:\n%s", uid, out)
	if err != nil {
		tb.Fatalf("%s failed as uid %d: %v", run, uid, err)
	}
	// The rerun's own tests report at the start of a line, their subtests indented: a
	// subtest left out of a short run does not make the test a skip.
	if topLevel(out, "--- SKIP: ") {
		tb.Skipf("%s skipped as uid %d", run, uid)
	}
	if !topLevel(out, "--- PASS: ") {
		tb.Fatalf("%s ran no test as uid %d", run, uid)
	}
	return true
}

// topLevel reports whether a line of a verbose test run's output starts with prefix.
func topLevel(out []byte, prefix string) bool {
	return bytes.HasPrefix(out, []byte(prefix)) || bytes.Contains(out, []byte("\n"+prefix))
}
