package scriptcmds

import (
	"os/exec"
	"slices"
	"testing"
)

// findMarked finds the processes whose environment holds the marker as a whole entry,
// first or after another, and not one whose variable only ends with the marker's.
func TestFindMarked(t *testing.T) {
	marker := MarkerVar + "=" + "0123456789abcdef"
	envs := map[string][]string{
		"first":  {marker, "A=1"},
		"middle": {"A=1", marker, "B=2"},
		"suffix": {"X" + marker, "A=1"},
		"longer": {marker + "0", "A=1"},
	}
	pids := map[int]string{}
	for name, env := range envs {
		cmd := exec.Command("sleep", "30")
		cmd.Env = env
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Wait()
		defer cmd.Process.Kill()
		pids[cmd.Process.Pid] = name
	}
	var found []string
	for _, p := range findMarked([]byte(marker + "\x00")) {
		if name, ok := pids[p.pid]; ok {
			found = append(found, name)
			if p.comm != "sleep" {
				t.Errorf("%s: command %q, want sleep", name, p.comm)
			}
		}
	}
	slices.Sort(found)
	if want := []string{"first", "middle"}; !slices.Equal(found, want) {
		t.Errorf("found %v, want %v", found, want)
	}
}

// BenchmarkFindMarked is one search of every process of the machine, as noprocs makes at
// the end of nearly every case.
func BenchmarkFindMarked(b *testing.B) {
	marker := []byte(MarkerVar + "=0123456789abcdef\x00")
	for b.Loop() {
		findMarked(marker)
	}
}
