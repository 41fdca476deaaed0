package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gauntlet/harness/grading/grade"
	"gauntlet/harness/grading/scriptcmds"
	"gauntlet/internal/buildtest"
)

// The tests' submissions reach files in the test's own temporary folders (marks a slow
// player leaves, programs linked from there): the boxes keep the temporary folder shared.
// The box itself is tested in harness/box/sandbox and acceptance.
func init() {
	os.Setenv(scriptcmds.BoxKeepVar, os.TempDir())
}

// A report written where a link was planted replaces the link and leaves its target alone.
func TestWriteFileReplacesALink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "precious")
	if err := os.WriteFile(target, []byte("keep me\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "report.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(link, func(w io.Writer) error { _, err := io.WriteString(w, "{}\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep me\n" {
		t.Errorf("the link's target was written: %q", b)
	}
	if st, err := os.Lstat(link); err != nil || !st.Mode().IsRegular() {
		t.Errorf("the report is not a regular file in place of the link: %v %v", st.Mode(), err)
	}
}

// The gauntlet binary is every reference and mock program, which run under the sandbox's
// address-space limit; the net package would link cgo into it, and a cgo program's
// threads failed at random there in pthread_create (see harness/runtime/tcp). So nothing the
// binary imports may use net. Each package's test binary is, for its tests, the same
// programs and exec roles, and a binary with cgo is also linked dynamically, which costs
// every start of it about 1.3 ms more here (the loader, libc, the cgo runtime's threads):
// no test may link cgo either.
func TestBinaryLinksNoCgo(t *testing.T) {
	t.Parallel() // runs the go command: beside the tests that wait
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if pkg == "net" || pkg == "runtime/cgo" {
			t.Errorf("the gauntlet binary imports %s (go list -deps ./cmd/gauntlet); use gauntlet/harness/runtime/tcp instead of net", pkg)
		}
	}
	out, err = exec.Command("go", "list", "-test", "-f", "{{.ImportPath}}:{{range .Deps}} {{.}}{{end}}", "gauntlet/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	listed := 0
	for _, line := range strings.Split(string(out), "\n") {
		pkg, deps, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		listed++
		if slices.Contains(strings.Fields(deps), "runtime/cgo") {
			t.Errorf("%s links runtime/cgo: does a test import net? use gauntlet/harness/runtime/tcp (or buildtest.LoopbackService)", pkg)
		}
	}
	if listed < 40 {
		t.Fatalf("go list named %d packages, want every package of the module:\n%s", listed, out)
	}
}

// A subject's hub handed reference players cannot run the reference hub in its place:
// not through the folder a player lies in, nor the grader's own folder of programs, nor a
// player file called by another name, nor the gauntlet binary's exec command, nor PATH.
// Each hub below tries one way and, where the way is closed, fails the marked run of the
// rules file's worked example (their hub with reference players).
func TestSubjectHubCannotRunTheReferenceHub(t *testing.T) {
	buildtest.Long(t)
	root := t.TempDir()
	reachable(t, root, gauntletBinary(t))
	// $3 is the first player: x.roll 10 PLAYER PLAYER.
	const player = `"$(readlink -f "$3")"`
	const scratch = `"$(dirname "$(dirname "$(dirname ` + player + `)")")"`
	for name, hub := range map[string]string{
		"the player's folder":          `exec "$(dirname ` + player + `)/stlucia" "$@"`,
		"the player's folder, renamed": `exec -a stlucia "$(dirname ` + player + `)/gauntlet" "$@"`,
		"the grader's folder":          `exec ` + scratch + `/bin/stlucia "$@"`,
		"the grader's binary, renamed": `exec -a stlucia ` + scratch + `/bin/gauntlet "$@"`,
		"the player, renamed":          `exec -a stlucia "$3" "$@"`,
		"the player's exec command":    `exec "$3" exec stlucia "$@"`,
		"PATH":                         `exec stlucia "$@"`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := makeSubmission(t, root, strings.ReplaceAll(name, " ", "-"), "cp hub.sh stlucia", "chmod 755 stlucia")
			if err := os.WriteFile(filepath.Join(dir, "hub.sh"), []byte("#!/bin/bash\n"+hub+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			report := filepath.Join(t.TempDir(), "report.json")
			code, stdout, stderr := gauntlet("grade", "stlucia", "-run", "^game_spec_x$", "-json", report, dir)
			found := false
			for _, c := range readReport(t, report).Cases {
				if c.Name() != "game_spec_x@their-hub+ref-players" {
					continue
				}
				found = true
				if c.Verdict.Passed() || c.Verdict == grade.BuildFail || c.Verdict == grade.HarnessError {
					t.Errorf("a hub that runs %q: %s, want a failure of its own:\n%s", hub, c.Verdict, c.Log)
				}
			}
			if !found {
				t.Errorf("no marked run of game_spec_x: exit %d\n%s\n%s", code, stdout, stderr)
			}
		})
	}
}

// The log of a case names a published reference program by its name, as it names the
// grader's own ones: in the command as typed (ref/EAIT) and in what the subject printed,
// never by the folder with a random name it was handed to the subject in.
func TestLogNamesPublishedPrograms(t *testing.T) {
	buildtest.Long(t)
	root := t.TempDir()
	reachable(t, root, gauntletBinary(t))
	dir := makeSubmission(t, root, "echoes", "cp hub.sh stlucia", "chmod 755 stlucia")
	if err := os.WriteFile(filepath.Join(dir, "hub.sh"), []byte("#!/bin/sh\necho \"args: $*\" >&2\nexit 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(t.TempDir(), "report.json")
	gauntlet("grade", "stlucia", "-run", "^game_spec_x$", "-json", report, dir)
	found := false
	for _, c := range readReport(t, report).Cases {
		if c.Name() != "game_spec_x@their-hub+ref-players" {
			continue
		}
		found = true
		if !strings.Contains(c.Log, "as typed: ./stlucia x.roll 10 ref/EAIT ref/EAIT\n") ||
			!strings.Contains(c.Log, "args: x.roll 10 EAIT EAIT\n") || strings.Contains(c.Log, "/programs/") {
			t.Errorf("the log does not name the reference players EAIT:\n%s", c.Log)
		}
	}
	if !found {
		t.Error("no marked run of game_spec_x")
	}
}
