package deps

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// The generic packages: the same for every game, they know none. A game's code is in its
// own folders (games/<game>, hub/<game>hub, players/<game>players, judges/<game>judges,
// judges/<game>fuzz) and its registration (programs); a generic package gets what it needs
// of a game from the registry, or from a game's package that registers itself.
var generic = []string{
	"gauntlet/games/contract",
	"gauntlet/games/grammar",
	"gauntlet/games/judge",
	"gauntlet/execrole",
	"gauntlet/harness/...",
	"gauntlet/internal/buildtest/...",
	"gauntlet/fuzz/...",
}

// gameWords are the words that name a game, or a program or part of one: a word of an
// identifier or of a string literal that contains one of them (lower-cased) names a game.
// Words that are common English besides a game's name (its programs SCIENCE or HASS) are
// not here: their games' other names catch a generic package that knows the game.
var gameWords = []string{
	"stlucia", "lucia", "eait", "habs", "mabs",
	"dealer2310", "2310",
	"clue", "mockclients",
	"stratego",
	"referee", "tictactoe", "connectfour",
	"pingpong",
}

// TestGenericPackagesNameNoGame fails when a generic package's code (its non-test files,
// comments aside) names a game in an identifier or a string literal: the game's code
// belongs beside its game (docs/architecture.md, "Layers").
func TestGenericPackagesNameNoGame(t *testing.T) {
	dir := root(t)
	for _, p := range load(t, dir) {
		if !slices.ContainsFunc(generic, func(g string) bool { return match(g, p.path) }) {
			continue
		}
		pkgDir := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(p.path, module+"/")))
		files, err := filepath.Glob(filepath.Join(pkgDir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(dir, file)
			if names := gameNames(t, rel, src); len(names) > 0 {
				t.Errorf("%s names a game %d times, first at %s (%s): a generic package's code knows no game; move it beside its game (judges/<game>judges)", rel, len(names), names[0].pos, names[0].text)
			}
		}
	}
}

type named struct{ pos, text string }

// gameNames returns the identifiers and string literals of a Go file's code (not its
// comments) that name a game.
func gameNames(t *testing.T, file string, src []byte) []named {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var out []named
	ast.Inspect(f, func(n ast.Node) bool {
		var text string
		switch n := n.(type) {
		case *ast.Ident:
			text = n.Name
		case *ast.BasicLit:
			if n.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(n.Value)
			if err != nil {
				s = n.Value
			}
			text = s
		default:
			return true
		}
		if namesAGame(text) {
			p := fset.Position(n.Pos())
			out = append(out, named{filepath.ToSlash(p.Filename) + ":" + strconv.Itoa(p.Line), strconv.Quote(text)})
		}
		return true
	})
	return out
}

// namesAGame says whether text has a word that contains a game's word.
func namesAGame(text string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if slices.ContainsFunc(gameWords, func(g string) bool { return strings.Contains(w, g) }) {
			return true
		}
	}
	return false
}

// TestGameNamesAreFound checks the check on made-up code: an identifier, a string and an
// import (its path is a string) that name a game are found; a comment that does, and code that names none, are
// not.
func TestGameNamesAreFound(t *testing.T) {
	src := `package x

import "gauntlet/games/stlucia"

// A comment may say clue, stratego and 2310.
var stluciaPlayers = []string{"EAIT", "a b"}

func f() string { return "the 2310dealer says" + fmt.Sprint(2310) }
`
	var got []string
	for _, n := range gameNames(t, "x.go", []byte(src)) {
		got = append(got, n.pos+" "+n.text)
	}
	want := []string{`x.go:3 "gauntlet/games/stlucia"`, `x.go:6 "stluciaPlayers"`, `x.go:6 "EAIT"`, `x.go:8 "the 2310dealer says"`}
	if !slices.Equal(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
}
