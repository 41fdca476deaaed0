package scriptcmds

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"gauntlet/harness/outcome"
	"gauntlet/harness/sandbox"
	"gauntlet/harness/tcp"
)

// network returns the case's network namespace: a graded case's runs all meet on its
// loopback (a server left running in the background and the clients run after it), and no
// other case's or the machine's. It goes with the case's user, and is lent again with it
// (sandbox.UserPool.Net).
func (b *caseBox) network() *sandbox.Net { return b.net }

// inCaseNetwork runs f where the case's programs meet over the loopback: in the case's
// network namespace when the case is graded (boxed), else in the harness's own.
func inCaseNetwork(ts *testscript.TestScript, f func() error) error {
	box, _ := ts.Value(caseBoxKey{}).(*caseBox)
	if box != nil && box.net != nil {
		return box.network().Do(f)
	}
	if box != nil && box.lease == nil && !box.noBox {
		// Rootless: each run has a network namespace of its own, and none can be shared
		// without root. The case cannot be graded here; the subject is not to blame.
		return errRootlessNetwork
	}
	return f()
}

// errRootlessNetwork is why a case whose runs meet over the loopback cannot be graded by a
// grader that is not root.
var errRootlessNetwork = errors.New("this case's programs meet over the loopback, which a rootless grade cannot give them (each run has a network namespace of its own): grade it as root")

// FreePort sets the script variable NAME to a TCP port of 127.0.0.1 that nothing listens
// on, where the case's programs meet (see Run), for a server the case starts with it.
// Another program may take the port before the server does: on this machine's loopback
// outside grading, not in a graded case's own network.
//
//	freeport PORT
//	run -env PORT server $PORT &srv&
func FreePort(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 || args[0] == "" {
		harnessFail(ts, "%s", usage("freeport"))
	}
	port := 0
	err := inCaseNetwork(ts, func() (err error) {
		port, err = tcp.FreePort("127.0.0.1")
		return err
	})
	if err != nil {
		harnessFail(ts, "freeport: harness error: %v", err)
	}
	ts.Setenv(args[0], strconv.Itoa(port))
}

// WaitPort waits until a program listens on the TCP port PORT of 127.0.0.1, where the
// case's programs meet: for a server started in the background, before its clients run.
// It looks at the kernel's table of sockets and never connects, so a server that plays
// with its first client only still has it. It fails after the deadline (default: run's),
// or at once when every program the script runs in the background has ended.
//
//	run -env PORT server $PORT &srv&
//	waitport $PORT
func WaitPort(ts *testscript.TestScript, neg bool, args []string) {
	fs := flag.NewFlagSet("waitport", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	timeout := fs.Duration("timeout", runTimeout(ts), "deadline")
	if err := fs.Parse(args); err != nil || neg || fs.NArg() != 1 {
		harnessFail(ts, "%s", usage("waitport"))
	}
	port, err := strconv.Atoi(fs.Arg(0))
	if err != nil || port < 1 || port > 65535 {
		harnessFail(ts, "waitport: %q is not a port\n%s", fs.Arg(0), usage("waitport"))
	}
	start := time.Now()
	for {
		listening := false
		if err := inCaseNetwork(ts, func() error {
			var err error
			listening, err = listensOn(port)
			return err
		}); err != nil {
			harnessFail(ts, "waitport: harness error: %v", err)
		}
		if listening {
			ts.Logf("waitport: %d is listened on after %v", port, time.Since(start).Round(time.Millisecond))
			return
		}
		if time.Since(start) >= *timeout {
			fail(ts, outcome.Record{Kind: outcome.Silent, Want: fmt.Sprintf("a program listening on port %d", port)}, "waitport: nothing listens on 127.0.0.1:%d after %v", port, *timeout)
		}
		if backgroundRuns(ts).allEnded() {
			// Nothing the script left running can still come to listen.
			fail(ts, outcome.Record{Kind: outcome.Early, Want: fmt.Sprintf("a program listening on port %d", port)}, "waitport: nothing listens on 127.0.0.1:%d, and every run in the background has ended (%s)", port, backgroundRuns(ts).names())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// listensOn reports whether a TCP socket of the calling thread's network namespace
// listens on port, on IPv4 or IPv6, from /proc's tables: lines "sl local rem st ..." with
// local "HEXADDR:HEXPORT" and st 0A for LISTEN.
func listensOn(port int) (bool, error) {
	want := fmt.Sprintf(":%04X", port)
	for _, table := range []string{"/proc/thread-self/net/tcp", "/proc/thread-self/net/tcp6"} {
		f, err := os.Open(table)
		if os.IsNotExist(err) && strings.HasSuffix(table, "6") {
			continue // no IPv6 here
		}
		if err != nil {
			return false, err
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) > 3 && strings.HasSuffix(fields[1], want) && fields[3] == "0A" {
				f.Close()
				return true, nil
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return false, err
		}
	}
	return false, nil
}

// runTimeout is run's default deadline: $GAUNTLET_TIMEOUT, or DefaultTimeout.
func runTimeout(ts *testscript.TestScript) time.Duration {
	if d, err := time.ParseDuration(ts.Getenv(TimeoutVar)); err == nil && d > 0 {
		return d
	}
	return DefaultTimeout
}
