package refereejudges

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gauntlet/harness/box/execfile"
	"gauntlet/harness/judges/mockhub"
	"gauntlet/harness/judges/outcome"
)

// The tests register the probe as the referee protocol's registration does (programs,
// which imports this package).
func TestMain(m *testing.M) {
	mockhub.RegisterProbe("referee", Parse)
	os.Exit(m.Run())
}

// probe runs the conversation conv against the referee whose shell script is src.
func probe(t *testing.T, conv, src string, step time.Duration) mockhub.Result {
	t.Helper()
	c, err := mockhub.Parse(conv)
	if err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(t.TempDir(), "referee")
	if err := execfile.Write(prog, []byte(src), 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := mockhub.Run(c, prog, mockhub.Options{StepTimeout: step})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// nimReferee is the Nim referee of testdata, written from docs/referee.md alone.
func nimReferee(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile("testdata/nim-referee/referee.sh")
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}

// The referee mutants of issue 43, each a change to the Nim referee's text.
var nimMutants = []struct {
	name, old, new, part string
	also                 []string // parts the probe cannot reach past the bug
}{
	{"scores malformed", `echo "$s0 $s1"`, `echo "$s0,$s1"`, "scores", nil},
	{"no write_end", `end_block() { echo write_end; }`, `end_block() { :; }`, "blocks", nil},
	{"an illegal move accepted the second time", "\t\techo invalid; end_block; continue\n\tfi",
		"\t\tf=\"$TMPDIR/nim-seen-$h0$h1$h2-$2-$3\"\n\t\tif [ -e \"$f\" ]; then left=$3; else : >\"$f\"; echo invalid; end_block; continue; fi\n\tfi",
		"consistency", nil},
	{"other scores for the same game", `echo "$s0 $s1"`,
		`if [ -e "$TMPDIR/nim-ended-$PPID" ]; then echo "$s1 $s0"; else : >"$TMPDIR/nim-ended-$PPID"; echo "$s0 $s1"; fi`, "consistency", nil},
	{"unknown feature", `echo "feature no_last_move"`, `echo "feature no_last_move"; echo "feature telepathy"`, "handshake", nil},
	{"a verdict in capitals", "\techo valid; show", "\techo VALID; show", "verdicts", []string{"scores"}},
	{"talks after the end", "\t\techo \"$s0 $s1\"\n\t\tcontinue", "\t\techo \"$s0 $s1\"\n\t\techo bye\n\t\tcontinue", "ending", nil},
}

// The probe passes every part of the Nim referee, and each mutant fails its own part
// only: the other parts pass, the breach worked around (but the parts a mutant's bug keeps
// the probe from, which fail as not checked). Under -short, each mutant's own part only.
func TestRefereeProbe(t *testing.T) {
	t.Parallel() // its subtests wait on their referees: the package goes on meanwhile
	base := nimReferee(t)
	srcs := map[string]string{"reference": base}
	for _, m := range nimMutants {
		if strings.Count(base, m.old) != 1 {
			t.Fatalf("%s: the text to change is not in the referee once: %q", m.name, m.old)
		}
		srcs[m.name] = strings.Replace(base, m.old, m.new, 1)
	}
	// Each probe runs in parallel with a program of its own, whose $TMPDIR (where the
	// mutants that remember keep their files) is a folder of its own.
	check := func(t *testing.T, src, part string, wantOK bool) {
		t.Parallel()
		src = strings.ReplaceAll(src, "$TMPDIR", t.TempDir())
		// Bounded by its sessions, not by time (default 12 s): a loaded machine ran 137 of
		// the 400 sessions in 12 s, before the same game had ended twice.
		res := probe(t, "referee check="+part+" time=1h\n", src, time.Second)
		if res.OK != wantOK {
			t.Errorf("check=%s: ok %v, want %v:\n%s", part, res.OK, wantOK, res.Report())
		}
		// A referee's breach is a divergence, for the grader (package outcome).
		if !res.OK && res.Record().Kind != outcome.Diverged {
			t.Errorf("check=%s: record %+v, want a divergence", part, res.Record())
		}
	}
	for _, part := range Checks {
		t.Run("reference/"+part, func(t *testing.T) { check(t, srcs["reference"], part, true) })
	}
	for _, m := range nimMutants {
		for _, part := range Checks {
			if testing.Short() && part != m.part {
				continue
			}
			t.Run(m.name+"/"+part, func(t *testing.T) {
				check(t, srcs[m.name], part, part != m.part && !slices.Contains(m.also, part))
			})
		}
	}
}

func TestRefereeProbeSettings(t *testing.T) {
	c, err := mockhub.Parse("referee check=all seed=3 games=4 sessions=9 mutate=1 time=3s\n")
	if err != nil {
		t.Fatal(err)
	}
	want := Spec{Check: "all", Mutate: true, Seed: 3, Games: 4, Sessions: 9, Time: 3 * time.Second}
	if s, ok := c.Probe.Spec.(*Spec); c.Probe.Word != "referee" || !ok || *s != want {
		t.Fatalf("%+v, want %+v", c.Probe, want)
	}
	if f, wantF := c.Format(), "referee check=all games=4 mutate=1 seed=3 sessions=9 time=3s\n"; f != wantF {
		t.Errorf("format %q, want %q", f, wantF)
	}
	if again, err := mockhub.Parse(c.Format()); err != nil || *again.Probe.Spec.(*Spec) != want {
		t.Errorf("round trip: %v %v", again, err)
	}
	for _, bad := range []string{"referee", "referee check=nope", "referee check=scores games=0", "referee check=scores x=1", "referee check=scores mutate=2", "referee check=scores time=0s",
		"referee check=scores\nexpect \"x\"", "referee check=scores\nreferee check=ending", "tcp\nreferee check=scores"} {
		if _, err := mockhub.Parse(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// check=all with mutate=1 (the fuzzer's probe) passes the Nim referee, which refuses the
// mutated moves, and names the part a referee breaks first: here one that stops at an
// empty move (the runner passes a player's empty line on as "0 "), leaving a move
// without a verdict.
func TestRefereeProbeAllMutated(t *testing.T) {
	t.Parallel() // referees of their own
	base := nimReferee(t)
	old := "while IFS= read -r line; do\n"
	if strings.Count(base, old) != 1 {
		t.Fatal("the Nim referee's loop is not where the test expects it")
	}
	plain := base
	for _, r := range [][2]string{{"echo \"feature write_lines\"\n", ""}, {`show() { echo "$turn heaps $h0 $h1 $h2"; end_block; }`, "show() { :; }"},
		{"end_block() { echo write_end; }", "end_block() { :; }"}} {
		if strings.Count(plain, r[0]) != 1 {
			t.Fatalf("%q is not in the Nim referee once", r[0])
		}
		plain = strings.Replace(plain, r[0], r[1], 1)
	}
	for _, tc := range []struct {
		name, src, check, want string
	}{
		{"Nim referee", base, "all", "ok: referee protocol: all checked"},
		{"without write_lines", plain, "all", "ok: referee protocol: all checked"},
		{"without write_lines: no blocks", plain, "blocks", "ok: referee protocol: blocks: nothing to check (the referee has no write_lines)"},
		{"exits on an empty move", strings.Replace(base, old, old+"\tcase \"$line\" in \"$turn \") exit 0;; esac\n", 1), "all",
			"FAIL (referee protocol: verdicts): want valid, invalid or valid end, got EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := probe(t, "referee check="+tc.check+" mutate=1 seed=2 time=1h"+shortSessions()+"\n", tc.src, time.Second)
			if !strings.HasPrefix(res.Report(), tc.want) {
				t.Errorf("report:\n%s\nwant it to start %q", res.Report(), tc.want)
			}
		})
	}
}

// shortSessions bounds a probe's sessions under -short to 40 (the default is 400, seconds
// of a shell referee's work): enough for the mutated moves of these tests (seed 2) to
// reach the empty move the faulty referee stops at, and for a correct referee to pass every
// part; the full suite probes the default number.
func shortSessions() string {
	if testing.Short() {
		return " sessions=40"
	}
	return ""
}

// The probe's time bound counts the referee's CPU time, not wall time: a referee that
// sleeps at each start (as a loaded machine makes any referee wait) is probed for all its
// sessions however long they take. With a wall bound of 100 ms it stopped after two.
func TestRefereeProbeTimeIsCPUTime(t *testing.T) {
	t.Parallel()
	src := strings.Replace(nimReferee(t), "#!/bin/sh\n", "#!/bin/sh\nsleep 0.1\n", 1)
	res := probe(t, "referee check=handshake time=100ms sessions=6 games=1000\n", src, 5*time.Second)
	if !res.OK || !strings.Contains(res.Report(), " 6 sessions,") {
		t.Errorf("want all 6 sessions, ok:\n%s", res.Report())
	}
}
