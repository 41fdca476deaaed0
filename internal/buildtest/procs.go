package buildtest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// GroupMembers returns the pids of the processes in process group pgid, and how many of
// them are stopped (state T): a test that a program leaves none behind when it ends.
func GroupMembers(pgid int) (pids []int, stopped int) {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, s := range stats {
		data, err := os.ReadFile(s)
		i := bytes.LastIndexByte(data, ')')
		if err != nil || i < 0 {
			continue
		}
		f := strings.Fields(string(data[i+1:])) // state, ppid, pgrp, ...
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(s)))
			pids = append(pids, pid)
			if f[0] == "T" {
				stopped++
			}
		}
	}
	return pids, stopped
}

// StartInGroup starts cmd as the leader of a process group of its own (so that a test can
// find what it leaves behind: GroupMembers), and kills the whole group when the test ends.
func StartInGroup(tb testing.TB, cmd *exec.Cmd) (pgid int) {
	tb.Helper()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	pgid = cmd.Process.Pid
	tb.Cleanup(func() { syscall.Kill(-pgid, syscall.SIGKILL) })
	return pgid
}

// Await checks cond every 10 ms until it holds; past the Backstop the test fails, saying
// what it waited for. A wait for a state of other processes, never a verdict by time.
func Await(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	backstop := Backstop(tb)
	for !cond() {
		select {
		case <-backstop:
			tb.Fatalf("waited until the test's backstop for %s", what)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Ends waits for cmd (started) to exit; a program still running after two minutes has hung:
// it is killed, and Ends reports false.
func Ends(cmd *exec.Cmd) bool {
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case <-waited:
		return true
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		<-waited
		return false
	}
}
