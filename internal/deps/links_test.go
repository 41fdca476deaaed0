package deps

import (
	"slices"
	"strings"
	"testing"
)

// A reference program (every binary of cmd/ but the gauntlet CLI) is a game's hub, server,
// player or client, nothing more: it must link no package of the sandbox (the box, the
// exec role that makes it, the cgroups) and none of the grader's. A binary that carried
// the exec role would act as it when started with its variable set, and each such package
// is code a student's reference program runs for nothing. A game's code that needs them
// (its tournament match, which boxes the programs) lives beside its registration
// (judges/<game>judges), which the reference binaries do not import.
var notInReferencePrograms = []string{
	"gauntlet/execrole",
	"gauntlet/harness/box/sandbox/...",
	"gauntlet/harness/box/cgroup",
	"gauntlet/harness/box/cbuild",
	"gauntlet/harness/grading/build",
	"gauntlet/harness/grading/grade/...",
	"gauntlet/harness/grading/scriptcmds",
	"gauntlet/harness/grading/suite",
	"gauntlet/harness/grading/mutants",
	"gauntlet/harness/grading/tournament",
	"gauntlet/programs/...",
}

// TestReferenceProgramsLinkNoSandbox follows the imports of each reference program's main
// package (its non-test files, whatever their build constraints, so the closure is at
// least what any build links) and fails on a package of notInReferencePrograms, naming the
// chain of imports that reaches it.
func TestReferenceProgramsLinkNoSandbox(t *testing.T) {
	pkgs := load(t, root(t))
	var mains []string
	for _, p := range pkgs {
		if strings.HasPrefix(p.path, module+"/cmd/") && p.path != module+"/cmd/gauntlet" {
			mains = append(mains, p.path)
		}
	}
	if len(mains) < 10 {
		t.Fatalf("found %d reference programs under cmd/: the walk is wrong", len(mains))
	}
	for _, m := range mains {
		for _, chain := range forbiddenLinks(pkgs, m, notInReferencePrograms) {
			t.Errorf("%s links %s (through %s): a reference program links no sandbox or grading package", m, chain[len(chain)-1], strings.Join(chain, " -> "))
		}
	}
}

// forbiddenLinks returns, for each package of this module that main links (its transitive
// imports) and that matches one of the patterns, the chain of imports from main to it.
func forbiddenLinks(pkgs []pkg, main string, forbidden []string) [][]string {
	byPath := map[string]pkg{}
	for _, p := range pkgs {
		byPath[p.path] = p
	}
	from := map[string]string{main: ""}
	queue := []string{main}
	var bad [][]string
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if slices.ContainsFunc(forbidden, func(f string) bool { return match(f, p) }) {
			chain := []string{p}
			for q := from[p]; q != ""; q = from[q] {
				chain = append(chain, q)
			}
			slices.Reverse(chain)
			bad = append(bad, chain)
			continue
		}
		for _, i := range byPath[p].imports {
			if _, seen := from[i.path]; !seen && strings.HasPrefix(i.path, module+"/") {
				from[i.path] = p
				queue = append(queue, i.path)
			}
		}
	}
	return bad
}

// TestForbiddenLinksAreFound checks the walk on made-up packages: a link two imports deep
// is found with its chain, a package that is only imported by what main does not link is
// not.
func TestForbiddenLinksAreFound(t *testing.T) {
	pkgs := []pkg{
		{path: "gauntlet/cmd/x", imports: []imp{{path: "gauntlet/hub/xhub"}, {path: "os"}}},
		{path: "gauntlet/hub/xhub", imports: []imp{{path: "gauntlet/harness/grading/tournament"}}},
		{path: "gauntlet/harness/grading/tournament", imports: []imp{{path: "gauntlet/harness/box/sandbox"}}},
		{path: "gauntlet/harness/box/sandbox"},
		{path: "gauntlet/programs", imports: []imp{{path: "gauntlet/execrole"}}},
		{path: "gauntlet/execrole"},
	}
	got := forbiddenLinks(pkgs, "gauntlet/cmd/x", []string{"gauntlet/harness/box/sandbox", "gauntlet/execrole"})
	want := [][]string{{"gauntlet/cmd/x", "gauntlet/hub/xhub", "gauntlet/harness/grading/tournament", "gauntlet/harness/box/sandbox"}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("forbiddenLinks = %q, want %q", got, want)
	}
}
