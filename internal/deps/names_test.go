package deps

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestPackageNames checks that no two packages share a name (but main), so that no import
// needs another name to tell them apart.
func TestPackageNames(t *testing.T) {
	if msgs := collisions(load(t, root(t))); len(msgs) > 0 {
		t.Error("packages share a name; rename one so that each name says what it is:\n\t" + strings.Join(msgs, "\n\t"))
	}
}

// collisions lists each name two packages or more share, with their paths.
func collisions(pkgs []pkg) []string {
	byName := map[string][]string{}
	for _, p := range pkgs {
		if p.name != "main" {
			byName[p.name] = append(byName[p.name], p.path)
		}
	}
	var msgs []string
	for name, paths := range byName {
		if len(paths) > 1 {
			msgs = append(msgs, fmt.Sprintf("%s: %s", name, strings.Join(paths, ", ")))
		}
	}
	slices.Sort(msgs)
	return msgs
}

// TestCollisionsAreFound checks the check: two packages of one name are named, two mains
// are not.
func TestCollisionsAreFound(t *testing.T) {
	got := collisions([]pkg{{path: "gauntlet/a/x", name: "x"}, {path: "gauntlet/b/x", name: "x"}, {path: "gauntlet/cmd/a", name: "main"}, {path: "gauntlet/cmd/b", name: "main"}})
	if want := []string{"x: gauntlet/a/x, gauntlet/b/x"}; !slices.Equal(got, want) {
		t.Errorf("collisions = %q, want %q", got, want)
	}
}
