package scriptcmds

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"gauntlet/harness/box/hygiene"
	"gauntlet/harness/box/sandbox"
)

// findMarked finds the processes whose environment holds the marker as a whole entry,
// first or after another, and not one whose variable only ends with the marker's; of those
// started since the mark it is given (every one, with no mark).
func TestFindMarked(t *testing.T) {
	marker := MarkerVar + "=" + "0123456789abcdef"
	early := exec.Command("sleep", "30")
	early.Env = []string{marker}
	if err := early.Start(); err != nil {
		t.Fatal(err)
	}
	defer early.Wait()
	defer early.Process.Kill()
	mark := hygiene.MarkPids()
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
	pids[early.Process.Pid] = "early"
	for _, tc := range []struct {
		mark hygiene.PidMark
		want []string
	}{{mark, []string{"first", "middle"}}, {hygiene.PidMark{}, []string{"early", "first", "middle"}}} {
		var found []string
		for _, p := range findMarked([]byte(marker+"\x00"), tc.mark) {
			if name, ok := pids[p.pid]; ok {
				found = append(found, name)
				if p.comm != "sleep" {
					t.Errorf("%s: command %q, want sleep", name, p.comm)
				}
			}
		}
		slices.Sort(found)
		if !slices.Equal(found, tc.want) {
			t.Errorf("found %v, want %v", found, tc.want)
		}
	}
}

// BenchmarkFindMarked is one search of every process of the machine, as noprocs made at
// the end of nearly every case before it had the case's pid mark (it now reads only the
// processes started since the case began).
func BenchmarkFindMarked(b *testing.B) {
	marker := []byte(MarkerVar + "=0123456789abcdef\x00")
	for b.Loop() {
		findMarked(marker, hygiene.PidMark{})
	}
}

// A process noprocs kills that the harness adopted (an orphan without a run's token, as the
// grandchild a mock player's spawn fault leaves) is reaped, not left a zombie of the grader
// for the rest of its life (issue 60: 17 zombie sleeps in a cohort's grader).
func TestNoProcsReapsWhatItAdopted(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	// run first: the harness is then the subreaper its orphans come back to (sandbox).
	// The script goes on once the orphan is sleep (not env or setsid still on their way
	// to it): noprocs then finds it by its marker as it finds any leftover.
	res := runScript(t, "run true\nexec sh -c 'env -u "+sandbox.TokenEnv+" setsid sleep 30 >/dev/null 2>&1 </dev/null & echo $! > "+pidFile+"; until [ \"$(cat /proc/$!/comm)\" = sleep ]; do :; done'\nnoprocs -allow sleep\n")
	if !res.Passed {
		t.Fatalf("the script failed:\n%s", res.Log)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if p, err := hygiene.ReadProc(pid); err == nil && p.PPid == os.Getpid() {
		t.Errorf("pid %d (%s), killed by noprocs, is still the test's child in state %c", pid, p.Comm, p.State)
		syscall.Wait4(pid, nil, 0, nil)
	}
}
