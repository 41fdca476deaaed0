package sandbox_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gauntlet/harness/box/sandbox"
	"gauntlet/internal/buildtest"
)

// Keyrings: a sandbox user's kernel keyrings outlive its processes, so a message one case
// left there reached the next case lent the same user (the box issue of 2026-11-28). Every
// program the sandbox starts, boxed or not, and whether a box's init traces its start or
// starts it through the exec role again, gets EPERM from the keyring system calls.
func TestKeyringsAreRefused(t *testing.T) {
	prog := filepath.Join(progDir, "keyring")
	const want = "add_key: refused\nkeyctl: refused\n"
	type start struct {
		name     string
		cfg      sandbox.Config
		roleOnly bool
	}
	starts := []start{
		{"unboxed", sandbox.Config{Identity: sandbox.Identity{Same: true}}, false},
	}
	if boxProblem() == nil {
		starts = append(starts,
			start{"boxed, traced by the init", sandbox.Config{Box: &sandbox.Box{}}, false},
			start{"boxed, through the role again", sandbox.Config{Box: &sandbox.Box{}}, true})
	} else if os.Getenv(buildtest.RequireBoxVar) == "1" {
		t.Fatalf("%s=1 but no box here: %v", buildtest.RequireBoxVar, boxProblem())
	}
	for _, s := range starts {
		t.Run(s.name, func(t *testing.T) {
			if s.roleOnly {
				defer sandbox.InitsUseRole()()
			}
			res, err := sandbox.Run(s.cfg, sandbox.Spec{Path: prog})
			if err != nil {
				t.Fatal(err)
			}
			if got := string(res.Procs[0].Stdout); got != want {
				t.Errorf("the keyring system calls: got %q (stderr %q), want %q", got, res.Procs[0].Stderr, want)
			}
		})
	}
}

// inheritedEnv makes this test binary, started as a child with a descriptor open at 3,
// run the hostile program "inherited" in the sandbox and print what it read.
const inheritedEnv = "SANDBOX_TEST_INHERITED"

func probeInherited() {
	res, err := sandbox.Run(sandbox.Config{Identity: sandbox.Identity{Same: true}},
		sandbox.Spec{Path: os.Getenv(inheritedEnv)})
	if err != nil {
		os.Stdout.WriteString("error: " + err.Error() + "\n")
		return
	}
	os.Stdout.Write(res.Procs[0].Stdout)
}

// A descriptor the harness itself was started with (fd 7 of the shell that ran it, on a
// root-only file) reached every program it started, until 2026-11-28: Go passes only the
// descriptors named, but does not close those a process inherited open.
func TestInheritedDescriptorsDoNotReachPrograms(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("the answers"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(secret)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), inheritedEnv+"="+filepath.Join(progDir, "inherited"))
	cmd.ExtraFiles = []*os.File{f} // fd 3 of the harness, open across its exec
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got := string(out); got != "inherited: none\n" {
		t.Errorf("a program the harness started read: %q", strings.TrimSpace(got))
	}
}

// A judge's run is root by design and starts its subject as a sandbox user: its result
// carries no "running as root without a sandbox user" note, which read in a boxed grade's
// logs as if the subject ran unboxed. A plain root run still carries it.
func TestJudgeRunHasNoRootNote(t *testing.T) {
	buildtest.NeedRoot(t, "the note is a root harness's")
	lease, err := sandbox.NewLease()
	if err != nil {
		t.Fatal(err)
	}
	defer lease.Release()
	for _, tc := range []struct {
		id   sandbox.Identity
		note bool
	}{{sandbox.Identity{Same: true, Delegate: lease}, false}, {sandbox.Identity{Same: true}, true}} {
		res, err := sandbox.Run(sandbox.Config{Identity: tc.id}, sandbox.Spec{Path: "/bin/true"})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(res.Warnings) > 0; got != tc.note {
			t.Errorf("identity %+v: warnings %q, want a note: %v", tc.id, res.Warnings, tc.note)
		}
	}
}
