package hygiene

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	// Field layout of proc(5); utime=7, stime=3, num_threads=1, starttime=12345.
	tail := " S 10 20 30 0 -1 4194304 100 0 0 0 7 3 0 0 20 0 1 0 12345 1000 50"
	cases := []struct {
		name string
		in   string
		want Proc
		err  bool
	}{
		{"plain", "42 (sleep)" + tail, Proc{Pid: 42, Comm: "sleep", State: 'S', PPid: 10, Pgid: 20, Sid: 30, CPUTicks: 10, Threads: 1, Start: 12345}, false},
		{"comm with parens and spaces", "43 (a) (b c)" + tail, Proc{Pid: 43, Comm: "a) (b c", State: 'S', PPid: 10, Pgid: 20, Sid: 30, CPUTicks: 10, Threads: 1, Start: 12345}, false},
		{"no parens", "44 sleep S 1 2 3", Proc{}, true},
		{"short", "45 (x) S 1 2 3", Proc{}, true},
		{"bad number", "46 (x) S one 2 3 0 -1 0 0 0 0 0 7 3 0 0 20 0 1 0 12345", Proc{}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseStat([]byte(tc.in))
			if (err != nil) != tc.err {
				t.Fatalf("error %v, want error %v", err, tc.err)
			}
			if got != tc.want {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestScanAndRead(t *testing.T) {
	procs, err := Scan()
	if err != nil {
		t.Fatal(err)
	}
	self := os.Getpid()
	i := slices.IndexFunc(procs, func(p Proc) bool { return p.Pid == self })
	if i < 0 {
		t.Fatal("Scan did not find this process")
	}
	if p := procs[i]; p.PPid != os.Getppid() || int(p.UID) != os.Geteuid() || p.Threads < 1 {
		t.Errorf("self: %+v", p)
	}
	if !Alive(self, procs[i].Start) || Alive(self, procs[i].Start+1) {
		t.Error("Alive does not tell start times apart")
	}
	if _, err := ReadProc(1 << 30); !errors.Is(err, ErrGone) {
		t.Errorf("ReadProc of a missing pid: %v", err)
	}
	if c := Cmdline(self); !strings.Contains(c, "hygiene.test") && !strings.Contains(c, filepath.Base(os.Args[0])) {
		t.Errorf("Cmdline %q", c)
	}
	if v, ok := EnvValue(self, "PATH"); !ok || v != os.Getenv("PATH") {
		t.Errorf("EnvValue PATH = %q, %v", v, ok)
	}
	if _, ok := EnvValue(self, "NO_SUCH_VARIABLE_HERE"); ok {
		t.Error("found a missing variable")
	}
}

// Owners finds the same users as a full scan: this process's, and every one Scan sees
// (but for processes that came or went between the two).
func TestOwners(t *testing.T) {
	owners, err := Owners()
	if err != nil {
		t.Fatal(err)
	}
	if !owners[uint32(os.Geteuid())] {
		t.Errorf("Owners %v lacks this process's user %d", owners, os.Geteuid())
	}
	if os.Geteuid() == 0 {
		// A process of another user (nobody's uid, as root can start it) is seen.
		cmd := exec.Command("sleep", "10")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { cmd.Process.Kill(); cmd.Wait() }()
		if owners, _ = Owners(); !owners[65534] {
			t.Errorf("Owners %v lacks the user 65534 of a process it runs", owners)
		}
	}
	procs, _ := Scan()
	missing := 0
	for _, p := range procs {
		if !owners[p.UID] {
			missing++
		}
	}
	if missing > len(procs)/10 {
		t.Errorf("%d of %d processes' owners missing from %v", missing, len(procs), owners)
	}
}

// ScanWhere reads the processes its filter keeps, each with the owner and pid the filter
// was given, and no other.
func TestScanWhere(t *testing.T) {
	self := os.Getpid()
	var asked []int
	procs, err := ScanWhere(func(pid int, uid uint32) bool {
		asked = append(asked, pid)
		return pid == self && uid == uint32(os.Geteuid())
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(procs) != 1 || procs[0].Pid != self || procs[0].UID != uint32(os.Geteuid()) {
		t.Errorf("ScanWhere kept %+v; want this process alone", procs)
	}
	if len(asked) < 2 {
		t.Errorf("the filter was asked about %v; want every process", asked)
	}
	if all, _ := ScanWhere(nil); len(all) < len(asked)/2 {
		t.Errorf("ScanWhere(nil) read %d processes of %d", len(all), len(asked))
	}
}

func TestOverall(t *testing.T) {
	cases := []struct {
		acts []Activity
		want HangKind
	}{
		{nil, Unknown},
		{[]Activity{ActReading, ActBusy}, BusyLoop},
		{[]Activity{ActReading, ActWriting}, BlockedWrite},
		{[]Activity{ActReading, ActReading}, Deadlock},
		{[]Activity{ActReading, ActPolling, ActWaiting}, Deadlock},
		{[]Activity{ActReading, ActSleeping}, Sleeping},
		{[]Activity{ActBlocked}, Sleeping},
		{[]Activity{ActStopped}, Sleeping},
		{[]Activity{ActUnknown}, Unknown},
	}
	for _, tc := range cases {
		var procs []ProcDiag
		for _, a := range tc.acts {
			procs = append(procs, ProcDiag{Activity: a})
		}
		if got := overall(procs); got != tc.want {
			t.Errorf("overall(%v) = %s, want %s", tc.acts, got, tc.want)
		}
	}
}

func TestClassify(t *testing.T) {
	read := sample{sysNr: -1, sysRead: true}
	for nr, info := range syscalls {
		if info.name == "read" {
			read.sysNr = int64(nr)
		}
	}
	cases := []struct {
		name string
		pd   ProcDiag
		last sample
		want Activity
	}{
		{"cpu progress", ProcDiag{CPU: 2 * time.Millisecond, Wall: 100 * time.Millisecond, State: 'S'}, read, ActBusy},
		{"runnable once", ProcDiag{Running: 1, Samples: 3, Wall: 100 * time.Millisecond, State: 'S'}, read, ActBusy},
		{"blocked reading", ProcDiag{Wall: 100 * time.Millisecond, Samples: 3, State: 'S'}, read, ActReading},
		{"stopped", ProcDiag{State: 'T'}, read, ActStopped},
		{"no syscall file, wchan", ProcDiag{State: 'S', Wall: time.Second}, sample{sysNr: -1, wchan: "pipe_write"}, ActWriting},
		{"nothing known", ProcDiag{State: 'S', Wall: time.Second}, sample{sysNr: -1}, ActUnknown},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pd := tc.pd
			pd.Pid = os.Getpid()
			if got := classify(&pd, tc.last); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestWchanClass(t *testing.T) {
	cases := map[string]sysClass{
		"":                  -1,
		"pipe_read":         sysRead,
		"pipe_write":        sysWrite,
		"do_sys_poll":       sysPoll,
		"do_wait":           sysWait,
		"hrtimer_nanosleep": sysSleep,
		"futex_wait_queue":  sysOther,
		"futex_do_wait":     sysOther,
		"do_wait.isra.0":    sysWait,
	}
	for w, want := range cases {
		if got := wchanClass(w); got != want {
			t.Errorf("wchanClass(%q) = %d, want %d", w, got, want)
		}
	}
}

// TestDiagnoseRealProcesses diagnoses a sleeping process and one blocked reading a pipe
// nobody writes, both from coreutils.
func TestDiagnoseRealProcesses(t *testing.T) {
	sleeper := exec.Command("sleep", "30")
	reader := exec.Command("cat")
	w, err := reader.StdinPipe() // kept open and never written: cat blocks in read
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*exec.Cmd{sleeper, reader} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			c.Process.Kill()
			c.Wait()
		}()
	}
	defer w.Close()
	cases := []struct {
		name    string
		pid     int
		kind    HangKind
		act     Activity
		syscall string
	}{
		{"sleep", sleeper.Process.Pid, Sleeping, ActSleeping, "nanosleep"},
		{"cat", reader.Process.Pid, Deadlock, ActReading, "read"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The process reaches its blocking call when the machine lets it: diagnose until
			// it has (a loaded machine may take a while), then check the last diagnosis.
			var d Diagnosis
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
				d = Diagnose([]int{tc.pid}, DiagOptions{Samples: 2, Interval: 20 * time.Millisecond})
				if d.Kind == tc.kind {
					break
				}
			}
			if d.Kind != tc.kind || len(d.Procs) != 1 || d.Procs[0].Activity != tc.act || !strings.Contains(d.Procs[0].Syscall, tc.syscall) {
				t.Errorf("diagnosis %s, want %s with %s in %s", d, tc.kind, tc.act, tc.syscall)
			}
		})
	}
	if d := Diagnose([]int{1 << 30}, DiagOptions{}); d.Kind != Unknown || len(d.Procs) != 0 {
		t.Errorf("diagnosis of a missing process: %s", d)
	}
}

func TestDirs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("keep.txt", "same")
	write("change.txt", "old")
	write("gone.txt", "x")
	before := SnapshotDir(dir)
	write("change.txt", "newer")
	os.Remove(filepath.Join(dir, "gone.txt"))
	write("sub/new.txt", "n")
	c := DiffDirs(before, SnapshotDir(dir))
	if !slices.Equal(c.Created, []string{"sub", "sub/new.txt"}) || !slices.Equal(c.Changed, []string{"change.txt"}) ||
		!slices.Equal(c.Removed, []string{"gone.txt"}) || c.Cut || c.Empty() {
		t.Errorf("changes %+v", c)
	}
	var r Report
	r.AddFiles(c)
	if r.String() != "file created: sub\nfile created: sub/new.txt\nfile changed: change.txt\nfile removed: gone.txt\n" {
		t.Errorf("report:\n%s", r.String())
	}
	// A directory made unreadable does not stop the removal.
	os.Chmod(filepath.Join(dir, "sub"), 0)
	if err := RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("directory still there: %v", err)
	}
}

func TestReportBound(t *testing.T) {
	var r Report
	for i := range MaxFindings + 5 {
		r.Add(Finding{Kind: LeftRunning, Pid: i, Command: "x"})
	}
	if len(r.Findings) != MaxFindings || r.Omitted != 5 || r.Clean() || !r.Has(LeftRunning) || r.Has(Zombie) {
		t.Errorf("kept %d, omitted %d", len(r.Findings), r.Omitted)
	}
	if !strings.HasSuffix(r.String(), "(5 more findings omitted)\n") {
		t.Errorf("string ends %q", r.String()[len(r.String())-40:])
	}
	var empty Report
	if !empty.Clean() {
		t.Error("empty report not clean")
	}
}

// TestMayBeReaping checks the three states that decide whether a zombie is its parent's
// fault: asleep on something else (not reaping), blocked in wait (reaping), runnable.
func TestMayBeReaping(t *testing.T) {
	start := func(script string) *exec.Cmd {
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
		return cmd
	}
	// waitFor polls the process's main thread until its kernel wait channel contains want.
	waitFor := func(pid int, want string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "wchan"))
			if strings.Contains(string(b), want) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("pid %d never waited in %s (wchan %q)", pid, want, b)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	// exec: the shell becomes sleep, which sleeps in nanosleep and reaps nothing.
	sleeper := start("exec sleep 30")
	waitFor(sleeper.Process.Pid, "nanosleep")
	if MayBeReaping(sleeper.Process.Pid) {
		t.Error("a process asleep in nanosleep counts as reaping")
	}

	// bash's wait blocks in waitpid (dash's sleeps in sigsuspend and is woken by SIGCHLD).
	waiter := start("exec bash -c 'sleep 30 & wait'")
	waitFor(waiter.Process.Pid, "do_wait")
	if !MayBeReaping(waiter.Process.Pid) {
		t.Error("a shell blocked in wait does not count as reaping")
	}

	// A busy loop is runnable whenever it is looked at (running or waiting for a CPU).
	busy := start("while :; do :; done")
	deadline := time.Now().Add(20 * time.Second)
	for !MayBeReaping(busy.Process.Pid) {
		if time.Now().After(deadline) {
			t.Fatal("a busy process never counts as runnable")
		}
		time.Sleep(10 * time.Millisecond)
	}

	if MayBeReaping(1 << 30) {
		t.Error("a process that does not exist counts as reaping")
	}
}

// TestDiagnoseLeakedPipe diagnoses two readers: the first reads a pipe whose only write
// end left is a copy the second inherited (a sibling's leak: no end of file can come), the
// second reads a pipe the test writes to. The hang is a leaked pipe end, not a plain
// deadlock, and the diagnosis names who holds the end; without the leaked copy it is a
// deadlock with no leak named.
func TestDiagnoseLeakedPipe(t *testing.T) {
	for _, leak := range []bool{true, false} {
		r1, w1, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		first := exec.Command("cat")
		first.Stdin = r1
		second := exec.Command("cat")
		if leak {
			second.ExtraFiles = []*os.File{w1} // fd 3 of the second: a write end of the first's stdin
		}
		w2, err := second.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []*exec.Cmd{first, second} {
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() {
				c.Process.Kill()
				c.Wait()
			}()
		}
		r1.Close()
		if !leak {
			defer w1.Close() // the writer: the first waits for a line, as in any deadlock
		} else {
			w1.Close()
		}
		defer w2.Close()
		want := Deadlock
		if leak {
			want = LeakedPipe
		}
		var d Diagnosis
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
			d = Diagnose([]int{first.Process.Pid, second.Process.Pid}, DiagOptions{Samples: 2, Interval: 20 * time.Millisecond})
			if d.Kind == want {
				break
			}
		}
		if d.Kind != want || len(d.Procs) != 2 {
			t.Fatalf("leak %v: diagnosis %s, want %s", leak, d, want)
		}
		got := d.Procs[0].LeakedTo
		if leak && (len(got) != 1 || got[0].Pid != second.Process.Pid || got[0].FD != 3) {
			t.Errorf("the first reader's leaked ends: %+v, want the second's fd 3", got)
		}
		if !leak && len(got) != 0 {
			t.Errorf("ends leaked without a leak: %+v", got)
		}
		if len(d.Procs[1].LeakedTo) != 0 {
			t.Errorf("the second reader's pipe has leaked ends: %+v", d.Procs[1].LeakedTo)
		}
		if leak && !strings.Contains(d.String(), fmt.Sprintf("(its write end is also open in pid %d (cat) as fd 3)", second.Process.Pid)) {
			t.Errorf("the diagnosis does not name the holder: %s", d)
		}
	}
}
