package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gauntlet/internal/buildtest"
	"gauntlet/programs"
)

// The candidates come from the binary itself: commands, games, programs, each command's
// flags, and "." (file names) where a file or folder is wanted.
func TestCompleteCandidates(t *testing.T) {
	tests := []struct {
		words []string
		want  string
	}{
		{[]string{""}, "grade merge run play fuzz tournament adequacy exec programs version completion help"},
		{[]string{"gr"}, "grade"},
		{[]string{"grade", "st"}, "stlucia stratego"},
		{[]string{"grade", "stlucia", "-ju"}, "-junit"},
		{[]string{"grade", "stlucia", "-ke"}, "-keep"},
		{[]string{"fuzz", "dealer2310", "-ro"}, "-role"},
		{[]string{"fuzz", "dealer2310", "--ro"}, "--role"},
		{[]string{"grade", "stlucia", "--ke"}, "--keep"},
		{[]string{"exec", "2310"}, "2310A 2310B 2310dealer"},
		{[]string{"tournament", ""}, strings.Join(programs.TournamentGames(), " ")},
		{[]string{"completion", ""}, "bash fish zsh"},
		{[]string{"grade", "stlucia", "sub"}, "."},
		{[]string{"help", "gr"}, "grade"},
		{[]string{"merge", "-j"}, "-json -junit"},
		{[]string{"merge", "out1"}, "."},
	}
	for _, tc := range tests {
		var out bytes.Buffer
		complete(tc.words, &out)
		if got := strings.Join(strings.Fields(out.String()), " "); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.words, got, tc.want)
		}
	}
	for _, sh := range []string{"bash", "zsh", "fish"} {
		code, out, _ := gauntlet("completion", sh)
		if code != 0 || !strings.Contains(out, "__complete") {
			t.Errorf("completion %s: exit %d\n%s", sh, code, out)
		}
	}
	if code, _, _ := gauntlet("completion", "tcsh"); code != 2 {
		t.Errorf("completion tcsh: exit %d, want 2", code)
	}
}

// The bash script, sourced in a real bash, completes as the candidates say.
func TestCompletionInBash(t *testing.T) {
	bash := buildtest.NeedCommand(t, "bash", "install bash: apt-get install bash")
	t.Parallel() // bash and the binary, in processes of their own
	exe := buildtest.Path(t, "gauntlet/cmd/gauntlet")
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "submission"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := `source <("$G" completion bash)
try() { COMP_WORDS=("$G" "$@"); COMP_CWORD=$#; _gauntlet; echo "${COMPREPLY[*]}"; }
try grade st
try grade stlucia -js
try grade stlucia sub
`
	cmd := exec.Command(bash, "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "G="+exe)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if want := "stlucia stratego\n-json\nsubmission\n"; string(out) != want {
		t.Errorf("bash completed\n%s\nwant\n%s", out, want)
	}
}

// gauntlet run CASE.txtar [DIR]: one case file graded as it is, its game read from its
// category; against the reference it passes, against the buggy fixture it fails as grade
// says; a case of no game's category is a usage error.
func TestRunCaseFile(t *testing.T) {
	t.Parallel() // its commands run apart (gauntletApart)
	buildtest.Path(t, "gauntlet/cmd/gauntlet")
	root := filepath.Join("..", "..")
	ok := filepath.Join(root, "testscripts", "stlucia", "hub_args_usage_none.txtar")
	if code, out, errs := gauntletApart(t, "run", ok); code != 0 || !strings.Contains(out, "cases: PASS 1") {
		t.Errorf("run %s: exit %d\n%s%s", ok, code, out, errs)
	}
	bad := filepath.Join(root, "testscripts", "dealer2310", "player_A_eof_after_path.txtar")
	buggy := filepath.Join(root, "fixtures", "submissions", "buggy2310")
	if code, out, errs := gauntletApart(t, "run", bad, buggy); code != 1 || !strings.Contains(out, "CRASH player_A_eof_after_path") || !strings.Contains(out, "as typed: gauntlet exec mockhub conv ./2310A") {
		t.Errorf("run %s %s: exit %d\n%s%s", bad, buggy, code, out, errs)
	}
	odd := filepath.Join(t.TempDir(), "odd.txtar")
	os.WriteFile(odd, []byte("# x\n# category: nobody/here\nrun $X\n"), 0o644)
	if code, _, errs := gauntletApart(t, "run", odd); code != 2 || !strings.Contains(errs, `no game has the category "nobody/here"`) {
		t.Errorf("run %s: exit %d, %s", odd, code, errs)
	}
}
