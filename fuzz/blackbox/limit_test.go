package blackbox

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"gauntlet/fuzz/record"
	"gauntlet/harness/runtime/limitkill"
	"gauntlet/internal/buildtest"
)

// A subject a limit ended is a LIMIT, with its own rule, not a CRASH breaking the
// reference's exit row (before 2026-11-28: CRASH, "killed by SIGXCPU", the rule of the
// exit the reference made); a shell's 152 at the CPU limit likewise, not WRONG-EXIT.
func TestCompareLimit(t *testing.T) {
	ref := &record.Result{Exit: record.Exit{Code: 0}}
	for _, sub := range []*record.Result{
		{Exit: record.Exit{Signal: syscall.SIGXCPU}, CPU: 10 * time.Second, Limit: limitkill.CPU},
		{Exit: record.Exit{Code: 152}, CPU: 10 * time.Second, Limit: limitkill.CPU},
	} {
		sig, diff := Compare(ref, sub)
		if !diff || sig.Kind != KindLimit || !strings.Contains(sig.Subject, "the CPU time limit") {
			t.Errorf("%v: %+v, want a LIMIT naming the CPU time limit", sub.Exit, sig)
		}
		if r := ruleOf(nil, RolePlayer, sig, ref.Exit); r.ID != "player/limit" || !strings.HasPrefix(r.Words, "no rule of the game") {
			t.Errorf("rule %+v", r)
		}
	}
	// A crash is still a crash.
	if sig, _ := Compare(ref, &record.Result{Exit: record.Exit{Signal: syscall.SIGSEGV}}); sig.Kind != KindCrash {
		t.Errorf("SIGSEGV: %s, want CRASH", sig.Kind)
	}
}

// The recording runner says when a limit ended the program: a shell loop past a soft CPU
// limit of 1 s (set by the shell itself, below the runner's 10 s) dies of SIGXCPU, the
// CPU limit, with the CPU time it used. (How a shell's 152 or a SIGKILL at the limit is
// read: limitkill's TestOf.)
func TestRecordSaysTheLimit(t *testing.T) {
	buildtest.Long(t) // a second of CPU
	t.Parallel()
	res, err := record.Run("sh", []string{"-c", "ulimit -S -t 1; while :; do :; done"}, nil, record.Options{StepTimeout: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if res.Exit.Signal != syscall.SIGXCPU || res.Limit != limitkill.CPU || res.CPU < 500*time.Millisecond {
		t.Errorf("%v, limit %q, CPU %v; want SIGXCPU, the CPU limit", res.Exit, res.Limit, res.CPU)
	}
}

// A TIMEOUT is kept without a run again only when its subject used the step timeout in CPU
// time; any other difference, or a TIMEOUT with less CPU (it waited, or the machine kept
// it from the CPU), is run again alone.
func TestConfirmedInCPU(t *testing.T) {
	step := time.Second
	for _, tc := range []struct {
		sig  Signature
		want bool
	}{
		{Signature{Kind: KindTimeout, CPU: 1500 * time.Millisecond}, true},
		{Signature{Kind: KindTimeout, CPU: step}, true},
		{Signature{Kind: KindTimeout, CPU: 300 * time.Millisecond}, false},
		{Signature{Kind: KindWrongExit, CPU: 5 * time.Second}, false},
		{Signature{Kind: KindLimit, CPU: 5 * time.Second}, false},
	} {
		got := confirmedInCPU(tc.sig, step)
		if (got != "") != tc.want || tc.want && !strings.HasPrefix(got, "in CPU time (") {
			t.Errorf("%s with %v of CPU: %q, want confirmed: %v", tc.sig.Kind, tc.sig.CPU, got, tc.want)
		}
	}
}

// A subject that hangs (sleeps) only while another copy of it runs, as a program kept
// from the CPU by the load of the campaign's own cases would, times out beside the other
// cases and not alone: its TIMEOUTs use no CPU, so each is run again alone, passes, and
// nothing is kept. (TestConfirmationRunsAlone does the same for a wrong exit status.)
func TestTimeoutUnderLoadIsNotKept(t *testing.T) {
	buildtest.Long(t) // a campaign of a few seconds
	ref := refDir(t)
	subject := loadedSubject(t, ref, func(player string) string {
		return "if [ \"$n\" -gt 1 ]; then rm -f \"$d/$$\"; exec sleep 60; fi\n'" + player + "' \"$@\"\ns=$?\nrm -f \"$d/$$\"\nexit $s\n"
	})
	sum, err := Run(Options{
		Game: game(t, "dealer2310"), Vars: vars(game(t, "dealer2310")), Role: RolePlayer, RefDir: ref, InProcess: inProcess,
		Subjects: []Subject{{Path: subject, Ref: "2310A"}},
		Seed:     1, Runs: 40, Jobs: 2, Out: t.TempDir(), Kinds: []string{"malformed"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Unconfirmed == 0 {
		t.Fatalf("no difference under load in %d runs: the test did not load the subject", sum.Runs)
	}
	for _, fd := range sum.Findings {
		t.Errorf("kept: %s [%s], confirmed %s", fd.Sig, fd.Rule.ID, fd.Confirmed)
	}
}
