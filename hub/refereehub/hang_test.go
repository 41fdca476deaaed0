package refereehub

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gauntlet/internal/buildtest"
)

// finish runs the runner with args and returns its stdout, stderr and exit status; a
// runner still running after two minutes fails the test (a hang: the limits here are
// far shorter, so a match that ends never comes near it; no time is asserted).
func finish(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	type res struct {
		out, errs string
		status    int
	}
	done := make(chan res, 1)
	go func() {
		var out, errb bytes.Buffer
		status := Run(args, &out, &errb)
		done <- res{out.String(), errb.String(), status}
	}()
	select {
	case r := <-done:
		return r.out, r.errs, r.status
	case <-time.After(2 * time.Minute):
		t.Fatal("the match hung: the runner did not end")
	}
	return "", "", 0
}

// A write never waits for a program: lines for a player that is stopped (between its
// turns) or does not read wait in a bounded buffer, and the match ends as its rules say.
// Before 2026-11-28 the runner wrote synchronously and each of these matches hung forever.
func TestBlockedWritesDoNotHang(t *testing.T) {
	t.Parallel() // its subtests wait on their programs: the package goes on meanwhile
	const big = `x=$(head -c 70000 /dev/zero | tr '\0' x)` + "\n"
	tests := []struct {
		name              string
		referee, p0, p1   string
		wantOut, wantErrs string
	}{
		{
			// 140 KB of write_lines for player 1 while it is stopped: more than its pipe holds.
			name: "write_lines block to a stopped player",
			referee: "echo 'feature write_lines'; echo feature_end; read n; read a; read b; echo write_end\n" +
				"read m; echo valid\n" + big + "echo \"1 $x\"; echo \"1 $x\"; echo write_end\n" +
				"read m; echo 'valid end'; echo write_end; echo '2 3'; while read l; do :; done\n",
			p0:      "read l; echo a; while read l; do :; done\n",
			p1:      "while IFS= read -r l; do case $l in x*) ;; *) echo b;; esac; done\n",
			wantOut: "2 3 end\n",
		},
		{
			// A 100 KB move, which the runner gives the other player as its last move; that
			// player never reads its input.
			name:    "100 KB move to a player that does not read",
			referee: "echo feature_end; read n; read a; read b; read m; echo valid; read m; echo 'valid end'; echo '1 1'; while read l; do :; done\n",
			p0:      "read l; head -c 100000 /dev/zero | tr '\\0' x; echo; while read l; do :; done\n",
			p1:      "echo b; exec sleep 600\n",
			wantOut: "1 1 end\n",
		},
		{
			// More than the buffer holds (4.9 MB) for a stopped player: it cannot take its
			// input, and loses at its turn.
			name: "more than the buffer holds",
			referee: "echo 'feature write_lines'; echo feature_end; read n; read a; read b; echo write_end\n" +
				"read m; echo valid\n" + big + "i=0; while [ $i -lt 70 ]; do echo \"1 $x\"; i=$((i+1)); done; echo write_end\n" +
				"while read l; do :; done\n",
			p0:       "read l; echo a; while read l; do :; done\n",
			p1:       "while IFS= read -r l; do case $l in x*) ;; *) echo b;; esac; done\n",
			wantOut:  "1 0 lost 1\n",
			wantErrs: "ERROR player 1 did not take its input",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, errs, status := finish(t, "-t", "20s", "-T", "20s", script(t, tc.referee), script(t, tc.p0), script(t, tc.p1))
			if status != 0 || out != tc.wantOut || !strings.Contains(errs, tc.wantErrs) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 0, %q, %q", status, out, errs, tc.wantOut, tc.wantErrs)
			}
		})
	}
}

// markerProcs returns the pids of the processes whose command line is "sleep marker".
func markerProcs(marker string) (pids []int) {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		data, err := os.ReadFile(p)
		if err != nil || string(data) != "sleep\x00"+marker+"\x00" {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		pids = append(pids, pid)
	}
	return pids
}

// SIGTERM and SIGINT end the runner at once, whatever it waits for, with every program it
// started gone (a stopped player too) and no result line. Before 2026-11-28 the runner died
// of either signal and left the referee and both players behind, one of them stopped
// forever.
func TestSignalsEndTheRunner(t *testing.T) {
	t.Parallel() // runners of their own, in processes of their own
	runner := filepath.Join(buildtest.Programs(t, "gauntlet/cmd/referee-runner"), "referee-runner")
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			marker := strconv.Itoa(200000 + 2*os.Getpid() + int(sig)%2)
			sleeper := script(t, "exec sleep "+marker+"\n")
			referee := script(t, "echo feature_end; exec sleep "+marker+"\n")
			cmd := exec.Command(runner, "-t", "1h", "-T", "1h", referee, sleeper, sleeper)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			pgid := buildtest.StartInGroup(t, cmd)
			t.Cleanup(func() {
				for _, pid := range markerProcs(marker) {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			// The three programs run and the idle player is stopped (it may be stopped
			// before its script execs sleep: the group is what counts).
			buildtest.Await(t, "three programs, one stopped", func() bool {
				pids, stopped := buildtest.GroupMembers(pgid)
				return len(pids) == 4 && stopped == 1 // the runner and its three
			})
			cmd.Process.Signal(sig)
			if !buildtest.Ends(cmd) {
				t.Fatalf("the runner did not end after %v", sig)
			}
			if got := cmd.ProcessState.ExitCode(); got != 128+int(sig) {
				t.Errorf("exit %d (%v), want %d; stderr %q", got, cmd.ProcessState, 128+int(sig), errb.String())
			}
			if out.Len() != 0 || !strings.Contains(errb.String(), fmt.Sprintf("ERROR stopped by %v", sig)) {
				t.Errorf("stdout %q, stderr %q", out.String(), errb.String())
			}
			// The runner reaps every program before it exits: none may be left, in its
			// process group or anywhere.
			if left, _ := buildtest.GroupMembers(pgid); len(left) > 0 {
				t.Errorf("processes %v of the runner's group outlived it", left)
			}
			if left := markerProcs(marker); len(left) > 0 {
				t.Errorf("programs %v of the match outlived the runner", left)
			}
		})
	}
}
