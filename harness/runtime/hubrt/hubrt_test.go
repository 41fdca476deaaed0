package hubrt

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gauntlet/harness/box/execfile"
	"gauntlet/harness/runtime/child"
	"gauntlet/internal/buildtest"
)

// script writes an executable shell script named name into dir.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := execfile.Write(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func noArgs(int) []string { return nil }

func TestPathLookupArgsAndLines(t *testing.T) {
	dir := t.TempDir()
	script(t, dir, "echoer", `printf '^'; echo "args $#:$1:$2"; read x; printf '%s' "got $x"`)
	t.Setenv("PATH", dir+":"+os.Getenv("PATH"))
	h, err := Start([]string{"echoer"}, func(i int) []string { return []string{"2", "0"} })
	if err != nil {
		t.Fatal(err)
	}
	defer h.Kill()
	if b, err := h.ReadHandshake(0); err != nil || b != '^' {
		t.Fatalf("ReadHandshake = %q, %v", b, err)
	}
	if l, err := h.ReadLine(0); err != nil || l != "args 2:2:0" {
		t.Fatalf("ReadLine = %q, %v", l, err)
	}
	h.Send(0, "YT")
	// The reply has no newline and is followed by EOF: it is still a line.
	if l, err := h.ReadLine(0); err != nil || l != "got YT" {
		t.Fatalf("ReadLine = %q, %v", l, err)
	}
	if _, err := h.ReadLine(0); err != io.EOF {
		t.Fatalf("ReadLine at end = %v, want io.EOF", err)
	}
	if ex := h.WaitUntil(time.Now().Add(5 * time.Second)); ex[0] != (Exit{}) {
		t.Fatalf("exit = %v, want status 0", ex[0])
	}
}

func TestLastLineSurvivesExit(t *testing.T) {
	t.Parallel()
	// The player writes and exits at once; the line must not be lost to the reaper.
	p := script(t, t.TempDir(), "quick", "echo DO3; exit 3\n")
	h, err := Start([]string{p}, noArgs)
	if err != nil {
		t.Fatal(err)
	}
	ex := h.WaitUntil(time.Now().Add(5 * time.Second))
	if l, err := h.ReadLine(0); err != nil || l != "DO3" {
		t.Fatalf("ReadLine after exit = %q, %v", l, err)
	}
	if ex[0] != (Exit{Code: 3}) {
		t.Fatalf("exit = %v, want status 3", ex[0])
	}
}

func TestSendToDeadPlayerIsIgnored(t *testing.T) {
	t.Parallel()
	p := script(t, t.TempDir(), "dead", "exit 0\n")
	h, err := Start([]string{p}, noArgs)
	if err != nil {
		t.Fatal(err)
	}
	h.WaitUntil(time.Now().Add(5 * time.Second))
	for i := 0; i < 10; i++ {
		h.Send(0, "HAP0,1,0,0,0") // would raise SIGPIPE in a program that did not survive it
	}
	if _, err := h.ReadLine(0); err != io.EOF {
		t.Fatalf("ReadLine = %v, want io.EOF", err)
	}
}

func TestWaitUntilKillsStragglers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	slow := script(t, dir, "slow", "exec sleep 30\n")
	fine := script(t, dir, "fine", "exit 2\n")
	h, err := Start([]string{fine, slow}, noArgs)
	if err != nil {
		t.Fatal(err)
	}
	ex := h.WaitUntil(time.Now().Add(200 * time.Millisecond))
	if ex[0] != (Exit{Code: 2}) || ex[1] != (Exit{Signal: syscall.SIGKILL}) {
		t.Fatalf("exits = %v", ex)
	}
	if ex[1].String() != "signal 9" || ex[0].String() != "exit status 2" {
		t.Fatalf("strings = %q, %q", ex[1], ex[0])
	}
	pid := h.players[1].cmd.Process.Pid
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("killed player %d still exists: %v", pid, err)
	}
}

// TestStartFailureKillsStarted: when a program cannot start, those already started are
// killed and reaped before Start returns.
func TestStartFailureKillsStarted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	slow := script(t, dir, "slow", "echo $$ > "+pidFile+".tmp && mv "+pidFile+".tmp "+pidFile+"\nexec sleep 30\n")
	h, err := Start([]string{slow, "/nonexistent/program"}, noArgs)
	if err == nil || h != nil {
		t.Fatalf("Start = %v, %v; want an error", h, err)
	}
	// A live player writes its pid within moments; one killed first never does. Either
	// way, once Start has returned no process of that pid may remain.
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		data, err := os.ReadFile(pidFile)
		if err != nil {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Fatalf("the started player %d still exists after Start failed: %v", pid, err)
		}
		return
	}
}

func TestWatchInterruptsRead(t *testing.T) {
	slow := script(t, t.TempDir(), "slow", "exec sleep 30\n")
	h, err := Start([]string{slow}, noArgs)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Kill()
	h.Watch(syscall.SIGUSR1)
	go func() {
		time.Sleep(100 * time.Millisecond)
		syscall.Kill(os.Getpid(), syscall.SIGUSR1)
	}()
	if _, err := h.ReadLine(0); err != ErrInterrupted {
		t.Fatalf("ReadLine = %v, want ErrInterrupted", err)
	}
	if h.Caught() != syscall.SIGUSR1 {
		t.Fatalf("Caught = %v", h.Caught())
	}
	if _, err := h.ReadHandshake(0); err != ErrInterrupted {
		t.Fatalf("later ReadHandshake = %v, want ErrInterrupted", err)
	}
}

func TestScriptWithoutShebangRunsLikeExecvp(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "noshebang")
	if err := execfile.Write(p, []byte("printf '^'\necho \"$1 $2\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h, err := Start([]string{p}, func(int) []string { return []string{"3", "1"} })
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer h.Kill()
	if b, err := h.ReadHandshake(0); err != nil || b != '^' {
		t.Fatalf("ReadHandshake = %q, %v", b, err)
	}
	if l, err := h.ReadLine(0); err != nil || l != "3 1" {
		t.Fatalf("ReadLine = %q, %v", l, err)
	}
}

// Most of these tests wait on programs that sleep or stay silent: more of them run at once
// than there are cores.
func TestMain(m *testing.M) {
	buildtest.WaitingTests()
	os.Exit(m.Run())
}

// StartWith hands each player's spec to the launch before its start: what the launch sets
// is how the player runs (here its arguments and folder), and a launch that fails stops the
// start, with the players already started killed and reaped.
func TestStartWithLaunch(t *testing.T) {
	dir := t.TempDir()
	p := script(t, dir, "where", `echo "$1 $(pwd)"; read x`)
	var seen []int
	launch := func(i int, s *child.Spec) error {
		seen = append(seen, i)
		if i == 2 {
			return errors.New("no user to lend")
		}
		s.Args, s.Dir = []string{"seat" + strconv.Itoa(i)}, dir
		return nil
	}
	h, err := StartWith([]string{p, p}, noArgs, launch)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if l, err := h.ReadLine(i); err != nil || l != "seat"+strconv.Itoa(i)+" "+dir {
			t.Errorf("player %d: %q, %v", i, l, err)
		}
	}
	h.Kill()
	_, err = StartWith([]string{p, p, p}, noArgs, launch)
	if err == nil || !strings.Contains(err.Error(), "no user to lend") {
		t.Fatalf("a failed launch: %v", err)
	}
	if len(seen) != 5 {
		t.Errorf("launch called for %v", seen)
	}
}

// CPU is a player's CPU time once it is reaped, and -1 while it runs: a player past its own
// soft CPU limit of 1 s dies of SIGXCPU having used about that.
func TestPlayerCPU(t *testing.T) {
	t.Parallel()
	p := script(t, t.TempDir(), "burner", "read go; ulimit -S -t 1; while :; do :; done\n")
	h, err := Start([]string{p}, noArgs)
	if err != nil {
		t.Fatal(err)
	}
	if c := h.CPU(0); c != -1 {
		t.Errorf("CPU of a running player = %v, want -1", c)
	}
	h.Send(0, "go")
	ex := h.WaitUntil(time.Now().Add(10 * time.Minute)) // a backstop: the limit ends it
	if ex[0] != (Exit{Signal: syscall.SIGXCPU}) || h.CPU(0) < 500*time.Millisecond {
		t.Errorf("exit %v, CPU %v; want SIGXCPU after about a second of CPU", ex[0], h.CPU(0))
	}
}
