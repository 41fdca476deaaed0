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

	"gauntlet/harness/box/sandbox"
	"gauntlet/harness/judges/outcome"
	"gauntlet/harness/runtime/tcp"
)

// network returns the case's network namespace: a graded case's runs all meet on its
// loopback (a server left running in the background and the clients run after it), and no
// other case's or the machine's. As root it goes with the case's user, and is lent again
// with it (sandbox.UserPool.Net); a rootless grade makes one per case (rootlessNetwork).
func (b *caseBox) network() *sandbox.Net { return b.net }

// rootlessNetwork gives a case graded by a grader that is not root a network of its own
// (sandbox's netjoin.go: a holder and a C helper, built once per process), closed at the
// case's end. Where that cannot be (no C compiler), the case's runs each have a network
// of their own, and freeport and waitport say why the case cannot be graded here.
func (b *caseBox) rootlessNetwork(env *testscript.Env) {
	n, err := sandbox.NewNet()
	if err != nil {
		b.netErr = err
		return
	}
	b.net = n
	env.Defer(func() { n.Close() })
}

// caseNetwork is the network where the case's programs meet over the loopback: the case's
// (graded), or nil for the harness's own (an ungraded script). The error says why a
// rootless grade has none.
func caseNetwork(ts *testscript.TestScript) (*sandbox.Net, error) {
	box, _ := ts.Value(caseBoxKey{}).(*caseBox)
	switch {
	case box == nil || box.noBox:
		return nil, nil
	case box.net != nil:
		return box.net, nil
	case box.lease == nil:
		// Rootless without a network of the case's own: each run has one of its own.
		// The case cannot be graded here; the subject is not to blame.
		return nil, fmt.Errorf("%w; %v", errRootlessNetwork, box.netErr)
	}
	return nil, nil
}

// errRootlessNetwork is why a case whose runs meet over the loopback cannot be graded by a
// grader that is not root when it cannot give the case a network (sandbox.NewNet).
var errRootlessNetwork = errors.New("this case's programs meet over the loopback, which this rootless grade cannot give them (each run has a network namespace of its own): grade it as root")

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
	n, err := caseNetwork(ts)
	port := 0
	switch {
	case err != nil:
	case n != nil:
		port, err = n.FreePort()
	default:
		port, err = tcp.FreePort("127.0.0.1")
	}
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
	n, err := caseNetwork(ts)
	if err != nil {
		harnessFail(ts, "waitport: harness error: %v", err)
	}
	start := time.Now()
	for {
		var listening bool
		var err error
		if n != nil {
			listening, err = n.Listens(port)
		} else {
			listening, err = listensOn(port)
		}
		if err != nil {
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

// listensOn reports whether a TCP socket of the harness's network namespace (an ungraded
// script's programs') listens on port, on IPv4 or IPv6, from /proc's tables: lines "sl local rem st ..." with
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

// runTimeout is run's default deadline: the grader's (Settings.Timeout), or DefaultTimeout.
func runTimeout(ts *testscript.TestScript) time.Duration { return settings(ts).timeout() }
