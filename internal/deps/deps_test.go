package deps

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// The layers of docs/architecture.md ("Layers"), row for row (TestTableIsTheRules): each
// package falls under the rule whose pattern matches its import path (the first, reading
// down), and its non-test files may import only what the rule allows. A pattern is an
// import path, or one ending in "/..." for it and everything below it; "std" is the
// standard library. In a pattern, <game> stands for one game's name: a package of a
// game's own folder (games/<game>, hub/<game>hub, ...) may import that game's packages
// only, never another game's. A package no rule matches is an error too: a new folder
// takes its place in the layers (and in the doc) when it is made.
var rules = []rule{
	// The engines: pure; the shapes every game shares, and a game's own engine alone.
	{"gauntlet/games/contract", "std"},
	{"gauntlet/games/grammar", "std"},
	{"gauntlet/games/grammar/grammartest", "std gauntlet/games/grammar"},
	{"gauntlet/games/judge", "std"},
	{"gauntlet/games/<game>", "std gauntlet/games/contract gauntlet/games/grammar gauntlet/games/judge"},

	// The first code of every program the sandbox starts.
	{"gauntlet/execrole", "std " + sys},

	// The runtime of the reference programs (harness/runtime): what a hub, server, player or
	// client links, and nothing of the sandbox (TestReferenceProgramsLinkNoSandbox). Of the
	// other rooms it imports one package: hubrt reads a player's CPU time (its process tree's)
	// through the box's hygiene.
	{"gauntlet/harness/runtime/lineio", "std"},
	{"gauntlet/harness/runtime/tcp", "std"},
	{"gauntlet/harness/runtime/limitkill", "std"},
	{"gauntlet/harness/runtime/csignal", "std " + sys},
	{"gauntlet/harness/runtime/transcript", "std " + sys},
	{"gauntlet/harness/runtime/child", "std " + sys + " gauntlet/harness/runtime/tcp"},
	{"gauntlet/harness/runtime/respond", "std gauntlet/games/judge gauntlet/harness/runtime/lineio"},
	{"gauntlet/harness/runtime/hubrt", "std gauntlet/games/judge gauntlet/harness/runtime/lineio gauntlet/harness/runtime/child gauntlet/harness/box/hygiene"},

	// The box and its parts (harness/box): what runs an untrusted program, and what it reads
	// of the machine.
	{"gauntlet/harness/box/rawfile", "std"},
	{"gauntlet/harness/box/mountinfo", "std"},
	{"gauntlet/harness/box/execfile", "std"},
	{"gauntlet/harness/box/cbuild", "std"},
	{"gauntlet/harness/box/hygiene", "std " + sys + " gauntlet/harness/box/rawfile"},
	{"gauntlet/harness/box/cgroup", "std gauntlet/harness/box/rawfile gauntlet/harness/box/mountinfo"},
	{"gauntlet/harness/box/sandbox", "std " + sys + " gauntlet/execrole gauntlet/harness/box/cbuild gauntlet/harness/runtime/child gauntlet/harness/box/hygiene gauntlet/harness/runtime/limitkill gauntlet/harness/box/mountinfo gauntlet/harness/box/rawfile gauntlet/harness/runtime/tcp gauntlet/harness/runtime/transcript"},

	// The judges inside a case (harness/judges), and the record of a failure they write. The
	// mock hub knows no game's engine (its live steps go through games/judge); a game's kind
	// of conversation is a probe of its own (judges/refereejudges).
	{"gauntlet/harness/judges/outcome", "std"},
	{"gauntlet/harness/judges/faults", "std " + sys},
	{"gauntlet/harness/judges/live", "std gauntlet/games/judge"},
	{"gauntlet/harness/judges/mockhub", "std " + sys + " gauntlet/games/judge gauntlet/harness/runtime/child gauntlet/harness/judges/faults gauntlet/harness/runtime/limitkill gauntlet/harness/judges/live gauntlet/harness/judges/outcome gauntlet/harness/box/sandbox gauntlet/harness/runtime/transcript"},
	{"gauntlet/harness/judges/mockplayer", "std " + sys + " gauntlet/execrole gauntlet/harness/box/cbuild gauntlet/harness/runtime/child gauntlet/harness/runtime/csignal gauntlet/harness/judges/faults gauntlet/harness/box/sandbox gauntlet/harness/runtime/tcp gauntlet/harness/runtime/transcript"},

	// Grading (harness/grading): a submission built, its suite run, its verdicts and reports;
	// a cohort, the mutant runs and the tournaments.
	{"gauntlet/harness/grading/term", "std " + sys},
	{"gauntlet/harness/grading/suite", "std " + script},
	{"gauntlet/harness/grading/build", "std " + sys + " gauntlet/execrole gauntlet/harness/box/cgroup gauntlet/harness/runtime/child gauntlet/harness/box/execfile gauntlet/harness/box/sandbox"},
	{"gauntlet/harness/grading/scriptcmds", "std " + sys + " " + script + " gauntlet/harness/box/cgroup gauntlet/harness/runtime/child gauntlet/harness/box/execfile gauntlet/harness/judges/faults gauntlet/harness/box/hygiene gauntlet/harness/judges/mockhub gauntlet/harness/judges/mockplayer gauntlet/harness/judges/outcome gauntlet/harness/box/rawfile gauntlet/harness/box/sandbox gauntlet/harness/grading/suite gauntlet/harness/runtime/tcp gauntlet/harness/runtime/transcript"},
	{"gauntlet/harness/grading/grade", "std " + script + " gauntlet/games/contract gauntlet/harness/grading/build gauntlet/harness/box/cgroup gauntlet/harness/box/hygiene gauntlet/harness/judges/mockhub gauntlet/harness/judges/outcome gauntlet/harness/box/sandbox gauntlet/harness/grading/scriptcmds gauntlet/harness/grading/suite gauntlet/harness/runtime/transcript"},
	{"gauntlet/harness/grading/grade/cohort", "std gauntlet/harness/grading/build gauntlet/harness/grading/grade gauntlet/harness/box/sandbox gauntlet/harness/grading/term"},
	{"gauntlet/harness/grading/mutants", "std gauntlet/harness/grading/grade"},
	{"gauntlet/harness/grading/tournament", "std gauntlet/harness/runtime/child gauntlet/harness/runtime/hubrt gauntlet/harness/box/hygiene gauntlet/harness/box/sandbox"},

	// The reference programs: their game's engine and the runtime, never each other,
	// another game or the sandbox.
	{"gauntlet/hub/<game>hub", "std gauntlet/games/judge gauntlet/games/<game> " + runtime},
	{"gauntlet/players/<game>players", "std gauntlet/games/judge gauntlet/games/<game> " + runtime},

	// The fuzzers: the engines, the harness, each other; never the registry, the programs
	// or a game (they are handed what they need of a game; a game's adapter registers
	// itself).
	{"gauntlet/fuzz/...", "std " + script + " gauntlet/games/contract gauntlet/games/grammar gauntlet/games/judge gauntlet/harness/... gauntlet/fuzz/..."},

	// Each game's harness-side code: its own game's engine, programs and judges, the
	// harness and the fuzzers; above its reference programs, which must not link it.
	{"gauntlet/judges/<game>judges", "std gauntlet/games/judge gauntlet/games/contract gauntlet/games/<game> gauntlet/harness/... gauntlet/hub/<game>hub gauntlet/players/<game>players gauntlet/fuzz/..."},
	{"gauntlet/judges/<game>fuzz", "std gauntlet/games/judge gauntlet/games/<game> gauntlet/harness/... gauntlet/fuzz/... gauntlet/judges/<game>judges"},

	// What each program runs, and the registry of every game above all of it.
	{"gauntlet/programs/standalone", "std gauntlet/games/... gauntlet/harness/... gauntlet/hub/... gauntlet/players/... gauntlet/judges/..."},
	{"gauntlet/programs", "std gauntlet/games/... gauntlet/harness/... gauntlet/hub/... gauntlet/players/... gauntlet/fuzz/... gauntlet/judges/... gauntlet/programs/standalone"},

	// The binaries: everything.
	{"gauntlet/cmd/...", "std " + sys + " " + script + " gauntlet/..."},

	// Data and tests.
	{"gauntlet/testscripts", "std"},
	{"gauntlet/ci", "std"},
	{"gauntlet/acceptance/...", "std"},
	{"gauntlet/internal/deps", "std"},
	{"gauntlet/internal/buildtest/...", "std gauntlet/internal/buildtest gauntlet/harness/box/cgroup gauntlet/harness/box/execfile gauntlet/harness/box/hygiene gauntlet/harness/runtime/tcp"},
	{"gauntlet/internal/vmtest/...", "std " + sys + " gauntlet/internal/vmtest/..."},
}

// testOnly are the packages only tests may import (but each other): the table's rows that
// say "tests only".
var testOnly = []string{"gauntlet/games/grammar/grammartest", "gauntlet/internal/buildtest/...", "gauntlet/acceptance/...", "gauntlet/internal/deps", "gauntlet/internal/vmtest/..."}

// forTestsOnly says whether a non-test file of package p may not import imp: imp is for
// tests only, and p is not of the same test-only folder.
func forTestsOnly(p, imp string) bool {
	for _, pattern := range testOnly {
		if match(pattern, imp) && !match(pattern, p) {
			return true
		}
	}
	return false
}

// A rule: the packages pkg matches may import what allow's patterns match.
type rule struct{ pkg, allow string }

// The modules the layers may use beyond the standard library (tests may use more), and the
// runtime of the reference programs.
const (
	sys     = "golang.org/x/sys/unix"
	script  = "github.com/rogpeppe/go-internal/..."
	runtime = "gauntlet/harness/runtime/child gauntlet/harness/runtime/csignal gauntlet/harness/runtime/hubrt gauntlet/harness/runtime/limitkill gauntlet/harness/runtime/lineio gauntlet/harness/runtime/respond gauntlet/harness/runtime/tcp gauntlet/harness/runtime/transcript"
)

// testRules are the few rules tests keep too: an engine's tests stay pure, and know no
// other game.
var testRules = []rule{
	{"gauntlet/games/<game>", "std gauntlet/games/contract gauntlet/games/grammar gauntlet/games/grammar/grammartest gauntlet/games/judge gauntlet/games/<game> github.com/google/gofuzz github.com/sebdah/goldie/v2 github.com/rogpeppe/go-internal/..."},
}

func TestImportRules(t *testing.T) {
	pkgs := load(t, root(t))
	for _, p := range pkgs {
		r, game, ok := ruleOf(rules, p.path)
		if !ok {
			t.Errorf("%s has no place in the layers: add a rule to internal/deps and a row to docs/architecture.md", p.path)
			continue
		}
		for _, imp := range p.imports {
			if !allowed(imp.path, r.allow, game) {
				t.Errorf("%s imports %s (%s), which its layer may not: it may import %s (docs/architecture.md, \"Layers\")", p.path, imp.path, imp.pos, own(r.allow, game))
			}
			if forTestsOnly(p.path, imp.path) {
				t.Errorf("%s imports %s (%s), which is for tests only: import it from a _test.go file", p.path, imp.path, imp.pos)
			}
		}
		if r, game, ok := ruleOf(testRules, p.path); ok {
			for _, imp := range p.testImports {
				if !allowed(imp.path, r.allow, game) {
					t.Errorf("a test of %s imports %s (%s): its tests may import %s", p.path, imp.path, imp.pos, own(r.allow, game))
				}
			}
		}
	}
}

// TestRulesCatchABadImport checks the checks themselves on made-up imports: each breaks
// (or keeps to) one rule of the table: an engine that imports the harness or another
// game's engine, a harness package that imports what its row does not name, a reference
// program that imports the sandbox or another game, a fuzzer that imports the registry or a
// game are each caught; a package that keeps to its layer is not.
func TestRulesCatchABadImport(t *testing.T) {
	for _, tc := range []struct {
		pkg, imp string
		ok       bool
	}{
		// The engines.
		{"gauntlet/games/clue", "os", true},
		{"gauntlet/games/clue", "gauntlet/games/judge", true},
		{"gauntlet/games/clue", "gauntlet/games/grammar", true},
		{"gauntlet/games/clue", "gauntlet/games/stlucia", false},
		{"gauntlet/games/stratego", "gauntlet/games/referee", false},
		{"gauntlet/games/clue", "gauntlet/harness/runtime/lineio", false},
		{"gauntlet/games/clue", "golang.org/x/sys/unix", false},
		{"gauntlet/games/judge", "gauntlet/games/clue", false},
		{"gauntlet/games/contract", "gauntlet/games/judge", false},
		// The harness: each package what its row names, nothing else.
		{"gauntlet/harness/runtime/lineio", "gauntlet/harness/runtime/tcp", false},
		{"gauntlet/harness/judges/live", "gauntlet/harness/grading/grade", false},
		{"gauntlet/harness/judges/live", "gauntlet/games/clue", false},
		{"gauntlet/harness/runtime/child", "gauntlet/execrole", false},
		{"gauntlet/harness/runtime/child", "gauntlet/harness/box/sandbox", false},
		{"gauntlet/harness/runtime/child", "gauntlet/harness/runtime/tcp", true},
		{"gauntlet/harness/runtime/hubrt", "gauntlet/harness/box/sandbox", false},
		{"gauntlet/harness/runtime/hubrt", "gauntlet/harness/runtime/child", true},
		{"gauntlet/harness/box/sandbox", "gauntlet/execrole", true},
		{"gauntlet/harness/box/sandbox", "gauntlet/harness/grading/grade", false},
		{"gauntlet/harness/judges/mockhub", "gauntlet/games/referee", false},
		{"gauntlet/harness/judges/mockhub", "gauntlet/games/judge", true},
		{"gauntlet/harness/grading/mutants", "gauntlet/games/stlucia", false},
		{"gauntlet/harness/grading/tournament", "gauntlet/hub/strategohub", false},
		{"gauntlet/harness/grading/grade", "gauntlet/programs", false},
		// The reference programs: their own game, the runtime.
		{"gauntlet/hub/cluehub", "gauntlet/games/clue", true},
		{"gauntlet/hub/cluehub", "gauntlet/games/stratego", false},
		{"gauntlet/hub/cluehub", "gauntlet/players/clueplayers", false},
		{"gauntlet/hub/strategohub", "gauntlet/harness/runtime/hubrt", true},
		{"gauntlet/hub/strategohub", "gauntlet/harness/grading/tournament", false},
		{"gauntlet/hub/strategohub", "gauntlet/harness/box/sandbox", false},
		{"gauntlet/players/stluciaplayers", "gauntlet/harness/runtime/respond", true},
		{"gauntlet/players/stluciaplayers", "gauntlet/games/dealer2310", false},
		// The fuzzers, a game's harness-side code, the registry.
		{"gauntlet/fuzz/blackbox", "gauntlet/programs", false},
		{"gauntlet/fuzz/blackbox", "gauntlet/games/stlucia", false},
		{"gauntlet/fuzz/blackbox", "gauntlet/judges/stluciajudges", false},
		{"gauntlet/fuzz/pipegame", "gauntlet/games/judge", true},
		{"gauntlet/judges/refereejudges", "gauntlet/games/referee", true},
		{"gauntlet/judges/refereejudges", "gauntlet/hub/refereehub", true},
		{"gauntlet/judges/refereejudges", "gauntlet/games/clue", false},
		{"gauntlet/judges/strategojudges", "gauntlet/hub/refereehub", false},
		{"gauntlet/judges/cluefuzz", "gauntlet/judges/cluejudges", true},
		{"gauntlet/judges/cluefuzz", "gauntlet/judges/refereejudges", false},
		{"gauntlet/judges/cluejudges", "gauntlet/programs", false},
		{"gauntlet/programs", "gauntlet/fuzz/livefuzz", true},
		{"gauntlet/programs", "gauntlet/judges/stluciajudges", true},
		{"gauntlet/programs/standalone", "gauntlet/programs", false},
		{"gauntlet/cmd/gauntlet", "gauntlet/programs", true},
	} {
		r, game, ok := ruleOf(rules, tc.pkg)
		if !ok {
			t.Fatalf("no rule for %s", tc.pkg)
		}
		if got := allowed(tc.imp, r.allow, game); got != tc.ok {
			t.Errorf("%s importing %s: allowed %v, want %v", tc.pkg, tc.imp, got, tc.ok)
		}
	}
	// A package for tests only is imported by tests alone (and by its own folder).
	for _, tc := range []struct {
		pkg, imp string
		bad      bool
	}{
		{"gauntlet/cmd/gauntlet", "gauntlet/internal/buildtest", true},
		{"gauntlet/harness/box/sandbox", "gauntlet/internal/buildtest", true},
		{"gauntlet/games/clue", "gauntlet/games/grammar/grammartest", true},
		{"gauntlet/internal/buildtest/delegate", "gauntlet/internal/buildtest", false},
		{"gauntlet/internal/vmtest/vminit", "gauntlet/internal/vmtest/vmspec", false},
		{"gauntlet/harness/box/sandbox", "gauntlet/harness/box/cbuild", false},
	} {
		if got := forTestsOnly(tc.pkg, tc.imp); got != tc.bad {
			t.Errorf("%s importing %s: for tests only %v, want %v", tc.pkg, tc.imp, got, tc.bad)
		}
	}
	// An engine's test may import its own engine (an external test), not another's.
	for imp, ok := range map[string]bool{"gauntlet/games/clue": true, "gauntlet/games/stlucia": false, "gauntlet/harness/runtime/lineio": false} {
		r, game, _ := ruleOf(testRules, "gauntlet/games/clue")
		if got := allowed(imp, r.allow, game); got != ok {
			t.Errorf("a test of games/clue importing %s: allowed %v, want %v", imp, got, ok)
		}
	}
	for _, p := range []string{"gauntlet/newfolder", "gauntlet/judges/other", "gauntlet/games/clue/sub"} {
		if _, _, ok := ruleOf(rules, p); ok {
			t.Errorf("%s has a rule before anyone wrote one", p)
		}
	}
}

// ruleOf returns the first of rs whose pattern matches package p, and the game its
// <game> stands for ("" for a pattern without one).
func ruleOf(rs []rule, p string) (rule, string, bool) {
	for _, r := range rs {
		if game, ok := bind(r.pkg, p); ok {
			return r, game, true
		}
	}
	return rule{}, "", false
}

// allowed says whether a package may import imp, by its rule's allow list, with <game>
// standing for its own game (and for none when it has none).
func allowed(imp, allow, game string) bool {
	for _, a := range strings.Fields(allow) {
		if strings.Contains(a, "<game>") {
			if game == "" {
				continue
			}
			a = strings.ReplaceAll(a, "<game>", game)
		}
		if a == "std" && isStd(imp) || match(a, imp) {
			return true
		}
	}
	return false
}

// own is an allow list with <game> replaced by the game, for messages.
func own(allow, game string) string {
	if game == "" {
		return allow
	}
	return strings.ReplaceAll(allow, "<game>", game)
}

// isStd tells a standard library path: its first element has no dot, and it is not this
// module's.
func isStd(imp string) bool {
	first, _, _ := strings.Cut(imp, "/")
	return !strings.Contains(first, ".") && first != module
}

// match says whether pattern matches import path p.
func match(pattern, p string) bool {
	_, ok := bind(pattern, p)
	return ok
}

// bind matches pattern against import path p, and returns the game that a <game> in the
// pattern stands for: one path element's part, which is not empty ("gauntlet/hub/<game>hub"
// matches "gauntlet/hub/cluehub" with game "clue"; "gauntlet/games/<game>" matches
// "gauntlet/games/clue" and not "gauntlet/games/clue/sub").
func bind(pattern, p string) (game string, ok bool) {
	if before, after, found := strings.Cut(pattern, "<game>"); found {
		rest, ok := strings.CutPrefix(p, before)
		if !ok {
			return "", false
		}
		game, ok = strings.CutSuffix(rest, after)
		if !ok || game == "" || strings.Contains(game, "/") {
			return "", false
		}
		return game, true
	}
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return "", p == base || strings.HasPrefix(p, base+"/")
	}
	return "", p == pattern
}

const module = "gauntlet"

type imp struct{ path, pos string }

type pkg struct {
	path, name           string
	imports, testImports []imp
}

// root is the module's folder (go.mod's).
func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if f, err := os.Open(filepath.Join(dir, "go.mod")); err == nil {
			line, _ := bufio.NewReader(f).ReadString('\n')
			f.Close()
			if strings.TrimSpace(line) != "module "+module {
				t.Fatalf("go.mod of %s is not module %s", dir, module)
			}
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = up
	}
}

// load parses the imports of every Go file of the module, whatever its build
// constraints (a file for another system is checked too); the files of testdata folders
// and of folders whose names start with . or _ are not packages of the module, as for the
// go command.
func load(t *testing.T, root string) []pkg {
	t.Helper()
	byDir := map[string]*pkg{}
	var dirs []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(file string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if file != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
			return nil
		}
		f, err := parser.ParseFile(fset, file, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.Dir(file)
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			return err
		}
		p := byDir[dir]
		if p == nil {
			p = &pkg{path: path.Join(module, filepath.ToSlash(rel))}
			byDir[dir] = p
			dirs = append(dirs, dir)
		}
		test := strings.HasSuffix(name, "_test.go")
		if !test {
			p.name = f.Name.Name
		}
		for _, s := range f.Imports {
			pos := fset.Position(s.Pos())
			i := imp{strings.Trim(s.Path.Value, `"`), fmt.Sprintf("%s:%d", filepath.ToSlash(filepath.Join(rel, name)), pos.Line)}
			if test {
				p.testImports = append(p.testImports, i)
			} else {
				p.imports = append(p.imports, i)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []pkg
	for _, dir := range dirs {
		if p := byDir[dir]; p.name != "" { // test-only folders have no package to import
			out = append(out, *p)
		}
	}
	if len(out) < 50 {
		t.Fatalf("read only %d packages below %s: the walk is wrong", len(out), root)
	}
	return out
}
