package hygiene

import (
	"os"
	"os/exec"
	"slices"
	"testing"
)

// A scan since a mark reads the processes started after it (and the pids asked for), not
// the older ones; once the kernel's cycle of pids may have gone round, it reads them all.
func TestScanSince(t *testing.T) {
	m := MarkPids()
	if !m.ok {
		t.Skip("no ns_last_pid on this kernel: ScanSince reads every process")
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	pidsOf := func(procs []Proc, err error) []int {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var pids []int
		for _, p := range procs {
			pids = append(pids, p.Pid)
		}
		return pids
	}
	child, self := cmd.Process.Pid, os.Getpid()
	got := pidsOf(ScanSince(&m, nil, nil))
	if !slices.Contains(got, child) || slices.Contains(got, self) || slices.Contains(got, 1) {
		t.Errorf("since the mark: %v, want the child %d and neither this process %d nor init", got, child, self)
	}
	got = pidsOf(ScanSince(nil, func(pid int) bool { return pid == self }, nil))
	if !slices.Equal(got, []int{self}) {
		t.Errorf("no mark, this pid asked for: %v, want [%d]", got, self)
	}
	got = pidsOf(ScanSince(nil, nil, func(uid uint32) bool { return uid == uint32(os.Geteuid()) }))
	if !slices.Contains(got, child) || !slices.Contains(got, self) {
		t.Errorf("no mark, this user's: %v, want the child %d and this process %d", got, child, self)
	}
	// A mark from a whole cycle of forks ago: any pid may be new.
	max, err := readIntFile("/proc/sys/kernel/pid_max")
	if err != nil {
		t.Fatal(err)
	}
	old := m
	old.forks -= uint64(max) / 2
	got = pidsOf(ScanSince(&old, nil, nil))
	if !slices.Contains(got, 1) || !slices.Contains(got, self) {
		t.Errorf("since a mark a cycle ago: %v, want every process", got)
	}
}

// The pids allocated between two marks: between their last pids, or round the end of the
// cycle when the later one is lower; none when the cycle may have gone round.
func TestNewSince(t *testing.T) {
	max, err := readIntFile("/proc/sys/kernel/pid_max")
	if err != nil {
		t.Fatal(err)
	}
	mark := func(last int, forks uint64) PidMark { return PidMark{last: last, forks: forks, tasks: 100, ok: true} }
	in := func(isNew func(int) bool, pids ...int) []int {
		var out []int
		for _, p := range pids {
			if isNew(p) {
				out = append(out, p)
			}
		}
		return out
	}
	if got := in(mark(1000, 50).newSince(mark(1200, 250)), 999, 1000, 1001, 1200, 1201); !slices.Equal(got, []int{1001, 1200}) {
		t.Errorf("plain: %v, want [1001 1200]", got)
	}
	if got := in(mark(max-10, 50).newSince(mark(400, 200)), max-11, max-10, max-9, 300, 400, 401); !slices.Equal(got, []int{max - 9, 300, 400}) {
		t.Errorf("round the end: %v, want [%d 300 400]", got, max-9)
	}
	for _, tc := range []struct {
		name     string
		from, to PidMark
	}{
		{"a cycle of forks", mark(1000, 50), mark(1200, 50+uint64(max)/2)},
		{"an unread mark", PidMark{}, mark(1200, 250)},
		{"marks out of order", mark(1000, 250), mark(1200, 50)},
	} {
		if tc.from.newSince(tc.to) != nil {
			t.Errorf("%s: a range of new pids, want none (any pid may be new)", tc.name)
		}
	}
}
