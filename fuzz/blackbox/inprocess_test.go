package blackbox

import (
	"bytes"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"gauntlet/fuzz/record"
	"gauntlet/programs/standalone"
)

// inProcess is Options.InProcess, as the CLI gives it.
func inProcess(name string) (record.Func, bool) { return standalone.Player(name) }

// The in-process reference must record what the reference as a process records, on every
// kind of case the player fuzzer makes (those with a signal play the process anyway):
// a difference would make findings the subject is not to blame for, or hide real ones.
// Each reference plays the campaign's own cases, from a fixed seed, both ways.
func TestInProcessReferenceMatchesTheProcess(t *testing.T) {
	t.Parallel() // its subtests run programs of their own: the package goes on meanwhile
	ref := refDir(t)
	cases := 40
	if testing.Short() {
		cases = 12
	}
	for _, tc := range []struct{ game, player string }{
		{"stlucia", "EAIT"}, {"stlucia", "MABS"}, {"dealer2310", "2310A"}, {"dealer2310", "2310B"},
	} {
		t.Run(tc.game+"/"+tc.player, func(t *testing.T) {
			t.Parallel()
			g := game(t, tc.game)
			fn, ok := inProcess(tc.player)
			if !ok {
				t.Fatalf("no in-process form of %s", tc.player)
			}
			f := &fuzzer{opt: Options{Game: g, Vars: vars(g), Role: RolePlayer, RefDir: ref, Seed: 11,
				Subjects: []Subject{{Path: filepath.Join(ref, tc.player), Ref: tc.player}}},
				g: g, kinds: PlayerMutations, tmp: t.TempDir(),
				rec: record.Options{StepTimeout: defaultStep, ExitTimeout: defaultStep, SignalSettle: AfterSignal}}
			played := 0
			for run := 0; played < cases; run++ {
				c, _, err := f.newCase(run)
				if err != nil {
					t.Fatal(err)
				}
				pc := c.(*PlayerCase)
				if pc.signals() {
					continue
				}
				played++
				script := pc.script(g.Hello())
				inp, err := record.RunFunc(fn, pc.Args, script, f.rec)
				if err != nil {
					t.Fatal(err)
				}
				proc, err := f.runOne(c, filepath.Join(ref, tc.player))
				if err != nil {
					t.Fatal(err)
				}
				if d := resultDiff(inp, proc); d != "" {
					t.Errorf("case %d (%s): in process and as a process differ: %s", run, pc.Describe(), d)
				}
			}
		})
	}
}

// defaultStep is the campaign's default step timeout.
const defaultStep = 2e9

// resultDiff says how two records differ, ignoring their durations ("" when they agree).
func resultDiff(a, b *record.Result) string {
	switch {
	case !bytes.Equal(a.Stdout, b.Stdout) || a.StdoutCut != b.StdoutCut:
		return fmt.Sprintf("stdout %q against %q", a.Stdout, b.Stdout)
	case !bytes.Equal(a.Stderr, b.Stderr) || a.StderrCut != b.StderrCut:
		return fmt.Sprintf("stderr %q against %q", a.Stderr, b.Stderr)
	case a.Exit != b.Exit:
		return fmt.Sprintf("%v against %v", a.Exit, b.Exit)
	case a.Blocked != b.Blocked:
		return fmt.Sprintf("blocked %v against %v", a.Blocked, b.Blocked)
	case !reflect.DeepEqual(norm(a.Awaited), norm(b.Awaited)):
		return fmt.Sprintf("waits %q against %q", norm(a.Awaited), norm(b.Awaited))
	}
	return ""
}

// norm gives empty waits one form (nil and empty data are the same wait).
func norm(as []record.Awaited) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.End.String()+":"+string(a.Data))
	}
	return out
}
