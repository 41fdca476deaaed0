package deps

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestTableIsTheRules reads the table of docs/architecture.md ("Layers") and fails unless
// it is the rules, row for row: each pattern of a row's folder column has the rule of that
// pattern, whose allow list is the row's last column (its backquoted patterns; the words
// around them are notes), and every rule has its row. A row whose last column quotes no
// pattern is data (no Go package), and no rule may place it. So a change of the layers
// is written twice, in the doc and in the rules, and neither can drift from the other. The
// rows whose job says "tests only" are testOnly's packages.
func TestTableIsTheRules(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(root(t), "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := layersTable(string(doc))
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range tableMismatches(rows, rules) {
		t.Error(msg)
	}
	var said []string
	for _, row := range rows {
		if row.testOnly {
			said = append(said, row.pkgs...)
		}
	}
	if slices.Sort(said); !slices.Equal(said, slices.Sorted(slices.Values(testOnly))) {
		t.Errorf("the rows that say \"tests only\" are %q, internal/deps's testOnly %q", said, testOnly)
	}
}

// A tableRow is a row of the layers table: the patterns of its folder column and of its
// last column, as import paths and allow-list patterns.
type tableRow struct {
	pkgs, allow []string
	testOnly    bool // its job says "tests only"
	line        string
}

var quoted = regexp.MustCompile("`([^`]*)`")

// layersTable parses the table that follows the "## Layers" heading.
func layersTable(doc string) ([]tableRow, error) {
	_, after, ok := strings.Cut(doc, "\n## Layers")
	if !ok {
		return nil, fmt.Errorf("no \"## Layers\" section in docs/architecture.md")
	}
	_, after, ok = strings.Cut(after, "\n| folder | job | may import |\n|---|---|---|\n")
	if !ok {
		return nil, fmt.Errorf("no table of folders in \"## Layers\"")
	}
	var rows []tableRow
	for line := range strings.SplitSeq(after, "\n") {
		if !strings.HasPrefix(line, "| ") {
			break
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 3 {
			return nil, fmt.Errorf("a row of the layers table has %d columns, not 3: %s", len(cells), line)
		}
		r := tableRow{line: line, testOnly: strings.Contains(cells[1], "tests only")}
		for _, m := range quoted.FindAllStringSubmatch(cells[0], -1) {
			r.pkgs = append(r.pkgs, inModule(m[1]))
		}
		for _, m := range quoted.FindAllStringSubmatch(cells[2], -1) {
			r.allow = append(r.allow, inModule(m[1]))
		}
		rows = append(rows, r)
	}
	if len(rows) < 30 {
		return nil, fmt.Errorf("read only %d rows of the layers table", len(rows))
	}
	return rows, nil
}

// inModule turns a pattern as the table writes it (a folder of this module, "std", or a
// module path) into the rules' form: this module's paths start with its name.
func inModule(p string) string {
	first, _, _ := strings.Cut(p, "/")
	if p == "std" || strings.Contains(first, ".") || first == module {
		return p
	}
	return module + "/" + p
}

// tableMismatches lists how rows and rs differ.
func tableMismatches(rows []tableRow, rs []rule) []string {
	var msgs []string
	seen := map[string]bool{}
	for _, row := range rows {
		for _, p := range row.pkgs {
			i := slices.IndexFunc(rs, func(r rule) bool { return r.pkg == p })
			switch {
			case len(row.allow) == 0 && i >= 0:
				msgs = append(msgs, "docs/architecture.md says "+p+" is data, but internal/deps has a rule for it")
			case len(row.allow) == 0:
			case i < 0:
				msgs = append(msgs, "docs/architecture.md has a row for "+p+", internal/deps no rule: "+row.line)
			default:
				seen[p] = true
				want := strings.Fields(rs[i].allow)
				slices.Sort(want)
				got := slices.Sorted(slices.Values(row.allow))
				if !slices.Equal(got, want) {
					msgs = append(msgs, "docs/architecture.md lets "+p+" import "+strings.Join(got, " ")+", internal/deps "+strings.Join(want, " "))
				}
			}
		}
	}
	for _, r := range rs {
		if !seen[r.pkg] {
			msgs = append(msgs, "internal/deps has a rule for "+r.pkg+", docs/architecture.md no row")
		}
	}
	return msgs
}

// TestTableMismatchesAreFound checks the comparison on a made-up table: a row that allows
// more than its rule, a rule without a row and a row without a rule are each named.
func TestTableMismatchesAreFound(t *testing.T) {
	doc := "# A\n\n## Layers\n\n| folder | job | may import |\n|---|---|---|\n" +
		"| `games/<game>` | engines | `std`, `games/judge` (a note) |\n" +
		"| `harness/runtime/lineio` | lines | `std`, `harness/runtime/tcp` |\n" +
		"| `harness/new` | new | `std` |\n" +
		"| `fixtures/<game>` | files | data |\n"
	for range 30 {
		doc += "| `cmd/...` | binaries | `std`, `gauntlet/...` |\n"
	}
	rows, err := layersTable(doc)
	if err != nil {
		t.Fatal(err)
	}
	rs := []rule{
		{"gauntlet/games/<game>", "std gauntlet/games/judge"},
		{"gauntlet/harness/runtime/lineio", "std"},
		{"gauntlet/harness/runtime/tcp", "std"},
		{"gauntlet/cmd/...", "std gauntlet/..."},
	}
	want := []string{
		"docs/architecture.md lets gauntlet/harness/runtime/lineio import gauntlet/harness/runtime/tcp std, internal/deps std",
		"docs/architecture.md has a row for gauntlet/harness/new, internal/deps no rule: | `harness/new` | new | `std` |",
		"internal/deps has a rule for gauntlet/harness/runtime/tcp, docs/architecture.md no row",
	}
	if got := tableMismatches(rows, rs); !slices.Equal(got, want) {
		t.Errorf("mismatches:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
