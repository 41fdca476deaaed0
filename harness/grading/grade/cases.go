package grade

import (
	"bufio"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/rogpeppe/go-internal/txtar"
)

// Case is one conformance script and what its header says about it (docs/suites.md).
type Case struct {
	ID          string // file name without .txtar, e.g. "hub_args_usage"
	Game        string // the suite's folder
	Title       string // the header's first line: the requirement in one sentence
	Section     string // spec section
	Category    string // marking category
	Requirement string // the spec's own words, when given
	Accept      string // what else is allowed, for "accept both" cases
	// Unmarked, when set, says why the case earns no marks: the spec does not fix what it
	// checks (docs/suites.md, "unmarked:"). It still runs and is reported, so that staff
	// and students see what the reference does, but none of its runs is counted.
	Unmarked string
	// Part is the part of its category's marks the case belongs to (the header's "part:"
	// line; "" when it has none): a category whose spec item names several things ("Arg
	// checking and initial path output") gives each part an equal share of its marks, and
	// each case an equal share of its part's (CaseWeights).
	Part string
	// Needs are the cases (by ID, of the same suite) this case can only reach its own
	// requirement through: the header's "needs:" line. When one of them failed, this
	// case's failure is charged there, not here (ChargedIn).
	Needs  []string
	Vars   []string // the program variables the script uses ($DEALER, $EAIT, ...)
	Script []byte
	// Waits: the case spends most of its time waiting (a mock that sleeps or hangs on
	// purpose, a signal sent after a delay), not computing; the grader runs such cases
	// beside the -j busy ones instead of in their slots.
	Waits bool
}

var varUse = lazyRegexp(`\$\{?([A-Z][A-Z0-9_]*)\}?`)

// waiting finds the commands that make a case wait on purpose: a mock player fault that
// sleeps or hangs, and a signal sent after a delay.
var waiting = lazyRegexp(`-fault '[^']*\b(sleep|hang)\b|^run .*-after `)

// mockhubFile finds the conversation file a mock hub plays (`mockhub [flags] FILE ...`),
// whose `sleep` lines make the case wait too.
var mockhubFile = lazyRegexp(`\bmockhub(?:\s+-\S+(?:\s+[^-\s]\S*)?)*\s+([^-\s$]\S*)`)

// conversationSleeps reports whether one of the named files of the case's archive has a
// `sleep` line: a pause the mock hub makes.
func conversationSleeps(script []byte, files map[string]bool) bool {
	for _, f := range txtar.Parse(script).Files {
		if !files[f.Name] {
			continue
		}
		for _, line := range strings.Split(string(f.Data), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "sleep ") {
				return true
			}
		}
	}
	return false
}

// LoadCases reads every .txtar case of a game's suite from fsys (folder game/).
// programVars is the set of variables that name programs under test.
func LoadCases(fsys fs.FS, game string, programVars map[string]bool) ([]Case, error) {
	entries, err := fs.ReadDir(fsys, game)
	if err != nil {
		return nil, err
	}
	var cases []Case
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".txtar") {
			continue
		}
		data, err := fs.ReadFile(fsys, path.Join(game, e.Name()))
		if err != nil {
			return nil, err
		}
		c, err := ParseCase(game, strings.TrimSuffix(e.Name(), ".txtar"), data, programVars)
		if err != nil {
			return nil, err
		}
		cases = append(cases, c)
	}
	sort.Slice(cases, func(i, j int) bool { return cases[i].ID < cases[j].ID })
	ids := map[string]bool{}
	for _, c := range cases {
		ids[c.ID] = true
	}
	for _, c := range cases {
		for _, n := range c.Needs {
			if !ids[n] || n == c.ID {
				return nil, fmt.Errorf("%s/%s: needs %q, which is not another case of the suite", game, c.ID, n)
			}
		}
	}
	return cases, partsAllOrNone(game, cases)
}

// partsAllOrNone checks that the cases of each category name their part all or none: a
// case without a part in a category with parts would make a part of its own ("") and take
// a share of the category's marks meant for the spec's parts.
func partsAllOrNone(game string, cases []Case) error {
	with, without := map[string]string{}, map[string]string{}
	for _, c := range cases {
		if c.Part != "" {
			with[c.Category] = c.ID
		} else {
			without[c.Category] = c.ID
		}
	}
	for cat, id := range with {
		if other, ok := without[cat]; ok {
			return fmt.Errorf("%s: category %q: %s names a part and %s does not (a category's cases name parts all or none)", game, cat, id, other)
		}
	}
	return nil
}

// ParseCase reads a case's header and the program variables its commands use.
func ParseCase(game, id string, script []byte, programVars map[string]bool) (Case, error) {
	c := Case{ID: id, Game: game, Script: script}
	sc := bufio.NewScanner(strings.NewReader(string(script)))
	header := true
	used := map[string]bool{}
	convs := map[string]bool{} // the files mock hubs play
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "-- ") && strings.HasSuffix(line, " --") {
			break // the archive's files start: no more commands
		}
		trimmed := strings.TrimSpace(line)
		if header && strings.HasPrefix(trimmed, "#") {
			text := strings.TrimSpace(strings.TrimPrefix(trimmed, "#"))
			key, val, ok := strings.Cut(text, ":")
			switch {
			case ok && key == "section":
				c.Section = strings.TrimSpace(val)
			case ok && key == "category":
				c.Category = strings.TrimSpace(val)
			case ok && key == "requirement":
				c.Requirement = strings.TrimSpace(val)
			case ok && key == "accept":
				c.Accept = strings.TrimSpace(val)
			case ok && key == "unmarked":
				c.Unmarked = strings.TrimSpace(val)
			case ok && key == "part":
				c.Part = strings.TrimSpace(val)
			case ok && key == "needs":
				c.Needs = append(c.Needs, strings.Fields(val)...)
			case c.Title == "" && text != "":
				c.Title = text
			}
			continue
		}
		if trimmed != "" {
			header = false
		}
		if strings.HasPrefix(trimmed, "#") {
			continue
		}
		if waiting().MatchString(trimmed) {
			c.Waits = true
		}
		if m := mockhubFile().FindStringSubmatch(trimmed); m != nil {
			convs[m[1]] = true
		}
		for _, m := range varUse().FindAllStringSubmatch(line, -1) {
			if programVars[m[1]] {
				used[m[1]] = true
			}
		}
	}
	if !c.Waits && len(convs) > 0 {
		c.Waits = conversationSleeps(script, convs)
	}
	for v := range used {
		c.Vars = append(c.Vars, v)
	}
	sort.Strings(c.Vars)
	if c.Category == "" {
		return c, fmt.Errorf("%s/%s: the header has no category line", game, id)
	}
	if c.Section == "" {
		return c, fmt.Errorf("%s/%s: the header has no section line", game, id)
	}
	return c, nil
}
