package grade

import (
	"syscall"
	"testing"
	"time"
	"testing/fstest"
)

// benchCase grades one trivial case (a player that answers one line) again and again:
// the bare cost of a case run, with or without the box of a graded submission.
func benchCase(b *testing.B, boxed bool) {
	cases, err := LoadCases(fstest.MapFS{"toy/c.txtar": {Data: []byte(header("player/basics") + "run $PLAYER\nstdout '^\\^echo $'\n")}}, "toy", toy.ProgramVars())
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
	before := cpuTime()
	for b.Loop() {
		if outs := Run(toy, cases, subj, opt); len(outs) != 1 || outs[0].Verdict != Pass {
			b.Fatalf("%+v", outs)
		}
	}
	// CPU of the grader and of every process the cases started, per case run.
	b.ReportMetric(float64((cpuTime()-before).Microseconds())/1000/float64(b.N), "cpu-ms/op")
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
