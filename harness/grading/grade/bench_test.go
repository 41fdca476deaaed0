package grade

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"gauntlet/harness/box/execfile"
)

// benchCase grades a trivial case (a player that answers one line) b.N times over, in one
// grade of b.N cases at -j 1: the cost of a case run in a grade, with or without the box of
// a graded submission. A grade's own costs (the tmpfs of its cases' folders, the box's
// probe) are shared by its cases, as in a real grade.
func benchCase(b *testing.B, boxed bool) {
	files := fstest.MapFS{}
	for i := range b.N {
		files[fmt.Sprintf("toy/c%06d.txtar", i)] = &fstest.MapFile{Data: []byte(header("player/basics") + "run $PLAYER\nstdout '^\\^echo $'\n")}
	}
	cases, err := LoadCases(files, "toy", toy.ProgramVars())
	if err != nil {
		b.Fatal(err)
	}
	var subj Subject
	var opt Options
	if boxed {
		subj, opt = boxedSetup(b, refPlayer)
	} else {
		subj, opt = setup(b, refPlayer)
	}
	opt.Jobs = 1
	b.ResetTimer()
	before := cpuTime()
	outs := Run(toy, cases, subj, opt)
	// CPU of the grader and of every process the cases started, per case run.
	b.ReportMetric(float64((cpuTime()-before).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	b.StopTimer()
	if len(outs) != b.N {
		b.Fatalf("%d outcomes for %d cases", len(outs), b.N)
	}
	for _, o := range outs {
		if o.Verdict != Pass {
			b.Fatalf("%+v", o)
		}
	}
}

// cpuTime is the CPU this process and its reaped children used so far.
func cpuTime() time.Duration {
	var self, kids syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	sum := func(r syscall.Rusage) time.Duration {
		return time.Duration(r.Utime.Nano() + r.Stime.Nano())
	}
	return sum(self) + sum(kids)
}

func BenchmarkTrivialCase(b *testing.B)      { benchCase(b, false) }
func BenchmarkTrivialCaseBoxed(b *testing.B) { benchCase(b, true) }

// BenchmarkTrivialCaseFloor starts and reaps the trivial case's player by itself, with the
// empty input the case gives it: the bare cost of the process a trivial case starts, which
// its CPU is compared with.
func BenchmarkTrivialCaseFloor(b *testing.B) {
	player := filepath.Join(b.TempDir(), "toyplayer")
	if err := execfile.Write(player, []byte(refPlayer), 0o755); err != nil {
		b.Fatal(err)
	}
	before := cpuTime()
	for b.Loop() {
		if out, err := exec.Command(player).Output(); err != nil || string(out) != "^echo \n" {
			b.Fatalf("%q, %v", out, err)
		}
	}
	b.ReportMetric(float64((cpuTime()-before).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// A case is known to wait from its commands: a mock player that sleeps or hangs on
// purpose, a signal sent after a delay; anything else is busy.
func TestCaseWaits(t *testing.T) {
	tests := []struct {
		script string
		waits  bool
	}{
		{"mkplayer slow -as EAIT -fault 'reply 2 sleep 2500ms'\nrun $HUB slow\n", true},
		{"mkplayer stayer -as EAIT -fault 'end hang'\nrun $HUB stayer\n", true},
		{"run -signal HUP -after 1s -status any $HUB\n", true},
		{"run -signal INT -after-stderr 'Player A' $HUB\n", false},
		{"mkplayer bad -as EAIT -fault 'reply 1 send \"x\"'\nrun $HUB bad\n# sleep in a comment\n", false},
		{"run $PLAYER\n-- notes --\n-fault 'a sleep 1s'\n", false},
		// A pause in the conversation a mock hub plays; not in a file it does not play.
		{"run -status 0 mockhub -timeout 5s conv $PLAYER\n-- conv --\nsend \"a\"\nsleep 300ms\n", true},
		{"run -status 0 mockhub conv $PLAYER\n-- conv --\nsend \"a\"\n-- other --\nsleep 300ms\n", false},
	}
	for _, tc := range tests {
		c, err := ParseCase("toy", "c", []byte(header("hub/basics")+tc.script), toy.ProgramVars())
		if err != nil {
			t.Fatal(err)
		}
		if c.Waits != tc.waits {
			t.Errorf("%q: Waits %v, want %v", tc.script, c.Waits, tc.waits)
		}
	}
}

// A busy case never queues behind cases that wait: with more waiting cases than their
// slots, the busy one still starts at once and ends first.
func TestBusyCasesDoNotQueueBehindWaitingOnes(t *testing.T) {
	t.Parallel()
	files := fstest.MapFS{"toy/busy.txtar": {Data: []byte(header("player/basics") + "run $PLAYER\nstdout '^\\^echo $'\n")}}
	waiting := waitingSlots(1) + 1
	for i := range waiting {
		files[fmt.Sprintf("toy/wait%d.txtar", i)] = &fstest.MapFile{Data: []byte(header("player/basics") + "run -signal INT -after 500ms -status any sleep 5\n")}
	}
	cases, err := LoadCases(files, "toy", toy.ProgramVars())
	if err != nil {
		t.Fatal(err)
	}
	subj, opt := setup(t, refPlayer)
	opt.Jobs = 1
	var mu sync.Mutex
	var order []string
	opt.OnOutcome = func(o Outcome) {
		mu.Lock()
		order = append(order, o.Case.ID)
		mu.Unlock()
	}
	outs := Run(toy, cases, subj, opt)
	if len(outs) != waiting+1 {
		t.Fatalf("%d outcomes, want %d", len(outs), waiting+1)
	}
	if order[0] != "busy" {
		t.Errorf("outcomes in the order %v: the busy case waited for a waiting case's slot", order)
	}
}
