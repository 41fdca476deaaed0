package standalone_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gauntlet/internal/buildtest"
	"gauntlet/programs"
	"gauntlet/programs/standalone"
)

// The reason the package exists (its doc): the gauntlet binary started as a reference
// program runs it before the grader's packages initialise. Started as 2310A (a link named
// after it), the binary must run the player (its usage error) without initialising the
// grader, the suites' runner or the report templates; started as the CLI, it must still
// initialise them all.
func TestProgramsSkipTheGradersPackages(t *testing.T) {
	exe := buildtest.Path(t, "gauntlet/cmd/gauntlet")
	link := filepath.Join(t.TempDir(), "2310A")
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	heavy := []string{"gauntlet/harness/grading/grade", "gauntlet/harness/grading/scriptcmds",
		"github.com/rogpeppe/go-internal/testscript", "html/template", "text/template",
		"gauntlet/programs", "main"}
	inits := func(name string, args ...string) ([]string, string, int) {
		cmd := exec.Command(name, args...)
		cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
		out, err := cmd.CombinedOutput()
		status := 0
		if ee, ok := err.(*exec.ExitError); ok {
			status = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		var done []string
		var rest []string
		for _, line := range strings.Split(string(out), "\n") {
			if f := strings.Fields(line); len(f) > 1 && f[0] == "init" {
				done = append(done, f[1])
			} else if line != "" {
				rest = append(rest, line)
			}
		}
		return done, strings.Join(rest, "\n"), status
	}
	done, out, status := inits(link)
	if status != 1 || out != "Usage: player pcount ID" {
		t.Fatalf("as 2310A without arguments: status %d, output %q; want 1 and 2310A's usage", status, out)
	}
	for _, p := range heavy {
		if slices.Contains(done, p) {
			t.Errorf("%s was initialised before the program ran", p)
		}
	}
	done, _, status = inits(exe, "version")
	if status != 0 {
		t.Fatalf("gauntlet version: status %d", status)
	}
	for _, p := range heavy {
		if !slices.Contains(done, p) {
			t.Errorf("the CLI did not initialise %s: the list of packages this test looks for is out of date", p)
		}
	}
}

// Every program of the table is a program of gauntlet/programs, with a game and a role,
// and every program there is in the table or in Later.
func TestTableAndProgramsAgree(t *testing.T) {
	for _, name := range standalone.Names() {
		p, ok := programs.Lookup(name)
		if !ok {
			t.Errorf("%s is not registered in gauntlet/programs", name)
			continue
		}
		if p.Role == "" {
			t.Errorf("%s has no role", name)
		}
	}
	for _, p := range programs.All() {
		_, here := standalone.Lookup(p.Name)
		if here == slices.Contains(standalone.Later, p.Name) {
			t.Errorf("%s: in the table %v, in Later %v: want exactly one", p.Name, here, !here)
		}
	}
}
