package scriptcmds

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"gauntlet/harness/box/cbuild"
	"gauntlet/harness/box/sandbox"
	"gauntlet/harness/grading/suite"
	"gauntlet/harness/judges/mockhub"
	"gauntlet/harness/runtime/tcp"
	"gauntlet/internal/buildtest"
)

// TestMain makes this test binary also the two small TCP programs the network commands'
// scripts run, and the mock hub (a judge, for the records) (testscript puts them in the scripts' PATH).
func TestMain(m *testing.M) {
	buildtest.WaitingTests() // most of these tests wait on sleeping programs
	testscript.Main(m, map[string]func(){
		"tcpserve": func() { os.Exit(tcpServe(os.Args[1:])) },
		"tcpget":   func() { os.Exit(tcpGet(os.Args[1:])) },
		"mockhub":  func() { os.Exit(mockhub.Main(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// tcpServe is `tcpserve PORT N`: it listens on 127.0.0.1:PORT and answers N connections
// with "hello K" (K counting down), then exits 0.
func tcpServe(args []string) int {
	if len(args) != 2 {
		return 2
	}
	n, _ := strconv.Atoi(args[1])
	port, err := tcp.ParsePort(args[0])
	if err != nil {
		return 2
	}
	ln, err := tcp.Listen("127.0.0.1", port)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for ; n > 0; n-- {
		c, err := ln.Accept(time.Time{})
		if err != nil {
			return 1
		}
		fmt.Fprintf(c, "hello %d\n", n)
		c.Close()
	}
	return 0
}

// tcpGet is `tcpget PORT`: it prints what 127.0.0.1:PORT says, or exits 1 when it cannot
// connect.
func tcpGet(args []string) int {
	if len(args) != 1 {
		return 2
	}
	port, err := tcp.ParsePort(args[0])
	if err != nil {
		return 2
	}
	c, err := tcp.Dial("127.0.0.1", port, 5*time.Second)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	io.Copy(os.Stdout, c)
	return 0
}

// A background run goes on while the script runs other commands; await makes its output
// the script's and checks its status.
func TestBackgroundRunIsAwaited(t *testing.T) {
	t.Parallel()
	r := runScript(t, `run sh -c 'sleep 0.3; echo late' &slow&
run sh -c 'echo now'
stdout '^now$'
await slow
stdout '^late$'
! stdout now
run sh -c 'echo a' &
run sh -c 'sleep 0.1; echo b' &
await
stdout '^a\nb$'
`)
	if !r.Passed {
		t.Fatalf("script failed:\n%s", r.Log)
	}
}

// await makes run's checks, and fails on a name it does not know.
func TestAwaitFails(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, script, why string }{
		{"wrong status", "run -status 0 sh -c 'exit 3' &b&\nawait b\n", "want exit 0, got 3"},
		{"deadline", "run -timeout 200ms sleep 30 &b&\nawait b\n", "did not finish within 200ms"},
		{"unknown name", "run sh -c 'exit 0' &b&\nawait c\n", "no background run named c (running: b)"},
		{"a name twice", "run sleep 1 &b&\nrun sleep 1 &b&\n", "a background run named b is already running"},
		{"usage", "await a b\n", "usage: await [NAME]"},
		{"noprocs finds a run still in the background", "run sleep 30 &b&\nnoprocs\n", "noprocs: still running"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runScript(t, tc.script)
			if r.Passed || !strings.Contains(r.Log, tc.why) {
				t.Fatalf("want a failure mentioning %q:\n%s", tc.why, r.Log)
			}
		})
	}
}

// A background run nobody awaited is stopped when the script ends, and the script does
// not wait for its deadline.
func TestUnawaitedRunIsStopped(t *testing.T) {
	t.Parallel()
	// The run may last an hour: a script that waited for it (or for its deadline) would
	// not end before the test's backstop.
	var r suite.Result
	buildtest.Returns(t, "the script waits for the background run", func() {
		r = runScript(t, "run -timeout 1h sleep 3600.25 &b&\n")
	})
	if !r.Passed {
		t.Fatalf("script failed:\n%s", r.Log)
	}
	if left := processesWithArg("3600.25"); len(left) > 0 {
		t.Errorf("the background run outlived the script: pids %v", left)
	}
}

// processesWithArg lists the pids of processes one of whose arguments is arg.
func processesWithArg(arg string) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		for _, a := range strings.Split(string(b), "\x00") {
			if a == arg {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// networkScript is a server in the background on a free port and a client after it.
const networkScript = `freeport PORT
run tcpserve $PORT 1 &srv&
waitport $PORT
run tcpget $PORT
stdout '^hello 1$'
await srv
`

// A server started in the background on a free port is reached by a client run after it.
func TestServerInTheBackground(t *testing.T) {
	t.Parallel()
	if r := runScript(t, networkScript); !r.Passed {
		t.Fatalf("script failed:\n%s", r.Log)
	}
}

// In a graded case every run has a box of its own, yet the background server and the
// client meet on the case's shared loopback.
func TestBoxedServerInTheBackground(t *testing.T) {
	t.Parallel()
	if r := runBoxed(t, networkScript); !r.Passed {
		t.Fatalf("script failed:\n%s", r.Log)
	}
}

// Graded by a grader that is not root, the background server and its clients meet on the
// case's own network all the same (sandbox's netjoin.go), and nothing else reaches it: a
// client of another case does not. Before 2026-11-28 such a case was a harness error
// ("grade it as root").
func TestRootlessServerInTheBackground(t *testing.T) {
	if buildtest.AsUnprivileged(t, "^TestRootlessServerInTheBackground$") {
		return
	}
	if _, err := cbuild.Compiler(); err != nil {
		buildtest.NeedBox(t, err) // (TestRootlessNetworkWithoutACompiler)
	}
	if r := runBoxed(t, networkScript); !r.Passed {
		t.Fatalf("script failed:\n%s", r.Log)
	}
}

// Graded rootless where the case's network cannot be made (here: no C compiler for its
// helper), a case that meets over the loopback is a harness error that says why, never
// the subject's failure; a case that does not still passes.
func TestRootlessNetworkWithoutACompiler(t *testing.T) {
	if buildtest.AsUnprivilegedWith(t, []string{"CC=/nonexistent/cc"}, "^TestRootlessNetworkWithoutACompiler$") {
		return
	}
	if !sandbox.Rootless() || os.Getenv("CC") != "/nonexistent/cc" {
		buildtest.ByRerun(t, "a root test run reruns it as an unprivileged user without a C compiler")
	}
	if r := runBoxed(t, "run sh -c 'echo alone'\nstdout '^alone$'\n"); !r.Passed {
		t.Errorf("a case without the network failed:\n%s", r.Log)
	}
	r := runBoxed(t, networkScript)
	if r.Passed || !strings.Contains(r.Log, "freeport: harness error: ") || !strings.Contains(r.Log, "grade it as root") ||
		!strings.Contains(r.Log, "/nonexistent/cc") {
		t.Fatalf("want a harness error naming the missing compiler:\n%s", r.Log)
	}
}

func TestWaitPortFails(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, script, why string }{
		{"nothing listens", "freeport PORT\nwaitport -timeout 200ms $PORT\n", "nothing listens on 127.0.0.1:"},
		{"the server ended", "freeport PORT\nrun -status any sh -c 'exit 1' &srv&\nwaitport -timeout 20s $PORT\n", "every run in the background has ended (srv)"},
		{"not a port", "waitport x\n", `"x" is not a port`},
		{"freeport usage", "freeport\n", "usage: freeport NAME"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runScript(t, tc.script)
			if r.Passed || !strings.Contains(r.Log, tc.why) {
				t.Fatalf("want a failure mentioning %q:\n%s", tc.why, r.Log)
			}
		})
	}
}

// help prints the usage of one command or of all, and a wrong call says the usage.
func TestHelp(t *testing.T) {
	r := runScript(t, "help waitport\nstdout '^  waitport \\[-timeout D\\] PORT\\n      waits until'\nhelp\nstdout '^  transcript '\n")
	if !r.Passed {
		t.Fatalf("script failed:\n%s", r.Log)
	}
	r = runScript(t, "cmpprefix stdout\n")
	if r.Passed || !strings.Contains(r.Log, "usage: cmpprefix stdout|stderr|FILE WANT") {
		t.Fatalf("a wrong call does not say the usage:\n%s", r.Log)
	}
}

// docs/mocks.md's table of commands gives each command's usage as the commands do.
func TestDocsListEveryCommand(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/mocks.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z]+)( [^`]*)?` \\|").FindAllStringSubmatch(string(doc), -1) {
		rows[m[1]] = strings.ReplaceAll(strings.TrimPrefix(m[2], " "), `\|`, "|")
	}
	for _, c := range commands() {
		got, ok := rows[c.name]
		switch {
		case !ok:
			t.Errorf("docs/mocks.md's table has no row for %s", c.name)
		case got != c.args:
			t.Errorf("docs/mocks.md gives %s's usage as\n\t%s\nthe command says\n\t%s", c.name, got, c.args)
		}
	}
}
