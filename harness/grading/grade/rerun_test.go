package grade

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"gauntlet/internal/buildtest"
)

// twoPlayerCases are two cases of the toy player's category, both of which the reference
// player passes.
func twoPlayerCases(t *testing.T) []Case {
	t.Helper()
	cases, err := LoadCases(fstest.MapFS{
		"toy/one.txtar": {Data: []byte(header("player/basics") + "run $PLAYER\nstdout '^\\^echo $'\n")},
		"toy/two.txtar": {Data: []byte(header("player/basics") + "run $PLAYER\nstdout '^\\^echo $'\n")},
	}, "toy", toy.ProgramVars())
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// A harness failure that persists when its case runs again alone leaves the grade
// incomplete: no mark (never one over the cases that were judged, as until 2026-12-07,
// when a HARNESS-ERROR was left out of the marks), the category's unjudged run counted.
// One that does not persist takes the verdict of its run again, and the grade is whole.
func TestHarnessErrorMakesTheGradeIncomplete(t *testing.T) {
	subj, opt := setup(t, refPlayer)
	cases := twoPlayerCases(t)
	for _, persist := range []bool{true, false} {
		t.Run(fmt.Sprintf("persists=%v", persist), func(t *testing.T) {
			reruns := 0
			defer SetHarnessFault(func(id string, _ Pairing, rerun bool) error {
				if rerun {
					reruns++
				}
				if id == "two" && (persist || !rerun) {
					return errors.New("injected")
				}
				return nil
			})()
			outs := Run(toy, cases, subj, opt)
			rep := NewReport(toy, "s", time.Now(), nil, outs)
			if reruns != 1 {
				t.Errorf("%d case runs were run again, want the harness error's alone", reruns)
			}
			cat := rep.Categories[1]
			if !persist {
				if rep.Incomplete || rep.Marks == nil || *rep.Marks != 2 || cat.Passed != 2 || cat.Unjudged != 0 {
					t.Errorf("a harness error gone when run again: incomplete %v, marks %s, %+v; want the whole grade, 2/2", rep.Incomplete, rep.TotalText(), cat)
				}
				for _, o := range outs {
					if o.Case.ID == "two" && (o.Verdict != Pass || !strings.Contains(o.Alone, "HARNESS-ERROR when run beside other cases")) {
						t.Errorf("two: %s, alone %q; want PASS saying it was a HARNESS-ERROR first", o.Verdict, o.Alone)
					}
				}
				return
			}
			if !rep.Incomplete || rep.Marks != nil || cat.Cases != 2 || cat.Passed != 1 || cat.Unjudged != 1 {
				t.Errorf("incomplete %v, marks %s, %+v; want an incomplete grade with no mark, 1 of 2 passed and 1 unjudged", rep.Incomplete, rep.TotalText(), cat)
			}
			var sum strings.Builder
			rep.WriteSummary(&sum, false)
			if !strings.Contains(sum.String(), "INCOMPLETE") || strings.Contains(sum.String(), "1.00/2") {
				t.Errorf("the summary does not say the grade is incomplete, or gives a mark:\n%s", sum.String())
			}
			var js strings.Builder
			rep.WriteJSON(&js)
			if !strings.Contains(js.String(), `"marks": null`) || !strings.Contains(js.String(), `"incomplete": true`) {
				t.Errorf("the JSON report carries a mark:\n%s", js.String())
			}
			var gs strings.Builder
			rep.WriteGradescope(&gs)
			if !strings.Contains(gs.String(), `"score": 0,`) || !strings.Contains(gs.String(), "INCOMPLETE") {
				t.Errorf("the Gradescope results carry a score:\n%s", gs.String())
			}
		})
	}
}

// A submission's case run again (here a HYGIENE finding, confirmed alone) never stops
// another submission's grading: the player of submission A, run again, waits until
// submission B has been graded whole. Until 2026-12-07 a run again alone held a lock that
// stopped every other case of the process, a cohort's other submissions included: B's case
// then waited for A's run again, which waited for B, until A's deadline killed it. Decided
// by the order of events (A's run again still running when B's grade returned), not by
// how long anything took; A's deadline is only the backstop.
func TestRerunDoesNotStopOtherSubmissions(t *testing.T) {
	buildtest.Long(t)
	shared := t.TempDir()
	first, again, release := filepath.Join(shared, "first"), filepath.Join(shared, "again"), filepath.Join(shared, "release")
	// First run: leaves a process running (HYGIENE). Run again: says its pid, waits for the
	// release, and passes.
	player := fmt.Sprintf("#!/bin/sh\nif [ ! -e %[1]s ]; then : > %[1]s; sleep 30 & printf '^echo \\n'; exit 0; fi\n"+
		"echo $$ > %[2]s.tmp && mv %[2]s.tmp %[2]s\nwhile [ ! -e %[3]s ]; do sleep 0.05; done\nprintf '^echo \\n'\n", first, again, release)
	subjA, optA := setup(t, player)
	optA.Timeout = 60 * time.Second
	subjB, optB := setup(t, refPlayer)
	cases, err := LoadCases(fstest.MapFS{
		"toy/one.txtar": {Data: []byte(header("player/basics") + "run $PLAYER\nstdout '^\\^echo $'\n")},
	}, "toy", toy.ProgramVars())
	if err != nil {
		t.Fatal(err)
	}
	aDone := make(chan []Outcome, 1)
	go func() { aDone <- Run(toy, cases, subjA, optA) }()
	// A's run again has started once it says its pid.
	var pid int
	for pid == 0 {
		select {
		case outs := <-aDone:
			t.Fatalf("A was graded without its case run again: %+v", outs)
		case <-time.After(20 * time.Millisecond):
		}
		if b, err := os.ReadFile(again); err == nil {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
	}
	outsB := Run(toy, cases, subjB, optB)
	stillRunning := syscall.Kill(pid, 0) == nil
	os.WriteFile(release, nil, 0o644)
	outsA := <-aDone
	if !stillRunning {
		t.Errorf("B's grade returned only after A's case run again had ended: it waited for it")
	}
	if len(outsB) != 1 || outsB[0].Verdict != Pass {
		t.Errorf("B: %+v, want its case passed", outsB)
	}
	if len(outsA) != 1 || outsA[0].Verdict != Pass || !strings.Contains(outsA[0].Alone, "HYGIENE when run beside other cases") {
		t.Errorf("A: %+v, want PASS alone after a HYGIENE beside the others", outsA)
	}
}
