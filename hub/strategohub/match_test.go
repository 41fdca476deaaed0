package strategohub_test

import (
	"strings"
	"testing"

	"gauntlet/hub/strategohub"
	"gauntlet/internal/buildtest"
	"gauntlet/judges/strategojudges"
)

// The tournament's match (judges/strategojudges, which the manager's binary must not
// link) reads the manager's result line and its stderr: these tests play it through the
// manager, with the manager's tests' scripted AIs (export_test.go).

// A tournament game's line carries the reason of an ILLEGAL end, and a BAD_SETUP of both
// sides is an illegal end of each.
func TestMatchNamesTheReason(t *testing.T) {
	quitter := "while read line; do case \"$line\" in QUIT*) exit 0;; esac; done\n"
	bomb := strategohub.ScriptAI(t, "read q; printf '"+strings.ReplaceAll(strategohub.SetupRows, "\n", "\\n")+"'; read s; i=0; while [ $i -lt 10 ]; do read r; i=$((i+1)); done; echo '3 3 DOWN'; "+quitter)
	r, err := strategojudges.Match(nil, nil, "-T", "5s")(bomb, strategohub.RandomAI(t))
	if err != nil || !strings.HasSuffix(r.Line, ` RED ILLEGAL 1 148 148 (RED ILLEGAL: "3 3 DOWN": bombs and the flag do not move)`) || !r.Illegal[0] || r.Illegal[1] || r.Points != [2]float64{-0.1, 0.2} {
		t.Errorf("%+v, %v", r, err)
	}
	bad := strategohub.ScriptAI(t, "read q; printf 'XXXXXXXXXX\\nXXXXXXXXXX\\nXXXXXXXXXX\\nXXXXXXXXXX\\n'; "+quitter)
	r, err = strategojudges.Match(nil, nil, "-T", "5s")(bad, bad)
	if err != nil || !strings.HasPrefix(r.Line, "neither BOTH BAD_SETUP 0 0 0 (BOTH BAD_SETUP: RED: ") || !r.Illegal[0] || !r.Illegal[1] || r.Points != [2]float64{-0.1, -0.1} {
		t.Errorf("%+v, %v", r, err)
	}
}

// An AI that a limit ended is named so in the account of its ILLEGAL end, on the manager's
// stderr and in a tournament game's line, and counted apart (Result.Limit, the table's
// limit column), where before 2026-11-28 it read as any end of file: killed by SIGXCPU itself, or behind a shell that does not exec it (status 152).
// The AIs set their own soft CPU limit of 1 s; the line timeout is long enough that only
// the limit ends them. Each case burns a second of CPU: under -short, SIGXCPU only (the
// wrapper's 152 is read by the same note, limitkill's tests have every way a limit shows).
func TestLimitKillIsNamed(t *testing.T) {
	t.Parallel()
	start := "read q; printf '" + strings.ReplaceAll(strategohub.SetupRows, "\n", "\\n") + "'; read s; i=0; while [ $i -lt 10 ]; do read r; i=$((i+1)); done; "
	for _, tc := range []struct {
		name, body, want string
		long             bool
	}{
		{"SIGXCPU", start + "ulimit -S -t 1; while :; do :; done\n", "(RED was killed by SIGXCPU at the CPU time limit)", false},
		{"a wrapper's 152", start + "sh -c 'ulimit -S -t 1; while :; do :; done'; exit $?\n", "(RED exited 152, a program it ran ended by the CPU time limit)", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.long {
				buildtest.Long(t)
			}
			r, err := strategojudges.Match(nil, nil, "-T", "5m")(strategohub.ScriptAI(t, tc.body), strategohub.RandomAI(t))
			if want := " RED ILLEGAL 1 148 148 (RED ILLEGAL: end of file " + tc.want + ")"; err != nil || !strings.HasSuffix(r.Line, want) || !r.Illegal[0] || !r.Limit[0] || r.Limit[1] {
				t.Errorf("%+v, %v; want the line to end %q", r, err, want)
			}
		})
	}
}
