package record

import (
	"bufio"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"gauntlet/internal/buildtest"
)

// TestMain lets more tests run at once than there are cores: most of them wait on a shell
// for a step's timeout.
func TestMain(m *testing.M) {
	buildtest.WaitingTests()
	os.Exit(m.Run())
}

// sh runs a shell script as the program under test.
func sh(t *testing.T, script string, steps []Step, opt Options) *Result {
	t.Helper()
	res, err := Run("/bin/sh", []string{"-c", script}, steps, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func write(s string) Step { return Step{Kind: Write, Data: []byte(s)} }

func TestRun(t *testing.T) {
	quick := Options{StepTimeout: 300 * time.Millisecond, QuickTimeout: 50 * time.Millisecond}
	tests := []struct {
		name    string
		script  string
		steps   []Step
		stdout  string
		stderr  string
		exit    Exit
		awaited []Awaited
		blocked bool
		opt     *Options // instead of quick
	}{
		{
			name:   "answers each line, then EOF",
			script: `printf '!'; while read l; do echo "got $l"; echo "err $l" >&2; done; exit 4`,
			steps:  []Step{{Kind: AwaitBytes, N: 1}, write("a\n"), {Kind: AwaitLine}, write("b\n"), {Kind: AwaitLine}},
			stdout: "!got a\ngot b\n", stderr: "err a\nerr b\n", exit: Exit{Code: 4},
			awaited: []Awaited{{Data: []byte("!"), End: Got}, {Data: []byte("got a\n"), End: Got}, {Data: []byte("got b\n"), End: Got}},
		},
		{
			name:   "a wait ends at EOF with what came before",
			script: `printf 'par'; exit 3`,
			steps:  []Step{{Kind: AwaitLine}, {Kind: AwaitLine}},
			stdout: "par", exit: Exit{Code: 3},
			awaited: []Awaited{{Data: []byte("par"), End: EOF}, {Data: []byte{}, End: EOF}},
		},
		{
			name:   "a silent program: one full wait, then quick ones",
			script: `read l; sleep 0.1; echo late`,
			steps:  []Step{{Kind: AwaitLine}, {Kind: AwaitLine}},
			// stdin is closed after the script: read returns, and "late" comes after the waits.
			stdout: "late\n", exit: Exit{Code: 0},
			awaited: []Awaited{{Data: []byte{}, End: Timeout}, {Data: []byte{}, End: Timeout}},
		},
		{
			name:   "a program that never ends is killed and marked hung",
			script: `exec sleep 30`,
			exit:   Exit{Hung: true},
		},
		{
			name:   "death by a signal",
			script: `printf '!'; read l; kill -SEGV $$`,
			steps:  []Step{{Kind: AwaitBytes, N: 1}, write("x\n")},
			stdout: "!", exit: Exit{Signal: syscall.SIGSEGV},
			awaited: []Awaited{{Data: []byte("!"), End: Got}},
		},
		{
			name:   "a signal sent by the script",
			script: `printf '!'; exec sleep 30`,
			steps:  []Step{{Kind: AwaitBytes, N: 1}, {Kind: Signal, Signal: syscall.SIGTERM}},
			stdout: "!", exit: Exit{Signal: syscall.SIGTERM},
			awaited: []Awaited{{Data: []byte("!"), End: Got}},
		},
		{
			name:   "close gives EOF; writes after it are dropped",
			script: `cat; exit 5`,
			steps:  []Step{write("one\n"), {Kind: Close}, write("two\n")},
			stdout: "one\n", exit: Exit{Code: 5},
		},
		{
			name:    "a write to a program that does not read gives up",
			script:  `exec sleep 1`,
			steps:   []Step{write(strings.Repeat("x", 1<<20))},
			exit:    Exit{Hung: true},
			blocked: true,
		},
		{
			name:   "quiet waits until the output stops",
			script: `printf '!'; read l; for i in 1 2 3 4 5; do echo $i >&2; sleep 0.03; done; exec sleep 30`,
			// A silence of 250 ms, against gaps of 30 ms, and a step timeout of 5 s: a loaded
			// machine can stretch a gap, not eight times over.
			steps: []Step{{Kind: AwaitBytes, N: 1}, write("go\n"), {Kind: Quiet, Delay: 250 * time.Millisecond},
				{Kind: Signal, Signal: syscall.SIGKILL}},
			stdout: "!", stderr: "1\n2\n3\n4\n5\n", exit: Exit{Signal: syscall.SIGKILL},
			awaited: []Awaited{{Data: []byte("!"), End: Got}},
			opt:     &Options{StepTimeout: 5 * time.Second, QuickTimeout: 50 * time.Millisecond},
		},
		{
			name:   "a sleep step waits",
			script: `read a; echo "$a"`,
			steps:  []Step{{Kind: Sleep, Delay: 20 * time.Millisecond}, write("z\n"), {Kind: AwaitLine}},
			stdout: "z\n", exit: Exit{Code: 0},
			awaited: []Awaited{{Data: []byte("z\n"), End: Got}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each waits on its own shell, mostly for timeouts
			opt := quick
			if tc.opt != nil {
				opt = *tc.opt
			}
			res := sh(t, tc.script, tc.steps, opt)
			checkResult(t, res, tc.stdout, tc.stderr, tc.exit, tc.awaited, tc.blocked)
		})
	}
}

// checkResult compares a record with what a test wants of it.
func checkResult(t *testing.T, res *Result, stdout, stderr string, exit Exit, awaited []Awaited, blocked bool) {
	t.Helper()
	if string(res.Stdout) != stdout || string(res.Stderr) != stderr {
		t.Errorf("stdout %q stderr %q, want %q %q", res.Stdout, res.Stderr, stdout, stderr)
	}
	if res.Exit != exit {
		t.Errorf("exit %v, want %v", res.Exit, exit)
	}
	if res.Blocked != blocked {
		t.Errorf("blocked %v, want %v", res.Blocked, blocked)
	}
	if len(res.Awaited) != len(awaited) {
		t.Fatalf("awaited %+v, want %+v", res.Awaited, awaited)
	}
	for i, a := range res.Awaited {
		if string(a.Data) != string(awaited[i].Data) || a.End != awaited[i].End {
			t.Errorf("wait %d took %q (%v), want %q (%v)", i, a.Data, a.End, awaited[i].Data, awaited[i].End)
		}
	}
}

func TestOutputLimit(t *testing.T) {
	res := sh(t, `head -c 100000 /dev/zero; head -c 10 /dev/zero >&2`, nil, Options{OutputLimit: 1000})
	if len(res.Stdout) != 1000 || !res.StdoutCut || len(res.Stderr) != 10 || res.StderrCut {
		t.Fatalf("stdout %d bytes (cut %v), stderr %d (cut %v)", len(res.Stdout), res.StdoutCut, len(res.Stderr), res.StderrCut)
	}
}

// A program that allocates past the memory limit is refused the memory (here the shell
// dies of it); the same program under the default limit runs to the end.
func TestMemoryLimit(t *testing.T) {
	t.Parallel()
	hog := `x=$(head -c 40000000 /dev/zero | tr '\0' a); echo kept ${#x}`
	res := sh(t, hog, nil, Options{MemoryLimit: 16 << 20, StepTimeout: 10 * time.Second})
	if res.Exit == (Exit{}) || strings.Contains(string(res.Stdout), "kept") {
		t.Errorf("under a 16 MiB limit: %v, stdout %q", res.Exit, res.Stdout)
	}
	res = sh(t, hog, nil, Options{StepTimeout: 10 * time.Second})
	if res.Exit != (Exit{}) || string(res.Stdout) != "kept 40000000\n" {
		t.Errorf("under the default limit: %v, stdout %q", res.Exit, res.Stdout)
	}
}

// TestGroupKilled: whatever the program leaves running in its group is killed at the end.
func TestGroupKilled(t *testing.T) {
	res := sh(t, `sleep 30 & echo $!`, nil, Options{})
	var pid int
	for _, c := range strings.TrimSpace(string(res.Stdout)) {
		pid = pid*10 + int(c-'0')
	}
	if pid == 0 {
		t.Fatalf("no pid in %q", res.Stdout)
	}
	// Killed, the orphan is a zombie until init reaps it (if it ever does), and may take
	// a while to die on a busy machine (buildtest.Dying: its SIGKILL pending).
	if alive := buildtest.UntilDying([]int{pid}); len(alive) > 0 {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the background child %d is still running", pid)
	}
}

func TestStartError(t *testing.T) {
	if _, err := Run("/nonexistent/program", nil, nil, Options{}); err == nil {
		t.Fatal("no error for a program that does not exist")
	}
}

func TestExitString(t *testing.T) {
	tests := []struct {
		e    Exit
		want string
	}{
		{Exit{Code: 5}, "exit status 5"},
		{Exit{Signal: syscall.SIGSEGV}, "killed by SIGSEGV"},
		{Exit{Hung: true}, "hung (killed by the fuzzer)"},
	}
	for _, tc := range tests {
		if got := tc.e.String(); got != tc.want {
			t.Errorf("%+v.String() = %q, want %q", tc.e, got, tc.want)
		}
	}
}

// echoFunc answers each line as TestRun's first shell does: a greeting, then "got LINE" on
// stdout and "err LINE" on stderr, then status 4 at end of file.
func echoFunc(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	io.WriteString(stdout, "!")
	sc := bufio.NewScanner(stdin)
	for sc.Scan() {
		io.WriteString(stdout, "got "+sc.Text()+"\n")
		io.WriteString(stderr, "err "+sc.Text()+"\n")
	}
	return 4
}

// RunFunc plays a script with a function in this process as Run plays it with a program:
// the same waits, the same ends, the same record.
func TestRunFunc(t *testing.T) {
	t.Parallel() // its subtests wait on their functions: the package goes on meanwhile
	quick := Options{StepTimeout: 300 * time.Millisecond, QuickTimeout: 50 * time.Millisecond}
	tests := []struct {
		name    string
		f       Func
		steps   []Step
		stdout  string
		stderr  string
		exit    Exit
		awaited []Awaited
		blocked bool
	}{
		{
			name:   "answers each line, then EOF",
			f:      echoFunc,
			steps:  []Step{{Kind: AwaitBytes, N: 1}, write("a\n"), {Kind: AwaitLine}, write("b\n"), {Kind: AwaitLine}},
			stdout: "!got a\ngot b\n", stderr: "err a\nerr b\n", exit: Exit{Code: 4},
			awaited: []Awaited{{Data: []byte("!"), End: Got}, {Data: []byte("got a\n"), End: Got}, {Data: []byte("got b\n"), End: Got}},
		},
		{
			name: "a wait ends at EOF with what came before: the function returned",
			f: func(_ []string, _ io.Reader, stdout, _ io.Writer) int {
				io.WriteString(stdout, "par")
				return 3
			},
			steps:  []Step{{Kind: AwaitLine}, {Kind: AwaitLine}},
			stdout: "par", exit: Exit{Code: 3},
			awaited: []Awaited{{Data: []byte("par"), End: EOF}, {Data: []byte{}, End: EOF}},
		},
		{
			name: "a silent function: one full wait, then quick ones; its arguments are given",
			f: func(args []string, stdin io.Reader, stdout, _ io.Writer) int {
				io.ReadAll(stdin)
				io.WriteString(stdout, strings.Join(args, "+")+"\n")
				return 0
			},
			steps:  []Step{{Kind: AwaitLine}, {Kind: AwaitLine}},
			stdout: "x+y\n", exit: Exit{Code: 0},
			awaited: []Awaited{{Data: []byte{}, End: Timeout}, {Data: []byte{}, End: Timeout}},
		},
		{
			name: "a function that never returns is marked hung",
			f: func(_ []string, _ io.Reader, _, _ io.Writer) int {
				select {}
			},
			exit: Exit{Hung: true},
		},
		{
			name: "a panic ends the function with status 2, told on stderr",
			f: func(_ []string, _ io.Reader, stdout, _ io.Writer) int {
				io.WriteString(stdout, "!")
				panic("boom")
			},
			steps:  []Step{{Kind: AwaitBytes, N: 1}, {Kind: AwaitLine}},
			stdout: "!", stderr: "panic: boom\n", exit: Exit{Code: 2},
			awaited: []Awaited{{Data: []byte("!"), End: Got}, {Data: []byte{}, End: EOF}},
		},
		{
			name: "close gives EOF; writes after it are dropped",
			f: func(_ []string, stdin io.Reader, stdout, _ io.Writer) int {
				io.Copy(stdout, stdin)
				return 5
			},
			steps:  []Step{write("one\n"), {Kind: Close}, write("two\n")},
			stdout: "one\n", exit: Exit{Code: 5},
		},
		{
			name: "a write to a function that does not read gives up",
			f: func(_ []string, _ io.Reader, _, _ io.Writer) int {
				time.Sleep(time.Second)
				return 0
			},
			steps:   []Step{write(strings.Repeat("x", 1<<20))},
			exit:    Exit{Hung: true},
			blocked: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, err := RunFunc(tc.f, []string{"x", "y"}, tc.steps, quick)
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, res, tc.stdout, tc.stderr, tc.exit, tc.awaited, tc.blocked)
		})
	}
	if _, err := RunFunc(echoFunc, nil, []Step{{Kind: Signal, Signal: syscall.SIGTERM}}, quick); err == nil {
		t.Error("RunFunc took a script with a signal")
	}
}
