package record

import (
	"os/exec"
	"testing"
)

// BenchmarkStartTrue measures how fast this machine starts and reaps a trivial process
// (/bin/true through os/exec): the physical limit of any fuzzing that runs a program per
// input. It reports processes per second.
func BenchmarkStartTrue(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "procs/s")
}

// BenchmarkRunTrue is the same through Run: pipes, a process group, limits, capture and
// the group kill, with an empty script.
func BenchmarkRunTrue(b *testing.B) {
	for b.Loop() {
		if _, err := Run("/bin/true", nil, nil, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "procs/s")
}
