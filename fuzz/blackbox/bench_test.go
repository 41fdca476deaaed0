package blackbox

import (
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"

	"gauntlet/harness/buildtest"
)

// BenchmarkPlayerCampaign is the fuzzer's rate: a campaign of 100 player cases against the
// reference 2310A built as a program of its own (cmd/2310A, as a player under test is one
// program), boxed when the machine allows it, as the CLI runs it, at the CLI's default -j
// (twice the CPUs) and its GCPercent, with the reference in process where it can (as a
// process, for cases with a signal, it is this test binary under the player's name). It
// reports the campaign's cases per second; compare with metatest's BenchmarkProcessFloor,
// the machine's start-and-reap rate, and BenchmarkGoProcessFloor, the least any program
// written in Go costs. Run on demand:
// go test -run XXX -bench PlayerCampaign ./fuzz/blackbox
func BenchmarkPlayerCampaign(b *testing.B) {
	ref := refDir(b)
	subject := filepath.Join(buildtest.Programs(b, "gauntlet/cmd/2310A"), "2310A")
	g, ok := Lookup("dealer2310")
	if !ok {
		b.Fatal("no game dealer2310")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(GCPercent))
	var runs int
	var secs float64
	for b.Loop() {
		sum, err := Run(Options{Game: g, Role: RolePlayer, RefDir: ref, InProcess: inProcess,
			Subjects: []Subject{{Path: subject, Ref: "2310A"}},
			Seed:     1, Runs: 100, Jobs: 2 * runtime.NumCPU()})
		if err != nil {
			b.Fatal(err)
		}
		if len(sum.Findings) != 0 {
			b.Fatalf("the reference against itself: %d findings", len(sum.Findings))
		}
		runs += sum.Runs
		secs += sum.Elapsed.Seconds()
	}
	b.ReportMetric(float64(runs)/secs, "runs/s")
}
