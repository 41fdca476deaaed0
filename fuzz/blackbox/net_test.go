package blackbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gauntlet/harness/box/execfile"
	"gauntlet/harness/box/sandbox"
	"gauntlet/internal/buildtest"
)

// A boxed campaign's programs share one network namespace, made for the campaign: not the
// fuzzer's own, and not one per program (making and freeing one per program was a fifth
// of a campaign's CPU). The subject here is the reference 2310A behind a shell that first
// writes down its network namespace; with four cases at once, programs with namespaces of
// their own would write several.
func TestCampaignSharesOneNetwork(t *testing.T) {
	if testing.Short() {
		t.Skip("a fuzzing campaign: full mode only")
	}
	buildtest.NeedBox(t, sandbox.BoxProblem())
	// A folder the campaign's sandbox users can reach and write in.
	dir, err := os.MkdirTemp("", "gauntlet-fuzz-net-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o777)
	nets := filepath.Join(dir, "nets")
	if err := os.WriteFile(nets, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	os.Chmod(nets, 0o666)
	ref := refDir(t)
	subject := filepath.Join(dir, "2310A")
	script := "#!/bin/sh\nreadlink /proc/self/ns/net >> " + nets + "\nexec " + filepath.Join(ref, "2310A") + ` "$@"` + "\n"
	if err := execfile.Write(subject, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	const runs = 8
	sum, err := Run(Options{
		Game: game(t, "dealer2310"), Vars: vars(game(t, "dealer2310")), Role: RolePlayer, RefDir: ref, InProcess: inProcess,
		Subjects: []Subject{{Path: subject, Ref: "2310A"}},
		Seed:     3, Runs: runs, Jobs: 4, Kinds: []string{"malformed"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Findings) != 0 {
		t.Errorf("the reference behind a shell differs from the reference: %d findings", len(sum.Findings))
	}
	b, err := os.ReadFile(nets)
	if err != nil {
		t.Fatal(err)
	}
	seen := strings.Fields(string(b))
	if len(seen) < runs {
		t.Fatalf("%d namespaces written down for %d runs: %q", len(seen), runs, seen)
	}
	own, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(seen)
	if distinct := slices.Compact(seen); len(distinct) != 1 || distinct[0] == own {
		t.Errorf("the campaign's programs were in %q; want one namespace, not the fuzzer's %s", distinct, own)
	}
}
