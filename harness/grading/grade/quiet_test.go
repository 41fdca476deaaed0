package grade

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"gauntlet/internal/buildtest"
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

// A verdict that depends on wall time is run again alone before it costs marks: a player
// that works past its deadline only while the machine is busy (here: while a marker the
// test removes once the first pass is over exists) passes alone, and its outcome says what
// it did beside the others; one that works past its deadline anyway is "confirmed alone";
// one that waits for input that never comes (asleep at its deadline) is not run again,
// since it would wait as long alone. What decides is what the programs were doing when the
// deadline came, not how long they looked quiet before: one that waits a moment first (as
// a program the loaded machine holds at its start looks quiet), is moved to a quiet slot,
// and then loops is run again too (until 2026-11-28 the move alone made it "went quiet",
// and under load the busy cases here were not run again).
func TestTimeDependentVerdictsAreConfirmedAlone(t *testing.T) {
	buildtest.Long(t)
	dir := t.TempDir()
	busy := dir + "/busy"
	if err := os.WriteFile(busy, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	player := fmt.Sprintf("#!/bin/sh\ncase \"$1\" in\nslow) [ -e %s ] && while :; do :; done; echo done;;\nloop) while :; do :; done;;\nstall) sleep 0.4; while :; do :; done;;\nwait) sleep 30;;\nesac\n", busy)
	subj, opt := setup(t, player)
	opt.Timeout = time.Second
	opt.OnOutcome = func(o Outcome) {
		if o.Case.ID == "slow" {
			os.Remove(busy)
		}
	}
	fs := fstest.MapFS{}
	// The deadlines leave room for a loaded machine's slow starts; "loop" keeps the
	// default, its outcome being the same at any load.
	for name, timeout := range map[string]string{"slow": "-timeout 2s ", "loop": "", "stall": "-timeout 2s ", "wait": "-timeout 2s "} {
		fs["toy/"+name+".txtar"] = &fstest.MapFile{Data: []byte(header("player/basics") + "run " + timeout + "$PLAYER " + name + "\nstdout '^done$'\n")}
	}
	cases, err := LoadCases(fs, "toy", toy.ProgramVars())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Outcome{}
	for _, o := range Run(toy, cases, subj, opt) {
		got[o.Case.ID] = o
	}
	if o := got["slow"]; o.Verdict != Pass || !strings.Contains(o.Alone, "TIMEOUT when run beside other cases") {
		t.Errorf("slow only beside others: %s, alone %q, want PASS saying it timed out beside the others", o.Verdict, o.Alone)
	}
	for _, name := range []string{"loop", "stall"} {
		if o := got[name]; o.Verdict != Timeout || o.Alone != "confirmed alone" {
			t.Errorf("%s: slow anyway: %s, alone %q, want TIMEOUT confirmed alone", name, o.Verdict, o.Alone)
		}
	}
	if o := got["wait"]; o.Verdict != Timeout || o.Alone != "" {
		t.Errorf("waiting for input: %s, alone %q, want TIMEOUT not run again", o.Verdict, o.Alone)
	}
}
