package buildtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestPathBuildsAndRuns(t *testing.T) {
	bin := Path(t, "gauntlet/internal/buildtest/internal/hello")
	out, err := exec.Command(bin).Output()
	if err != nil || string(out) != "hello\n" {
		t.Fatalf("%s: %q, %v", bin, out, err)
	}
	if again := Path(t, "gauntlet/internal/buildtest/internal/hello"); again != bin {
		t.Fatalf("second Path = %s, want %s", again, bin)
	}
}

// RunBuilt gives a program's status and both its outputs, a failure's too.
func TestRunBuilt(t *testing.T) {
	const hello = "gauntlet/internal/buildtest/internal/hello"
	if status, stdout, stderr := RunBuilt(t, hello); status != 0 || stdout != "hello\n" || stderr != "" {
		t.Errorf("hello: %d, %q, %q", status, stdout, stderr)
	}
	if status, stdout, stderr := RunBuilt(t, hello, "a", "b"); status != 3 || stdout != "" || stderr != "a b\n" {
		t.Errorf("hello a b: %d, %q, %q; want 3, \"\", \"a b\\n\"", status, stdout, stderr)
	}
}

// A stamp names the go test command that built a program; another command, or a program
// gone from the folder, means asking the go command again.
func TestBuiltIn(t *testing.T) {
	dir := t.TempDir()
	const pkg, run = "gauntlet/cmd/x", "go test 42 started at 7"
	if builtIn(dir, pkg, run) {
		t.Fatal("built with no stamp")
	}
	os.WriteFile(stampPath(dir, pkg), []byte(run), 0o644)
	if builtIn(dir, pkg, run) {
		t.Fatal("built with no program")
	}
	os.WriteFile(filepath.Join(dir, "x"), nil, 0o755)
	if !builtIn(dir, pkg, run) {
		t.Fatal("not built by the same run")
	}
	if builtIn(dir, pkg, "go test 42 started at 8") || builtIn(dir, "gauntlet/cmd/y", run) {
		t.Fatal("built by another run, or another package")
	}
}

// goTestRun names the parent only when it is the go tool: here a shell copied under the
// name go starts this test binary, and then a shell under its own name does.
func TestGoTestRunNamesTheGoParent(t *testing.T) {
	if os.Getenv("BUILDTEST_PRINT_RUN") != "" {
		fmt.Print(goTestRun())
		os.Exit(0)
	}
	sh := NeedCommand(t, "sh", "a POSIX shell on PATH")
	data, err := os.ReadFile(sh)
	if err != nil {
		t.Fatal(err)
	}
	fakeGo := filepath.Join(t.TempDir(), "go")
	if err := os.WriteFile(fakeGo, data, 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, parent := range []string{fakeGo, sh} {
		// The shell stays the parent: it waits for the test binary, then prints its pid.
		cmd := exec.Command(parent, "-c", `"$0" -test.run='^TestGoTestRunNamesTheGoParent$'; echo "|$$"`, self)
		cmd.Env = append(os.Environ(), "BUILDTEST_PRINT_RUN=1")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v\n%s", parent, err, out)
		}
		run, pid, _ := strings.Cut(strings.TrimSpace(string(out)), "|")
		if named := strings.HasPrefix(run, "go test "+pid+" started at "); named != (parent == fakeGo) {
			t.Errorf("parent %s (pid %s): goTestRun gave %q", parent, pid, run)
		}
	}
}

// A C program is compiled once: the same source and flags give the same binary, untouched;
// other flags or another source give another one.
func TestCProgram(t *testing.T) {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Fatalf("this test needs a C compiler: %v", err)
	}
	src := filepath.Join(t.TempDir(), "answer.c")
	write := func(n int) {
		if err := os.WriteFile(src, []byte(fmt.Sprintf("int main(void) { return %d; }\n", n)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(3)
	bin, err := CProgram(src, "-O0")
	if err != nil {
		t.Fatal(err)
	}
	if err := exec.Command(bin).Run(); err == nil || err.(*exec.ExitError).ExitCode() != 3 {
		t.Fatalf("%s: %v, want exit status 3", bin, err)
	}
	before, _ := os.Stat(bin)
	again, err := CProgram(src, "-O0")
	if after, _ := os.Stat(again); err != nil || again != bin || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("second compile: %s, %v; want %s untouched", again, err, bin)
	}
	o1, err := CProgram(src, "-O1")
	if err != nil || o1 == bin {
		t.Errorf("other flags: %s, %v; want a binary other than %s", o1, err, bin)
	}
	write(4)
	if other, err := CProgram(src, "-O0"); err != nil || other == bin {
		t.Errorf("edited source: %s, %v; want a binary other than %s", other, err, bin)
	} else if err := exec.Command(other).Run(); err == nil || err.(*exec.ExitError).ExitCode() != 4 {
		t.Errorf("%s: %v, want exit status 4", other, err)
	}
	if _, err := os.Stat(bin); !os.IsNotExist(err) {
		t.Errorf("%s, the build of the source before its edit, is still there (%v)", bin, err)
	}
	if _, err := os.Stat(o1); err != nil {
		t.Errorf("the build with other flags went with the edited source's: %v", err)
	}
}

// parentShortVar carries the first run's -short to its rerun as another user.
const parentShortVar = "GAUNTLET_TEST_PARENT_SHORT"

// A rerun as another user is as short as the run that started it: before, a rerun of
// `go test -short` ran its long-only parts (a 3 s memory hold among them) anyway.
func TestRerunKeepsShort(t *testing.T) {
	if want := os.Getenv(parentShortVar); want != "" {
		if got := fmt.Sprint(testing.Short()); got != want {
			t.Errorf("the rerun's -short is %s, its parent's %s", got, want)
		}
		return
	}
	NeedRoot(t, "reruns as another user need root")
	AsUnprivilegedWith(t, []string{parentShortVar + "=" + fmt.Sprint(testing.Short())}, "^TestRerunKeepsShort$")
}

// A rerun is a skip when its test is, not when one of its subtests is.
func TestTopLevelResult(t *testing.T) {
	out := []byte("=== RUN   TestX\n    --- SKIP: TestX/long (0.00s)\n--- PASS: TestX (0.01s)\nPASS\n")
	if topLevel(out, "--- SKIP: ") || !topLevel(out, "--- PASS: ") {
		t.Errorf("a passing test with a skipped subtest: skip %v, pass %v", topLevel(out, "--- SKIP: "), topLevel(out, "--- PASS: "))
	}
	if !topLevel([]byte("--- SKIP: TestX (0.00s)\n"), "--- SKIP: ") {
		t.Error("a skipped test at the output's start is not a skip")
	}
}

// TestMain is the probe of TestDefaultSignalsUnderNohup when it starts the test binary:
// DefaultSignals, then the signals still ignored.
func TestMain(m *testing.M) {
	if os.Getenv(defaultSignalsProbeEnv) == "1" {
		DefaultSignals()
		fmt.Printf("ignored: %v\n", IgnoredSignals())
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const defaultSignalsProbeEnv = "GAUNTLET_TEST_DEFAULT_SIGNALS_PROBE"

// A test binary started with SIGHUP ignored (as under nohup) runs its tests with it at
// its default action, as the exec role's tests need.
func TestDefaultSignalsUnderNohup(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sh", "-c", `trap '' HUP INT; exec "$0"`, self)
	cmd.Env = append(os.Environ(), defaultSignalsProbeEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || string(out) != "ignored: []\n" {
		t.Errorf("%v: %q, want no signal ignored", err, out)
	}
}
