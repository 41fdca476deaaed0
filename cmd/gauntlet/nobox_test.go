package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gauntlet/harness/box/execfile"
	"gauntlet/internal/buildtest"
)

// A root grader where the machine refuses namespaces (an unprivileged container: here the
// capability bounding set without CAP_SYS_ADMIN, as Docker's default gives) grades at the
// level below the box instead of refusing: every program still a sandbox user of its own,
// the report naming the level. Before 2026-11-28 it refused unless -unsafe, which ran the
// submission as root.
func TestGradeWithoutNamespacesKeepsSandboxUsers(t *testing.T) {
	t.Parallel() // a grade of its own, in a process of its own
	if os.Geteuid() != 0 {
		buildtest.NeedBox(t, errors.New("needs root, to drop CAP_SYS_ADMIN from a root grader"))
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		buildtest.NeedBox(t, errors.New("needs setpriv (util-linux)"))
	}
	bin := buildtest.Path(t, "gauntlet/cmd/gauntlet")
	root := t.TempDir()
	bin = reachable(t, root, bin)
	// Every program of the submission logs its user in a folder every user may write.
	logs := filepath.Join(root, "uids")
	if err := os.Mkdir(logs, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(logs, 0o777); err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(root, "prog.sh")
	if err := execfile.Write(prog, []byte("#!/bin/sh\nid -u > \"$(mktemp '"+logs+"/uid.XXXXXX')\"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := makeSubmission(t, root, "sub", "cp "+prog+" 2310A", "cp "+prog+" 2310B", "cp "+prog+" 2310dealer")
	report := filepath.Join(root, "report.json")
	cmd := exec.Command(setpriv, "--bounding-set", "-sys_admin", bin, "grade", "dealer2310", "-run", "^player_A_args", "-json", report, sub)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1 (the submission's cases fail; nothing refused):\n%s", err, out)
	}
	if !strings.Contains(string(out), "no namespaces here") {
		t.Errorf("the grade does not say it ran without namespaces:\n%s", out)
	}
	if got := readReport(t, report).Isolation; got != "sandbox users without namespaces" {
		t.Errorf("report isolation %q, want sandbox users without namespaces", got)
	}
	files, _ := filepath.Glob(filepath.Join(logs, "uid.*"))
	if len(files) == 0 {
		t.Fatal("no program of the submission ran")
	}
	for _, f := range files {
		if data, _ := os.ReadFile(f); string(data) == "0\n" {
			t.Fatalf("a program of the submission ran as root")
		}
	}
}
