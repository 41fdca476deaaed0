package sandbox_test

import (
	"fmt"
	"testing"

	"gauntlet/harness/box/sandbox"
)

// BenchmarkRun measures one whole run of a small well-behaved program: the re-exec with
// limits, the sandbox user, the working directory, capture, the sweeps, the audit and the
// clean-up.
func BenchmarkRun(b *testing.B) {
	cfg := testConfig()
	for b.Loop() {
		cfg.Transcript = nil
		res, err := sandbox.Run(cfg, sandbox.Spec{Path: prog("polite"), Stdin: sandbox.Bytes([]byte("hi\n"))})
		if err != nil || res.Verdict() != sandbox.OK {
			b.Fatalf("%v %v", err, res)
		}
	}
}

// BenchmarkGroup measures a run of a hub-sized group: five programs started together.
func BenchmarkGroup(b *testing.B) {
	cfg := testConfig()
	specs := make([]sandbox.Spec, 5)
	for i := range specs {
		specs[i] = sandbox.Spec{Name: fmt.Sprintf("p%d", i), Path: prog("polite"), Stdin: sandbox.Bytes([]byte("hi\n"))}
	}
	for b.Loop() {
		cfg.Transcript = nil
		g, err := sandbox.Start(cfg, specs...)
		if err != nil {
			b.Fatal(err)
		}
		if res := g.Wait(); res.Verdict() != sandbox.OK {
			b.Fatal(res)
		}
	}
}

// BenchmarkRunBoxed is BenchmarkRun in a box (namespaces, private /tmp, hidepid /proc,
// loopback): the box's cost is the difference.
func BenchmarkRunBoxed(b *testing.B) {
	if err := sandbox.BoxProblem(); err != nil {
		b.Skipf("no box here: %v", err)
	}
	cfg := testConfig()
	cfg.Box = &sandbox.Box{Keep: []string{progDir}}
	for b.Loop() {
		cfg.Transcript = nil
		res, err := sandbox.Run(cfg, sandbox.Spec{Path: prog("polite"), Stdin: sandbox.Bytes([]byte("hi\n"))})
		if err != nil || res.Verdict() != sandbox.OK {
			b.Fatalf("%v %v", err, res)
		}
	}
}
