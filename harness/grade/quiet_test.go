package grade

import (
	"fmt"
	"testing"
	"testing/fstest"
	"time"

	"gauntlet/harness/buildtest"
)

// Cases whose programs wait (a submission that never answers) do not hold the CPU slots:
// once every program of a busy case has been quiet a while, the case moves to a slot of
// its own and the next case starts. Six cases at -j 1, each of whose player waits until all
// six have started: they pass only when they all run at once (until 2026-11-28 they ran
// one after another, and the first waited for ever). Each case's wait is bounded, so the
// test fails instead of hanging.
func TestQuietCasesFreeTheirSlots(t *testing.T) {
	buildtest.Long(t)
	shared := t.TempDir()
	const n = 6
	player := fmt.Sprintf("#!/bin/sh\ntouch %[1]s/started.$$\ni=0\nwhile [ $(ls %[1]s | wc -l) -lt %[2]d ] && [ $i -lt 60 ]; do sleep 1; i=$((i+1)); done\n[ $i -lt 60 ] && echo together\n", shared, n)
	subj, opt := setup(t, player)
	opt.Jobs = 1
	opt.Timeout = 90 * time.Second
	fs := fstest.MapFS{}
	for i := range n {
		fs[fmt.Sprintf("toy/wait%d.txtar", i)] = &fstest.MapFile{Data: []byte(header("player/basics") + "run $PLAYER\nstdout '^together$'\n")}
	}
	cases, err := LoadCases(fs, "toy", toy.ProgramVars())
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range Run(toy, cases, subj, opt) {
		if o.Verdict != Pass {
			t.Errorf("%s: %s (%s): the cases did not all run at once", o.Case.ID, o.Verdict, o.Detail)
		}
	}
}
