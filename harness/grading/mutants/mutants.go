// Package mutants holds the registry of the graded games' mutant libraries (each written
// in its game's judges/<game>judges and handed in by its registration) and what is needed to use
// them: building a mutant (go build -overlay, from the module's source), the cases in whose
// marked run its program takes part, and judging a grade report of it (killed or not, and
// the marks it costs outside its own marking category). Mutation testing's question, asked
// of a conformance suite: does it fail each single bug, and does each bug cost marks only
// where it belongs? The adequacy tests (acceptance) and `gauntlet adequacy` ask it.
//
// A mutant is one exact piece of source text replaced by another in one file, built into
// one spec program only (so a mutant of a shared file such as games/dealer2310/strategy.go
// is still one program's bug). Mutant binaries are built on demand in temporary folders and
// never shipped.
package mutants

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"gauntlet/harness/grading/grade"
)

// Mutant is one single-behaviour bug in a reference program.
type Mutant struct {
	Name string // unique within its game
	Prog string // the spec program it replaces ("2310A", "stlucia", "EAIT", ...)
	// Category is the marking category the bug belongs to; Also lists the other categories
	// whose cases mark the same behaviour (the comms-error category where the bug is one,
	// the whole-game categories for a strategy rule, which every game plays).
	Category string
	Also     []string
	// Known lists categories where the bug is known to cost marks although it does not
	// belong there, each for a reason given in docs/mutants.md: measured and reported as
	// blast radius, but not a failure of the adequacy test.
	Known []string
	File  string // relative to the module's root
	Old   string // exact text, once in File
	New   string
	// More are further changes built in with the first, for a mutant that stands for a
	// real submission's two behaviours at once, where the suite's fairness depends on how
	// they meet (an accepted alternative that leads into a bug another category marks:
	// the bug must cost marks once, there). Rare: a mutant is one bug.
	More []Edit
	// Lenient: the bug is one of the documented alternatives the suite accepts, so the
	// mutant must survive with PASS-LENIENT on the cases that see it; Why says which.
	Lenient bool
	Why     string
	// Equivalent, when set, says why the suite does not (and need not) tell the mutant
	// from the reference: it must survive.
	Equivalent string
}

// Edit is one exact piece of source text replaced by another.
type Edit struct {
	File string // relative to the module's root
	Old  string // exact text, once in File (after the edits before it)
	New  string
}

// Edits are the mutant's changes in the order they are made: its own, then More.
func (m Mutant) Edits() []Edit {
	return append([]Edit{{File: m.File, Old: m.Old, New: m.New}}, m.More...)
}

// Set is a game's mutant library, given with the game's registration (programs.Registration
// pushes it here with Register, so that this package needs no list of games).
type Set struct {
	Mutants []Mutant
	// Cases is the -run filter of the cases in whose marked run the program prog takes
	// part: every other case's marked run uses only reference programs (the reference hub
	// and players for a hub case; the mock hub and the subject's player for a player
	// case), so no mutant of prog can change its marks. CasesOfRole and CasesNamedAfter
	// are the two usual forms.
	Cases func(prog string) string
}

var sets = map[string]Set{}

// Register makes a game's mutant library known to Library, Filter and Games. A game
// registered twice, or a set without its Cases, panics.
func Register(game string, s Set) {
	if _, dup := sets[game]; dup || s.Cases == nil {
		panic("mutants: " + game + " registered twice, or without Cases")
	}
	sets[game] = s
}

// Library returns the mutant library of a game, or nil when it has none.
func Library(game string) []Mutant { return sets[game].Mutants }

// Games lists the games with a mutant library, sorted.
func Games() []string { return slices.Sorted(maps.Keys(sets)) }

// Filter is the -run filter of the cases in whose marked run the program prog of game
// takes part (Set.Cases); "" for a game without a library.
func Filter(game, prog string) string {
	s, ok := sets[game]
	if !ok {
		return ""
	}
	return s.Cases(prog)
}

// OwnCases narrows progFilter (Filter's, a regular expression of case ids) to the cases,
// among cases, of m's own categories (Category and Also): where the suite must kill m, or
// where an accepted alternative must show as PASS-LENIENT. Graded on those alone, a
// mutant's failures in other categories (its blast radius) go unmeasured: the adequacy
// tests grade their quick sample so, and the whole library on every case.
func OwnCases(m Mutant, cases []grade.Case, progFilter string) (string, error) {
	re, err := regexp.Compile(progFilter)
	if err != nil {
		return "", err
	}
	own := map[string]bool{m.Category: true}
	for _, c := range m.Also {
		own[c] = true
	}
	var ids []string
	for _, c := range cases {
		if own[c.Category] && re.MatchString(c.ID) {
			ids = append(ids, regexp.QuoteMeta(c.ID))
		}
	}
	if len(ids) == 0 {
		return "", fmt.Errorf("%s: no case of %s grades its category %q", m.Name, m.Prog, m.Category)
	}
	return "^(" + strings.Join(ids, "|") + ")$", nil
}

// CasesOfRole is the Cases of a game whose cases are named after the role they judge: the
// hub's, whose name starts as hubCases says (a regular expression without its ^), and the
// players', which start with "player_".
func CasesOfRole(hub, hubCases string) func(prog string) string {
	return func(prog string) string {
		if prog == hub {
			return "^" + hubCases
		}
		return "^player_"
	}
}

// CasesNamedAfter is the Cases of a game each of whose programs has cases of its own, named
// after it ("ttt-referee": ttt_referee_...).
func CasesNamedAfter(prog string) string {
	return "^" + strings.ReplaceAll(prog, "-", "_") + "_"
}

// WithTwins returns own followed by a twin of each mutant of own named in shared, for each
// program of prefixes (program -> the letter its mutants' names start with): the same
// change built into that program instead of the first, named with its letter ("E-lost-
// wording" in HABS is "B-lost-wording"). A twin already written in own is not made again.
func WithTwins(own []Mutant, shared []string, prefixes map[string]string) []Mutant {
	out := append([]Mutant(nil), own...)
	names := map[string]bool{}
	for _, m := range own {
		names[m.Name] = true
	}
	progs := make([]string, 0, len(prefixes))
	for p := range prefixes {
		progs = append(progs, p)
	}
	sort.Strings(progs)
	for _, name := range shared {
		i := slices.IndexFunc(own, func(m Mutant) bool { return m.Name == name })
		if i < 0 {
			panic("mutants: no mutant " + name + " to twin")
		}
		for _, p := range progs {
			t := own[i]
			_, rest, _ := strings.Cut(t.Name, "-")
			t.Name, t.Prog = prefixes[p]+"-"+rest, p
			if !names[t.Name] {
				names[t.Name] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// ModuleRoot finds the root of the gauntlet module's source from dir (go env GOMOD), which
// building a mutant needs.
func ModuleRoot(dir string) (string, error) {
	cmd := exec.Command("go", "env", "GOMOD")
	cmd.Dir = dir
	out, err := cmd.Output()
	mod := strings.TrimSpace(string(out))
	if err != nil || mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("mutants are built from the gauntlet module's source with the go command: run from its folder (go env GOMOD: %q, %v)", mod, err)
	}
	data, err := os.ReadFile(mod)
	if err != nil || !strings.HasPrefix(string(data), "module gauntlet\n") {
		return "", fmt.Errorf("%s is not the gauntlet module", mod)
	}
	return filepath.Dir(mod), nil
}

// Build builds m's program with its one change from the module at root into dir (go build
// -overlay) and returns the binary's path, named after the program. A program without a
// main package of its own (cmd/PROG: the referee protocol's example referees) is the
// gauntlet binary under the program's name, which runs as the program its file is named
// after.
func Build(m Mutant, root, dir string) (string, error) {
	patched := map[string]string{} // source file -> its text with the edits so far
	var order []string
	for _, e := range m.Edits() {
		src := filepath.Join(root, e.File)
		text, ok := patched[src]
		if !ok {
			data, err := os.ReadFile(src)
			if err != nil {
				return "", err
			}
			text, order = string(data), append(order, src)
		}
		if n := strings.Count(text, e.Old); n != 1 {
			return "", fmt.Errorf("mutant %s: the text to replace is in %s %d times, want once: %q", m.Name, e.File, n, e.Old)
		}
		patched[src] = strings.Replace(text, e.Old, e.New, 1)
	}
	replace := map[string]string{}
	for i, src := range order {
		file := filepath.Join(dir, fmt.Sprintf("src%d-%s", i, filepath.Base(src)))
		if err := os.WriteFile(file, []byte(patched[src]), 0o644); err != nil {
			return "", err
		}
		replace[src] = file
	}
	overlay := filepath.Join(dir, "overlay.json")
	js, _ := json.Marshal(map[string]map[string]string{"Replace": replace})
	if err := os.WriteFile(overlay, js, 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, m.Prog)
	pkg := "gauntlet/cmd/" + m.Prog
	if _, err := os.Stat(filepath.Join(root, "cmd", m.Prog)); err != nil {
		pkg = "gauntlet/cmd/gauntlet"
	}
	cmd := exec.Command("go", "build", "-overlay", overlay, "-o", bin, pkg)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building mutant %s: %v\n%s", m.Name, err, out)
	}
	return bin, nil
}

// Outcome is what grading a mutant gave.
type Outcome struct {
	Mutant  Mutant
	Failed  map[string][]string // category -> failed marked cases ("id (VERDICT)")
	Lenient []string            // marked cases passed leniently
	Lost    map[string]float64  // category -> marks lost
	Outside float64             // marks lost outside the mutant's own and Also categories
	Unknown float64             // of which outside its Known spread too
	// HarnessErrors lists cases the grader could not judge.
	HarnessErrors []string
}

// Killed reports whether a marked case failed.
func (o Outcome) Killed() bool { return len(o.Failed) > 0 }

// Judge reads the grade report of a submission made of the mutant alone (graded on
// Filter's cases): the cases that need one of the absent programs are BUILD-FAIL and not
// counted. A category's lost marks are its marks times the weights of its failed cases
// (grade.CaseWeights: its cases' equal shares, or its parts').
func Judge(m Mutant, rep *grade.Report) Outcome {
	o := Outcome{Mutant: m, Failed: map[string][]string{}, Lost: map[string]float64{}}
	failedWeight := map[string]float64{}
	for _, c := range rep.Cases {
		switch {
		case !c.Counted, c.ChargedIn != "":
		case c.Verdict == grade.HarnessError:
			o.HarnessErrors = append(o.HarnessErrors, c.Name()+": "+c.Detail)
		case c.Verdict == grade.BuildFail:
		case c.Verdict == grade.PassLenient:
			o.Lenient = append(o.Lenient, c.Name())
		case !c.Verdict.Passed():
			o.Failed[c.Category] = append(o.Failed[c.Category], c.Name()+" ("+string(c.Verdict)+")")
			failedWeight[c.Category] += c.Weight
		}
	}
	own, known := map[string]bool{m.Category: true}, map[string]bool{}
	for _, c := range m.Also {
		own[c] = true
	}
	for _, c := range m.Known {
		known[c] = true
	}
	for _, c := range rep.Categories {
		failed := len(o.Failed[c.Name])
		if failed == 0 || c.Cases == 0 {
			continue
		}
		o.Lost[c.Name] = c.MaxMarks * failedWeight[c.Name]
		if !own[c.Name] {
			o.Outside += o.Lost[c.Name]
			if !known[c.Name] {
				o.Unknown += o.Lost[c.Name]
			}
		}
	}
	return o
}

// Problems says how the outcome falls short of an adequate suite: a survivor that should
// have been killed, an accepted alternative or an equivalent mutant that failed, a lenient
// one that passed without PASS-LENIENT, blast radius outside the known spread, harness
// errors. None: the suite is adequate for this mutant.
func (o Outcome) Problems() []string {
	m := o.Mutant
	var p []string
	switch {
	case m.Lenient && o.Killed():
		p = append(p, fmt.Sprintf("an accepted alternative (%s) failed: %s", m.Why, o.failedList()))
	case m.Lenient && len(o.Lenient) == 0:
		p = append(p, fmt.Sprintf("an accepted alternative (%s) passed without PASS-LENIENT anywhere", m.Why))
	case m.Equivalent != "" && o.Killed():
		p = append(p, fmt.Sprintf("a mutant listed as equivalent (%s) was killed: %s", m.Equivalent, o.failedList()))
	case !m.Lenient && m.Equivalent == "" && !o.Killed():
		p = append(p, "survived: no marked case fails this bug (category "+m.Category+")")
	}
	if o.Unknown > 0 {
		p = append(p, fmt.Sprintf("blast radius %.2f marks outside %s %v (known %v): %s", o.Unknown, m.Category, m.Also, m.Known, o.failedList()))
	}
	if len(o.HarnessErrors) > 0 {
		p = append(p, "harness errors: "+strings.Join(o.HarnessErrors, "; "))
	}
	return p
}

func (o Outcome) failedList() string {
	var cats []string
	for c := range o.Failed {
		cats = append(cats, c)
	}
	sort.Strings(cats)
	var b strings.Builder
	for _, c := range cats {
		fmt.Fprintf(&b, "[%s: %s] ", c, strings.Join(o.Failed[c], ", "))
	}
	return strings.TrimSpace(b.String())
}

// Matrix is the kill matrix of a game's outcomes (mutant x category: failed marked cases),
// the survivors with the reason they survive, and the largest blast radius.
func Matrix(game string, outs []Outcome) string {
	outs = append([]Outcome(nil), outs...)
	sort.Slice(outs, func(i, j int) bool { return outs[i].Mutant.Name < outs[j].Mutant.Name })
	var b strings.Builder
	killed, largest, largestName := 0, 0.0, "none"
	var survivors []string
	fmt.Fprintf(&b, "%s: kill matrix (mutant [category of its bug]: failed marked cases by category)\n", game)
	for _, o := range outs {
		m := o.Mutant
		var cats []string
		for c, cases := range o.Failed {
			cats = append(cats, fmt.Sprintf("%s %d", c, len(cases)))
		}
		sort.Strings(cats)
		state := "killed"
		switch {
		case o.Killed():
			killed++
		case m.Lenient:
			state = "survives (accepted alternative)"
			survivors = append(survivors, fmt.Sprintf("  %s: accepted alternative: %s", m.Name, m.Why))
		case m.Equivalent != "":
			state = "survives (equivalent)"
			survivors = append(survivors, fmt.Sprintf("  %s: equivalent: %s", m.Name, m.Equivalent))
		default:
			state = "SURVIVES"
			survivors = append(survivors, fmt.Sprintf("  %s: SURVIVES: no case catches this %s bug", m.Name, m.Category))
		}
		if o.Outside > 0 {
			state += fmt.Sprintf(", blast radius %.2f marks", o.Outside)
		}
		fmt.Fprintf(&b, "  %-34s [%s] %s: %s\n", m.Name, m.Category, state, strings.Join(cats, ", "))
		if o.Outside > largest {
			largest, largestName = o.Outside, m.Name
		}
	}
	fmt.Fprintf(&b, "survivors (%d):\n", len(survivors))
	for _, s := range survivors {
		b.WriteString(s + "\n")
	}
	fmt.Fprintf(&b, "%s: %d mutants, %d killed, %d survive; largest blast radius outside the mutant's categories: %.2f marks (%s)\n",
		game, len(outs), killed, len(outs)-killed, largest, largestName)
	return b.String()
}
