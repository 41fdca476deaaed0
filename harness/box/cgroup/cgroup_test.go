package cgroup

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"gauntlet/internal/buildtest"
)

// A group counts what its processes do together: a shell that joins it and starts more
// processes than the total gets refused forks, which Events shows; Remove kills what is
// left and removes the group.
func TestGroupTotals(t *testing.T) {
	buildtest.NeedBox(t, Problem())
	checkProcessTotal(t, "gauntlet-test-"+strconv.Itoa(os.Getpid()))
}

// checkProcessTotal checks, on a group name of its own, that forks beyond the group's
// process total are refused, that Events counts them, and that Remove kills what is left
// and removes the group.
func checkProcessTotal(t *testing.T, name string) {
	// The shell joins the group itself, then tries to start ten sleeps at once. It may
	// itself fail ("Cannot fork"): what counts is what the group saw.
	g, _ := runInNewGroup(t, name, Limits{Memory: 64 << 20, Processes: 4}, "for i in 1 2 3 4 5 6 7 8 9 10; do sleep 5 & done 2>/dev/null\nexit 0\n")
	defer g.Remove()
	if e := g.Events(); e.PidsMax == 0 {
		t.Errorf("ten processes under a total of four: events %+v, want refused forks counted", e)
	}
	if err := g.Remove(); err != nil {
		t.Errorf("Remove: %v", err)
	}
	for _, d := range g.dirs() {
		if exists(d) {
			t.Errorf("%s is still there", d)
		}
	}
}

// runInNewGroup makes a group name with the limits lim and runs a shell that joins it,
// then runs then (shell code). It returns the group, which the caller removes, and how
// the shell ended.
func runInNewGroup(t *testing.T, name string, lim Limits, then string) (*Group, error) {
	t.Helper()
	g, err := New(name, lim)
	if err != nil {
		t.Fatal(err)
	}
	script := "for f in \"$@\"; do echo $$ > \"$f\"; done\n" + then
	return g, exec.Command("/bin/sh", append([]string{"-c", script, "sh"}, g.ProcFiles()...)...).Run()
}

// The groups of a grader that is gone are removed by the next one, with the groups below
// them (a v2 grader's parent group holds its case groups); the groups of a live one (this
// process's) stay. Until 2026-11-28 every grade left its case groups behind.
func TestRemoveStale(t *testing.T) {
	buildtest.NeedBox(t, Problem())
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	// A group as the gone process's New would have named it, with one below it.
	staleName := ownedPrefix + strconv.Itoa(gone.Process.Pid) + "-stale-test"
	var stale []string
	for _, root := range current().roots() {
		d := filepath.Join(root, staleName)
		for _, dir := range []string{d, filepath.Join(d, staleName)} {
			if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
				t.Fatal(err)
			}
		}
		stale = append(stale, d)
	}
	t.Cleanup(func() {
		for _, d := range stale {
			current().removeTree(d)
		}
	})
	live, err := New("stale-test-live", Limits{Memory: 64 << 20, Processes: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Remove()
	if n := RemoveStale(); n == 0 {
		t.Error("RemoveStale removed nothing")
	}
	for _, d := range stale {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("the gone grader's group %s is still there", d)
		}
	}
	for _, d := range live.dirs() {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("this process's own group %s was removed: %v", d, err)
		}
	}
}
