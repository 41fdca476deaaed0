package blackbox

import (
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"

	"gauntlet/fuzz/pipegame"
	"gauntlet/harness/box/execfile"
	"gauntlet/internal/buildtest"
)

// BenchmarkPlayerCampaign is the fuzzer's rate: a campaign of 100 player cases against the
// reference 2310A built as a program of its own (cmd/2310A, as a player under test is one
// program), boxed when the machine allows it, as the CLI runs it, at the CLI's default -j
// (twice the CPUs) and its GCPercent, with the reference in process where it can (as a
// process, for cases with a signal, it is this test binary under the player's name). It
// reports the campaign's cases per second; compare with acceptance's BenchmarkProcessFloor,
// the machine's start-and-reap rate, and BenchmarkGoProcessFloor, the least any program
// written in Go costs. Run on demand:
// go test -run XXX -bench PlayerCampaign ./fuzz/blackbox
func BenchmarkPlayerCampaign(b *testing.B) {
	ref := refDir(b)
	subject := filepath.Join(buildtest.Programs(b, "gauntlet/cmd/2310A"), "2310A")
	g, ok := pipegame.Lookup("dealer2310")
	if !ok {
		b.Fatal("no game dealer2310")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(GCPercent))
	var runs int
	var secs float64
	for b.Loop() {
		sum, err := Run(Options{Game: g, Vars: vars(g), Role: RolePlayer, RefDir: ref, InProcess: inProcess,
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

// BenchmarkOneBugMutantCampaign is issue 40's one-bug campaign: the 2310A mutant that
// exits 0 where the reference exits 6 (TestExitCodeMutantIsOneFinding's), 500 runs at the
// CLI's -j, seed 1, every mutation but signals. It reports the findings kept, the rules
// broken and the unconfirmed differences: 1 finding of 1 rule on a quiet machine; under
// load, a campaign whose confirmations did not filter the load kept 22 rules and 69
// regression files (2026-11-28). Run on demand, quiet or with busy loops beside it:
// go test -run XXX -bench OneBugMutant -benchtime 1x ./fuzz/blackbox
func BenchmarkOneBugMutantCampaign(b *testing.B) {
	ref := refDir(b)
	mutant := filepath.Join(b.TempDir(), "2310A")
	wrapper := "#!/bin/sh\n'" + filepath.Join(ref, "2310A") + "' \"$@\"\ns=$?\n[ $s = 6 ] && exit 0\nexit $s\n"
	if err := execfile.Write(mutant, []byte(wrapper), 0o755); err != nil {
		b.Fatal(err)
	}
	g, ok := pipegame.Lookup("dealer2310")
	if !ok {
		b.Fatal("no game dealer2310")
	}
	var kinds []string
	for _, k := range PlayerMutations {
		if k != "signal" {
			kinds = append(kinds, k)
		}
	}
	defer debug.SetGCPercent(debug.SetGCPercent(GCPercent))
	var findings, rules, unconfirmed int
	for b.Loop() {
		sum, err := Run(Options{Game: g, Vars: vars(g), Role: RolePlayer, RefDir: ref, InProcess: inProcess,
			Subjects: []Subject{{Path: mutant, Ref: "2310A"}},
			Seed:     1, Runs: 500, Jobs: 2 * runtime.NumCPU(), Out: b.TempDir(), Kinds: kinds})
		if err != nil {
			b.Fatal(err)
		}
		findings += len(sum.Findings)
		rules += len(sum.Groups)
		unconfirmed += sum.Unconfirmed
	}
	b.ReportMetric(float64(findings)/float64(b.N), "findings/op")
	b.ReportMetric(float64(rules)/float64(b.N), "rules/op")
	b.ReportMetric(float64(unconfirmed)/float64(b.N), "unconfirmed/op")
}
