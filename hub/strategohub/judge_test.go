package strategohub

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"gauntlet/games/judge"
	"gauntlet/games/stratego"
	"gauntlet/harness/box/execfile"
	"gauntlet/internal/buildtest"
	"gauntlet/players/strategoplayers"
)

// relay is a script that runs prog with its arguments between two logs: every line the
// manager sends it goes to FILE.recv (up to QUIT, after which it reads nothing more), every
// line it sends to FILE.sent.
func relay(t *testing.T, file string, prog ...string) string {
	t.Helper()
	body := "#!/bin/sh\n" +
		"while IFS= read -r l; do printf '%s\\n' \"$l\" >>'" + file + ".recv'; printf '%s\\n' \"$l\"; case $l in QUIT*) break;; esac; done | " +
		strings.Join(prog, " ") + " | tee -a '" + file + ".sent'\n"
	if err := execfile.Write(file, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return file
}

func lines(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// The manager is the engine's judge run over processes: on fixed seeds of the reference
// AIs, each AI receives and sends exactly the lines of the judge's own simulation
// (games/judge Play with the same AIs as responders), and the manager's -o stdout output is
// the judge's record then its result line.
func TestManagerTranscriptIsTheJudges(t *testing.T) {
	t.Parallel() // games over processes of their own
	dir := buildtest.Programs(t, "gauntlet/cmd/stratego-random", "gauntlet/cmd/stratego-hunter")
	brain := func(kind string, seed uint64) stratego.Brain {
		if kind == "hunter" {
			return strategoplayers.NewHunter(seed)
		}
		return strategoplayers.NewRandom(seed)
	}
	type side struct {
		kind string
		seed uint64
	}
	for _, tc := range []struct {
		red, blue side
		limit     string
	}{
		{side{"random", 7}, side{"hunter", 8}, "5000"},
		{side{"hunter", 2}, side{"random", 9}, "5000"},
		{side{"random", 3}, side{"random", 4}, "20"},
	} {
		work := t.TempDir()
		var progs [2]string
		for c, s := range []side{tc.red, tc.blue} {
			progs[c] = relay(t, filepath.Join(work, stratego.Colour(c).String()), filepath.Join(dir, "stratego-"+s.kind), itoa(s.seed))
		}
		var out, errb bytes.Buffer
		status := Run([]string{"-m", tc.limit, "-o", "stdout", progs[0], progs[1]}, strings.NewReader(""), &out, &errb)

		limit, _ := strconv.Atoi(tc.limit)
		j := stratego.NewManager(progs, stratego.ManagerOptions{TurnLimit: limit, Record: true})
		sim, err := judge.Play(j, []judge.Responder{stratego.NewResponder(brain(tc.red.kind, tc.red.seed)), stratego.NewResponder(brain(tc.blue.kind, tc.blue.seed))}, 100000)
		if err != nil {
			t.Fatal(err)
		}
		name := tc.red.kind + itoa(tc.red.seed) + "-" + tc.blue.kind + itoa(tc.blue.seed)
		want := strings.Join(append(sim.Record(), sim.Log()...), "\n") + "\n"
		if status != 0 || out.String() != want {
			t.Errorf("%s: exit %d, stdout differs from the judge's record and result at line %d\n%s", name, status, firstDiff(out.String(), want), errb.String())
		}
		for c := range 2 {
			file := filepath.Join(work, stratego.Colour(c).String())
			if got, want := lines(t, file+".recv"), sim.Received(c); !slices.Equal(got, want) {
				t.Errorf("%s: %s received %d lines, the judge sends %d (first difference at line %d)", name, stratego.Colour(c), len(got), len(want), firstDiff(strings.Join(got, "\n"), strings.Join(want, "\n")))
			}
			if got, want := lines(t, file+".sent"), sim.Sent(c); !slices.Equal(got, want) {
				t.Errorf("%s: %s sent %d lines, the judge's responder %d", name, stratego.Colour(c), len(got), len(want))
			}
		}
	}
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

// An AI that surrenders is told only how the game ended, as the judge says: never a
// confirmation of its surrender (before 2026-11-28 the manager sent the malformed line
// "SURRENDER   ", which is no line of the protocol).
func TestSurrenderIsNotConfirmed(t *testing.T) {
	work := t.TempDir()
	recv := filepath.Join(work, "after")
	body := "read q; printf '" + strings.ReplaceAll(setupRows, "\n", "\\n") + "'\n" +
		"read s; i=0; while [ $i -lt 10 ]; do read r; i=$((i+1)); done; echo SURRENDER\n" +
		"while IFS= read -r l; do printf '%s\\n' \"$l\" >> '" + recv + "'; case $l in QUIT*) exit 0;; esac; done\n"
	got, status, _ := run(t, "-T", "5s", script(t, body), random(t))
	if status != 0 || !strings.Contains(got, "/ai RED SURRENDER 1 ") {
		t.Fatalf("exit %d, result %q", status, got)
	}
	// What the judge sends RED after its surrender.
	j := stratego.NewJudge([2]string{"a", "b"}, 0)
	j.Start()
	for _, l := range strings.Split(strings.TrimSpace(setupRows), "\n") {
		j.Take(l)
	}
	for _, l := range strings.Split(strings.TrimSpace(setupRows), "\n") {
		j.Take(l)
	}
	outs, _ := j.Take("SURRENDER")
	var want []string
	for _, o := range outs {
		if o.To == int(stratego.Red) {
			want = append(want, o.Line)
		}
	}
	if after := lines(t, recv); !slices.Equal(after, want) || slices.Contains(after, "SURRENDER   ") {
		t.Errorf("after its surrender RED was sent %q; the judge sends %q", after, want)
	}
}

// The engine agrees with the independent replay (golden_test.go) on many seeded games of
// the reference AIs, played in process by the manager's judge: every confirmation is the
// one the rules give, and the result line too (victories by the flag and by attrition,
// surrenders, turn limits).
func TestEngineAgreesWithIndependentReplay(t *testing.T) {
	t.Parallel() // computes in this process alone: beside the tests that wait
	ends := map[string]int{}
	for seed := range uint64(60) {
		kinds := [2]string{"random", "hunter"}
		if seed%3 == 1 {
			kinds = [2]string{"hunter", "random"}
		} else if seed%3 == 2 {
			kinds = [2]string{"random", "random"}
		}
		limit := 5000
		if seed%5 == 4 {
			limit = 15 + int(seed)
		}
		var rs []judge.Responder
		for c, k := range kinds {
			b := strategoplayers.NewRandom(seed*2 + uint64(c))
			if k == "hunter" {
				b = strategoplayers.NewHunter(seed*2 + uint64(c))
			}
			rs = append(rs, stratego.NewResponder(b))
		}
		names := [2]string{kinds[0] + "-red", kinds[1] + "-blue"}
		sim, err := judge.Play(stratego.NewManager(names, stratego.ManagerOptions{TurnLimit: limit, Record: true}), rs, 100000)
		if err != nil || sim.Violation != nil || len(sim.Log()) != 1 {
			t.Fatalf("seed %d: %v %v %q", seed, err, sim.Violation, sim.Log())
		}
		got, err := replay(sim.Record(), limit, names)
		if err != nil || got != sim.Log()[0] {
			t.Fatalf("seed %d: the engine ends %q after %d moves; the independent replay gives %q, %v", seed, sim.Log()[0], len(sim.Record()), got, err)
		}
		ends[strings.Fields(got)[2]]++
	}
	if len(ends) < 3 {
		t.Errorf("the seeds reach only these endings: %v", ends)
	}
	t.Logf("endings: %v", ends)
}

// SIGTERM and SIGINT end the manager at once, with both AIs killed (the idle one was
// stopped) and no result line. Before 2026-11-28 the manager died of either signal and left
// both AIs behind, one of them stopped forever. Each AI leads a process group of its own
// (found by the pid it writes), which the manager stops and kills whole.
func TestSignalsEndTheManager(t *testing.T) {
	t.Parallel() // managers of their own, in processes of their own
	manager := filepath.Join(buildtest.Programs(t, "gauntlet/cmd/stratego"), "stratego")
	pids := t.TempDir()
	// RED sets up and moves; BLUE sets up and never moves: its turn never ends, and RED,
	// idle, is stopped, with the sleep it left running.
	red := script(t, "echo $$ > "+pids+"/red; sleep 600 & read q; printf '"+strings.ReplaceAll(setupRows, "\n", "\\n")+"'; read s; i=0; while [ $i -lt 10 ]; do read r; i=$((i+1)); done; echo '0 3 DOWN'; exec sleep 600\n")
	blue := script(t, "echo $$ > "+pids+"/blue; read q; printf '"+strings.ReplaceAll(setupRows, "\n", "\\n")+"'; exec sleep 600\n")
	pidOf := func(side string) int {
		b, _ := os.ReadFile(filepath.Join(pids, side))
		n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		return n
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			os.Remove(filepath.Join(pids, "red"))
			os.Remove(filepath.Join(pids, "blue"))
			cmd := exec.Command(manager, "-T", "1h", red, blue)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			pgid := buildtest.StartInGroup(t, cmd)
			var r, b int
			buildtest.Await(t, "BLUE to move and RED stopped", func() bool {
				if r, b = pidOf("red"), pidOf("blue"); r == 0 || b == 0 {
					return false
				}
				rs, rStopped := buildtest.GroupMembers(r)
				bs, bStopped := buildtest.GroupMembers(b)
				return len(rs) == 2 && rStopped == 2 && len(bs) == 1 && bStopped == 0
			})
			cmd.Process.Signal(sig)
			if !buildtest.Ends(cmd) {
				t.Fatalf("the manager did not end after %v", sig)
			}
			if got := cmd.ProcessState.ExitCode(); got != 128+int(sig) || out.Len() != 0 {
				t.Errorf("exit %d (%v), stdout %q, stderr %q; want %d and no result", got, cmd.ProcessState, out.String(), errb.String(), 128+int(sig))
			}
			// Killed, they end a moment later: awaited (a process left alive never ends,
			// and fails at the backstop).
			buildtest.Await(t, "the groups of the manager and its AIs to end", func() bool {
				for _, g := range []int{pgid, r, b} {
					left, _ := buildtest.GroupMembers(g)
					for _, pid := range left {
						if !dead(pid) {
							return false
						}
					}
				}
				return true
			})
		})
	}
}

// A human side is a local seat of the loop: its lines come from the manager's stdin, with
// no time limit, and its queries go to stderr.
func TestHumanSide(t *testing.T) {
	var out, errb bytes.Buffer
	status := Run([]string{"-T", "5s", Human, random(t)}, strings.NewReader(setupRows+"SURRENDER\n"), &out, &errb)
	if status != 0 || out.String() != "human RED SURRENDER 1 148 148\n" {
		t.Errorf("exit %d, stdout %q", status, out.String())
	}
	if q := strings.Split(errb.String(), "\n"); len(q) < 2 || !strings.HasPrefix(q[0], "RED ") || q[1] != "START" || !strings.HasSuffix(errb.String(), "QUIT DEFEAT\n") {
		t.Errorf("the human's side was shown %q", errb.String())
	}
}
