package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gauntlet/programs"
)

// The tests below catch the docs drifting from the code wherever a list can drift: the
// docs index, the games, the commands, each command's flags, the flag style.

func readDoc(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// mentionsFlag says whether text names -name as a flag (one dash, not part of a longer
// flag or word).
func mentionsFlag(text, name string) bool {
	return regexp.MustCompile(`(^|[\s\[(` + "`" + `|])-` + regexp.QuoteMeta(name) + `($|[^a-z0-9-])`).MatchString(text)
}

// definedFlags are the names of a flag set's flags, but -h and -help.
func definedFlags(fs *flag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name != "h" && f.Name != "help" {
			names = append(names, f.Name)
		}
	})
	return names
}

// The README's documentation index names every docs/*.md.
func TestReadmeIndexesEveryDoc(t *testing.T) {
	readme := readDoc(t, "README.md")
	docs, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("no docs: %v", err)
	}
	_, index, ok := strings.Cut(readme, "\n## Documentation\n")
	if !ok {
		t.Fatal("README.md has no Documentation section")
	}
	for _, d := range docs {
		if name := "`docs/" + filepath.Base(d) + "`"; !strings.Contains(index, name) {
			t.Errorf("README.md's Documentation section does not list %s", name)
		}
	}
}

// Every game gauntlet grades is named in the README's table of games and in
// docs/grading.md's list of games.
func TestDocsNameEveryGame(t *testing.T) {
	readme := readDoc(t, "README.md")
	_, grading, _ := strings.Cut(readDoc(t, "docs/grading.md"), "\nGames: ")
	grading, _, _ = strings.Cut(grading, ".")
	for _, g := range programs.GradeGames() {
		if !programs.BuiltIn(g) {
			continue // a game this package's tests register (toy_test.go): not gauntlet's
		}
		if !strings.Contains(readme, "\n| `"+g+"` (") {
			t.Errorf("README.md's table of games has no row for %s", g)
		}
		if !strings.Contains(grading, "`"+g+"`") {
			t.Errorf("docs/grading.md's \"Games:\" (%q) does not name %s", grading, g)
		}
	}
}

// Every command is in the top-level help and in the README; every command with a help of
// its own is offered by help's completion.
func TestCommandsDocumented(t *testing.T) {
	readme := readDoc(t, "README.md")
	help := usage()
	for _, c := range commands {
		if !strings.Contains(help, "\n  "+c+" ") && !strings.Contains(help, "\n  "+c+"\n") {
			t.Errorf("gauntlet help does not list the command %s", c)
		}
		if !strings.Contains(readme, "gauntlet "+c) {
			t.Errorf("README.md never shows the command %s (gauntlet %s)", c, c)
		}
	}
}

// Each command's help names every flag it defines, and the docs that list a command's flags
// name each of them: grade (docs/grading.md's table), merge (docs/grading.md), fuzz (docs/fuzzing.md's table), fuzz
// for the judged games (docs/clue.md, docs/fuzzing.md), tournament (docs/stratego.md,
// docs/referee.md) and adequacy (docs/mutants.md).
func TestEveryFlagInHelpAndDocs(t *testing.T) {
	helpOf := func(args ...string) string {
		var out, errs bytes.Buffer
		if code := run(append(args, "-help"), &out, &errs); code != 0 {
			t.Fatalf("%v -help: exit %d %s", args, code, errs.String())
		}
		return out.String()
	}
	fuzzFS, _ := fuzzFlags()
	judgedFS, _ := judgedFlags("clue")
	for _, tc := range []struct {
		cmd   []string
		flags []string // nil: those the help lists (its flags are printed from the flag set)
		docs  []string // where the flags are listed: each flag is in one of them
		skip  []string // flags the docs need not list
	}{
		{cmd: []string{"grade"}, docs: []string{"docs/grading.md"}},
		{cmd: []string{"fuzz"}, flags: definedFlags(fuzzFS), docs: []string{"docs/fuzzing.md"}},
		{cmd: []string{"fuzz", "clue"}, flags: definedFlags(judgedFS), docs: []string{"docs/clue.md"}},
		{cmd: []string{"tournament"}, docs: []string{"docs/stratego.md", "docs/referee.md"}},
		{cmd: []string{"adequacy"}, docs: []string{"docs/mutants.md"}},
		{cmd: []string{"merge"}, docs: []string{"docs/grading.md"}},
	} {
		help := helpOf(tc.cmd...)
		flags := tc.flags
		if flags == nil {
			for _, f := range commandFlags(tc.cmd[0]) {
				if f = strings.TrimLeft(f, "-"); f != "h" && f != "help" {
					flags = append(flags, f)
				}
			}
		}
		if len(flags) < 3 {
			t.Fatalf("%v: flags %v", tc.cmd, flags)
		}
		var docs string
		for _, d := range tc.docs {
			docs += readDoc(t, d)
		}
		for _, f := range flags {
			if !regexp.MustCompile(`(?m)^\s+-` + regexp.QuoteMeta(f) + `\b`).MatchString(help) {
				t.Errorf("gauntlet %s -help does not list -%s", strings.Join(tc.cmd, " "), f)
			}
			if !slices.Contains(tc.skip, f) && !mentionsFlag(docs, f) {
				t.Errorf("%s: no -%s (a flag of gauntlet %s)", strings.Join(tc.docs, ", "), f, strings.Join(tc.cmd, " "))
			}
		}
	}
}

// The README's and the docs' command lines use one flag style, one dash, as the help does.
func TestDocsOneFlagStyle(t *testing.T) {
	docs, _ := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	docs = append(docs, filepath.Join("..", "..", "README.md"))
	span := regexp.MustCompile("`[^`\n]+`")
	double := regexp.MustCompile(`(^|[\s\[(])--[a-z]`)
	for _, d := range docs {
		data, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		inBlock := false
		for i, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "```") {
				inBlock = !inBlock
				continue
			}
			var code []string
			if inBlock {
				code = []string{line}
			} else {
				code = span.FindAllString(line, -1)
			}
			for _, c := range code {
				if strings.Contains(c, "gauntlet ") && double.MatchString(c) {
					t.Errorf("%s:%d: a gauntlet command line with a two-dash flag: %s", filepath.Base(d), i+1, c)
				}
			}
		}
	}
}
