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

// The layers of docs/architecture.md ("Layers"): each package falls under the first rule
// whose pattern matches its import path, and its non-test files may import only what the
// rule allows. A pattern is an import path, or one ending in "/..." for it and everything
// below it; "std" is the standard library. A package no rule matches is an error too: a
// new folder takes its place in the layers (and in the doc) when it is made.
//
// Read down the table: nothing below may be imported by what is above it, but the rules
// of cmd/.
var rules = []struct {
	pkg   string
	allow string
}{
	// The engines: pure, the standard library and each other only.
	{"gauntlet/games/...", "std gauntlet/games/..."},

	// The first code of every program the sandbox starts.
	{"gauntlet/execrole", "std " + sys},

	// The harness's leaves: no other package of gauntlet.
	{"gauntlet/harness/lineio", "std"},
	{"gauntlet/harness/execfile", "std"},
	{"gauntlet/harness/limitkill", "std"},
	{"gauntlet/harness/rawfile", "std"},
	{"gauntlet/harness/mountinfo", "std"},
	{"gauntlet/harness/tcp", "std"},
	{"gauntlet/harness/outcome", "std"},
	{"gauntlet/harness/faults", "std " + sys},
	{"gauntlet/harness/csignal", "std " + sys},
	{"gauntlet/harness/transcript", "std " + sys},
	{"gauntlet/harness/suite", "std " + script},
	{"gauntlet/harness/cgroup", "std gauntlet/harness/rawfile gauntlet/harness/mountinfo"},
	{"gauntlet/harness/live", "std gauntlet/games/judge"},
	{"gauntlet/harness/respond", "std gauntlet/games/judge gauntlet/harness/lineio"},
	{"gauntlet/harness/hubrt", "std gauntlet/games/judge gauntlet/harness/lineio gauntlet/harness/child gauntlet/harness/hygiene"},
	// The generic mock hub knows no game's engine (its live steps go through games/judge);
	// a game's kind of conversation is a probe of its own (harness/mockhub/refereeprobe).
	{"gauntlet/harness/mockhub", "std " + sys + " gauntlet/games/judge gauntlet/harness/..."},
	// The rest of the harness: the engines, the harness, the exec role.
	{"gauntlet/harness/...", "std " + sys + " " + script + " gauntlet/games/... gauntlet/harness/... gauntlet/execrole"},

	// The reference programs: the engines and the harness, never each other.
	{"gauntlet/hub/...", "std gauntlet/games/... gauntlet/harness/..."},
	{"gauntlet/players/...", "std gauntlet/games/... gauntlet/harness/..."},

	// The fuzzers: the engines, the harness, each other; never the registry or the
	// programs (they are handed what they need of a game).
	{"gauntlet/fuzz/...", "std " + script + " gauntlet/games/... gauntlet/harness/... gauntlet/fuzz/..."},

	// Each game's harness-side code (its tournament match, ...): above its reference
	// programs, which must not link it.
	{"gauntlet/judges/...", "std gauntlet/games/... gauntlet/harness/... gauntlet/hub/... gauntlet/players/... gauntlet/fuzz/... gauntlet/judges/..."},

	// What each program runs, and the registry of every game above all of it.
	{"gauntlet/programs/standalone", "std gauntlet/games/... gauntlet/harness/... gauntlet/hub/... gauntlet/players/... gauntlet/judges/..."},
	{"gauntlet/programs", "std gauntlet/games/... gauntlet/harness/... gauntlet/hub/... gauntlet/players/... gauntlet/fuzz/... gauntlet/judges/... gauntlet/programs/standalone"},

	// The binaries: everything.
	{"gauntlet/cmd/...", "std " + sys + " " + script + " gauntlet/..."},

	// Data and tests.
	{"gauntlet/testscripts", "std"},
	{"gauntlet/ci", "std"},
	{"gauntlet/metatest/...", "std"},
	{"gauntlet/internal/deps", "std"},
	{"gauntlet/internal/vmtest/...", "std " + sys + " gauntlet/internal/vmtest/..."},
}

// The modules the layers may use beyond the standard library (tests may use more).
const (
	sys    = "golang.org/x/sys/unix"
	script = "github.com/rogpeppe/go-internal/..."
)

// testRules are the few rules tests keep too: an engine's tests stay pure.
var testRules = []struct {
	pkg   string
	allow string
}{
	{"gauntlet/games/...", "std gauntlet/games/... github.com/google/gofuzz github.com/sebdah/goldie/v2 github.com/rogpeppe/go-internal/..."},
}

func TestImportRules(t *testing.T) {
	pkgs := load(t, root(t))
	for _, p := range pkgs {
		allow, ok := ruleOf(p.path)
		if !ok {
			t.Errorf("%s has no place in the layers: add a rule to internal/deps and a row to docs/architecture.md", p.path)
			continue
		}
		for _, imp := range p.imports {
			if !allowed(imp.path, allow) {
				t.Errorf("%s imports %s (%s), which its layer may not: it may import %s (docs/architecture.md, \"Layers\")", p.path, imp.path, imp.pos, allow)
			}
		}
		for _, r := range testRules {
			if match(r.pkg, p.path) {
				for _, imp := range p.testImports {
					if !allowed(imp.path, r.allow) {
						t.Errorf("a test of %s imports %s (%s): its tests may import %s", p.path, imp.path, imp.pos, r.allow)
					}
				}
			}
		}
	}
}

// TestRulesCatchABadImport checks the checks themselves on made-up packages: an engine
// that imports the harness, a fuzzer that imports the registry are each caught; a package that keeps to its layer is not.
func TestRulesCatchABadImport(t *testing.T) {
	for _, tc := range []struct {
		pkg, imp string
		ok       bool
	}{
		{"gauntlet/games/clue", "gauntlet/harness/lineio", false},
		{"gauntlet/games/clue", "os", true},
		{"gauntlet/games/clue", "gauntlet/games/judge", true},
		{"gauntlet/games/clue", "golang.org/x/sys/unix", false},
		{"gauntlet/fuzz/blackbox", "gauntlet/programs", false},
		{"gauntlet/programs", "gauntlet/fuzz/livefuzz", true},
		{"gauntlet/hub/cluehub", "gauntlet/players/clueplayers", false},
		{"gauntlet/harness/live", "gauntlet/harness/grade", false},
		{"gauntlet/harness/mockhub", "gauntlet/games/referee", false},
		{"gauntlet/harness/mockhub", "gauntlet/games/judge", true},
		{"gauntlet/judges/refereejudges", "gauntlet/games/referee", true},
		{"gauntlet/cmd/gauntlet", "gauntlet/programs", true},
	} {
		allow, ok := ruleOf(tc.pkg)
		if !ok {
			t.Fatalf("no rule for %s", tc.pkg)
		}
		if got := allowed(tc.imp, allow); got != tc.ok {
			t.Errorf("%s importing %s: allowed %v, want %v", tc.pkg, tc.imp, got, tc.ok)
		}
	}
	if _, ok := ruleOf("gauntlet/newfolder"); ok {
		t.Error("a package of a new top-level folder has a rule before anyone wrote one")
	}
}

func ruleOf(p string) (string, bool) {
	for _, r := range rules {
		if match(r.pkg, p) {
			return r.allow, true
		}
	}
	return "", false
}

func allowed(imp, allow string) bool {
	for _, a := range strings.Fields(allow) {
		if a == "std" && isStd(imp) || match(a, imp) {
			return true
		}
	}
	return false
}

// isStd tells a standard library path: its first element has no dot, and it is not this
// module's.
func isStd(imp string) bool {
	first, _, _ := strings.Cut(imp, "/")
	return !strings.Contains(first, ".") && first != module
}

func match(pattern, p string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return p == base || strings.HasPrefix(p, base+"/")
	}
	return p == pattern
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
