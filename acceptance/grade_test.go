package acceptance

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gauntlet/harness/box/execfile"
	"gauntlet/harness/grading/grade"
	"gauntlet/internal/buildtest"
)

// gradeRun runs `gauntlet grade GAME -json FILE ARGS...` and returns the exit status, the
// JSON report and what the command printed.
func gradeRun(t testing.TB, game string, args ...string) (int, *grade.Report, string) {
	t.Helper()
	return gradeRunAs(t, buildtest.Path(t, "gauntlet/cmd/gauntlet"), nil, nil, game, args...)
}

// gradeRunAs is gradeRun with the binary gauntlet, started through the command wrap (a
// command that runs its arguments: nil, none), with env added to this process's.
func gradeRunAs(t testing.TB, gauntlet string, wrap, env []string, game string, args ...string) (int, *grade.Report, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "report.json")
	argv := append(append(append([]string(nil), wrap...), gauntlet, "grade", game, "-json", out), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	text, _ := cmd.CombinedOutput()
	status := cmd.ProcessState.ExitCode()
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("gauntlet grade %v: no JSON report (%v); exit %d\n%s", args, err, status, text)
	}
	var rep grade.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	return status, &rep, string(text)
}

// marks is the report's mark; an incomplete grade (no mark) fails the test.
func marks(t testing.TB, rep *grade.Report) float64 {
	t.Helper()
	m, ok := rep.Total()
	if !ok {
		t.Errorf("the grade is incomplete (no mark): %q", rep.Harness)
	}
	return m
}

func verdicts(rep *grade.Report) map[string]grade.Verdict {
	m := map[string]grade.Verdict{}
	for _, c := range rep.Cases {
		m[c.Name()] = c.Verdict
	}
	return m
}

// The reference programs, graded as the built-in subject, get every case right and full
// marks, in the two pipe games: a sample of the games through the whole grader, not a list
// of them (conformance's TestSuites runs every registered game's suite against the
// reference, and TestEverySuiteHasItsGame checks it has them all).
func TestReferenceGetsFullMarks(t *testing.T) {
	if testing.Short() {
		t.Skip("whole grades of both suites, whose every case the testscripts package already runs once: full mode only")
	}
	t.Parallel()
	for _, game := range []string{"stlucia", "dealer2310"} {
		t.Run(game, func(t *testing.T) {
			status, rep, text := gradeRun(t, game, "-j", "4")
			if status != 0 {
				t.Fatalf("exit %d, want 0\n%s", status, text)
			}
			for _, c := range rep.Cases {
				if !c.Verdict.Passed() {
					t.Errorf("%s: %s: %s", c.Name(), c.Verdict, c.Detail)
				}
			}
			for _, c := range rep.Categories {
				if c.Cases > 0 && c.Marks != c.MaxMarks {
					t.Errorf("category %s: %v of %v marks", c.Name, c.Marks, c.MaxMarks)
				}
			}
			if len(rep.Cases) == 0 {
				t.Fatal("no cases ran")
			}
		})
	}
}

// submission writes a folder whose Makefile makes each spec program a wrapper script that
// runs the gauntlet binary in a given role (a reference or a misbehaving mock program). The
// binary is copied into the folder, as a submission's own files are: a root grader runs
// the programs as sandbox users, who may not reach the test's build folder.
func submission(t *testing.T, programs map[string]string) string {
	t.Helper()
	gauntlet := buildtest.Path(t, "gauntlet/cmd/gauntlet")
	dir := t.TempDir()
	data, err := os.ReadFile(gauntlet)
	if err != nil {
		t.Fatal(err)
	}
	if err := execfile.Write(filepath.Join(dir, "gauntlet-bin"), data, 0o755); err != nil {
		t.Fatal(err)
	}
	var mk strings.Builder
	mk.WriteString("all:\n")
	for name, role := range programs {
		script := fmt.Sprintf("#!/bin/sh\nexec \"$(dirname \"$0\")/gauntlet-bin\" exec %s \"$@\"\n", role)
		if err := os.WriteFile(filepath.Join(dir, name+".in"), []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&mk, "\tcp %s.in %s && chmod 755 %s\n", name, name, name)
	}
	if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte(mk.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A St Lucia submission whose EAIT answers its first turn with a move of its own, and whose
// HABS crashes on its first message, gets PROTOCOL, WRONG-STDERR and CRASH where those bugs
// show, and PASS elsewhere; its hub (the reference) passes with the reference players.
func TestMisbehavingMocksGetTheirVerdicts(t *testing.T) {
	t.Parallel()
	dir := submission(t, map[string]string{
		"stlucia": "stlucia",
		"EAIT":    `mockplayer -as EAIT -fault 'reply 1 line "keepall"' --`,
		"SCIENCE": "SCIENCE",
		"HABS":    `mockplayer -as HABS -fault 'after 1 signal SEGV' --`,
		"HASS":    "HASS",
		"MABS":    "MABS",
	})
	status, rep, text := gradeRun(t, "stlucia", "-run", `^(game_spec_x|player_game_eait_x_a|player_args_usage_eait|player_eof_between_turns_habs)$`, dir)
	if status != 1 {
		t.Errorf("exit %d, want 1 (a case failed)\n%s", status, text)
	}
	want := map[string]grade.Verdict{
		// The x.roll game (EAIT against EAIT): their hub with the reference players is right;
		// with their EAIT, which keeps its first roll, the game and so the hub's stderr differ.
		"game_spec_x@their-hub+ref-players":   grade.Pass,
		"game_spec_x@ref-hub+their-players":   grade.WrongStderr,
		"game_spec_x@their-hub+their-players": grade.WrongStderr,
		"player_game_eait_x_a":                grade.Protocol,
		"player_args_usage_eait":              grade.Pass,
		"player_eof_between_turns_habs":       grade.Crash,
	}
	// Everything here is reachable by others, so a root grader used sandbox users.
	if len(rep.Notes) > 0 {
		t.Errorf("notes %q, want none", rep.Notes)
	}
	got := verdicts(rep)
	for name, v := range want {
		if got[name] != v {
			t.Errorf("%s: %s, want %s", name, got[name], v)
		}
	}
	// A failure shows the subject's side up to its first divergence from the engine's, marked.
	divergences := map[string]string{
		"game_spec_x@ref-hub+their-players": ">    1  Player A rolled HHAPPP\n    want  Player A rolled 123333\n",
		"player_game_eait_x_a": "     2  hub -> player | turn HHAPPP\n  >    3  player -> hub | keepall\n" +
			"    want  player -> hub | reroll HHAPPP\n",
	}
	for _, c := range rep.Cases {
		if want, ok := divergences[c.Name()]; ok && !strings.HasSuffix(c.Divergence, want) {
			t.Errorf("%s: divergence\n%s\nwant it to end with\n%s", c.Name(), c.Divergence, want)
		}
	}
	if !strings.Contains(text, ">    3  player -> hub | keepall\n") {
		t.Errorf("the summary does not show the conversation up to the divergence:\n%s", text)
	}
	if rep.Build == nil || !rep.Build.OK {
		t.Errorf("build: %+v", rep.Build)
	}
	t.Logf("report:\n%s", text)
}
