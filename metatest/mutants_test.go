package metatest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"gauntlet/games/contract"
	dealer "gauntlet/games/dealer2310"
	"gauntlet/games/stlucia"
	"gauntlet/harness/execfile"
	"gauntlet/harness/grade"
)

// A mutantSpec is one single-behaviour bug put into a reference program (built only for
// these tests, with go build -overlay): the exact text old in file, relative to the module,
// becomes new in the build of the spec program prog. Mutation testing's question, asked of
// a conformance suite: does it fail the program (the mutant is killed), and does the bug
// cost marks only where it belongs?
type mutantSpec struct {
	name string // unique within its game
	prog string // the spec program it replaces ("2310A", "stlucia", "EAIT", ...)
	// category is the marking category the bug belongs to; also lists the other categories
	// whose cases mark the same behaviour (the comms-error category where the bug is one, or
	// the whole-game categories for a strategy rule, which every game plays). The mutant's
	// failed marked cases must all lie in these: a failure elsewhere is blast radius.
	category string
	also     []string
	// known lists categories where the bug is known to cost marks although it does not
	// belong there, each for a reason given in the library (e.g. comms-error cases that play
	// moves to reach their point): measured and reported as blast radius, but not failed.
	known    []string
	file     string
	old, new string
	// lenient: the bug is one of the documented alternatives the suite accepts, so the
	// mutant must survive, with PASS-LENIENT on the cases that see it (an equivalent
	// mutant by design); why says which alternative.
	lenient bool
	why     string
	// equivalent: the mutant's behaviour is one the suite does not (and need not) tell
	// apart from the reference's; it must survive, and this says why.
	equivalent string
}

// cmdPackage is the main package of a spec program.
func cmdPackage(prog string) string { return "gauntlet/cmd/" + prog }

// caseFilter is the -run filter of the cases in whose marked run a program takes part: the
// others run only reference programs in their marked run (their-hub+ref-players for a hub
// case, the mock hub and the subject's player for a player case), so no mutant of this
// program can change their marks.
var caseFilter = map[string]string{
	"dealer2310": "^player_", "stlucia": "^player_",
}

var hubFilter = map[string]string{"dealer2310": "^(dealer_|game_)", "stlucia": "^(hub_|game_)"}

var categories = map[string][]contract.Category{"dealer2310": dealer.Categories, "stlucia": stlucia.Categories}

var hubs = map[string]string{"dealer2310": "2310dealer", "stlucia": "stlucia"}

// mutantOutcome is what grading a mutant gave.
type mutantOutcome struct {
	spec     mutantSpec
	failed   map[string][]string // category -> failed marked cases
	lenient  []string            // marked cases passed leniently
	lost     map[string]float64  // category -> marks lost
	outside  float64             // marks lost outside the mutant's categories
	unknown  float64             // of which outside its known spread too
	report   string
	gradeErr string
}

func (o mutantOutcome) killed() bool { return len(o.failed) > 0 }

// gradeMutant builds the mutant and grades a submission made of it alone (the other spec
// programs are missing: the cases that need them in the subject's seat are BUILD-FAIL and
// are not counted here) on the cases where it takes part in the marked run.
func gradeMutant(t *testing.T, game string, m mutantSpec, totals map[string]int, maxMarks map[string]float64) mutantOutcome {
	t.Helper()
	bin := mutant(t, cmdPackage(m.prog), m.file, m.old, m.new)
	dir := t.TempDir()
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := execfile.Write(filepath.Join(dir, m.prog), data, 0o755); err != nil {
		t.Fatal(err)
	}
	filter := caseFilter[game]
	if m.prog == hubs[game] {
		filter = hubFilter[game]
	}
	args := []string{"-no-build", "-j", "6", "-run", filter}
	if d := os.Getenv(SuiteVar); d != "" {
		args = append(args, "-suite", d)
	}
	_, rep, text := gradeRun(t, game, append(args, dir)...)
	out := mutantOutcome{spec: m, failed: map[string][]string{}, lost: map[string]float64{}, report: text}
	own := map[string]bool{m.category: true}
	for _, c := range m.also {
		own[c] = true
	}
	for _, c := range rep.Cases {
		switch {
		case !c.Counted:
		case c.Verdict == grade.HarnessError:
			out.gradeErr += fmt.Sprintf("%s: %s; ", c.Name(), c.Detail)
		case c.Verdict == grade.BuildFail:
			// Another program of the submission, absent on purpose.
		case c.Verdict == grade.PassLenient:
			out.lenient = append(out.lenient, c.Name())
		case !c.Verdict.Passed():
			out.failed[c.Category] = append(out.failed[c.Category], c.Name()+" ("+string(c.Verdict)+")")
		}
	}
	known := map[string]bool{}
	for _, c := range m.known {
		known[c] = true
	}
	for cat, cases := range out.failed {
		if totals[cat] > 0 {
			out.lost[cat] = maxMarks[cat] * float64(len(cases)) / float64(totals[cat])
		}
		if !own[cat] {
			out.outside += out.lost[cat]
			if !known[cat] {
				out.unknown += out.lost[cat]
			}
		}
	}
	return out
}

// suiteTotals counts the cases of each category of a game's suite (each case is marked
// once: the denominators of the marks) and reads each category's marks from a grade report
// of the suite's explanation.
func suiteTotals(t *testing.T, game string) (map[string]int, map[string]float64) {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(here), "..", "testscripts", game)
	if d := os.Getenv(SuiteVar); d != "" {
		dir = d
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases of %s: %v", game, err)
	}
	totals := map[string]int{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(data), "\n") {
			if c, ok := strings.CutPrefix(l, "# category: "); ok {
				totals[strings.TrimSpace(c)]++
				break
			}
		}
	}
	marks := map[string]float64{}
	for _, c := range categories[game] {
		marks[c.Name] = c.Marks
	}
	return totals, marks
}

// checkLibrary grades every mutant of a game's library and checks the suite's adequacy:
// every mutant is killed (but the lenient ones, which must pass with PASS-LENIENT), and no
// mutant's failed marked cases lie outside its own categories. It logs the kill matrix.
func checkLibrary(t *testing.T, game string, lib []mutantSpec) {
	if testing.Short() {
		t.Skip("builds and grades every mutant of the library: full mode only")
	}
	names := map[string]bool{}
	for _, m := range lib {
		if names[m.name] {
			t.Fatalf("mutant %q twice", m.name)
		}
		names[m.name] = true
	}
	lib = selectMutants(lib)
	totals, maxMarks := suiteTotals(t, game)
	var mu sync.Mutex
	var outs []mutantOutcome
	t.Run("mutants", func(t *testing.T) {
		for _, m := range lib {
			t.Run(m.name, func(t *testing.T) {
				t.Parallel()
				o := gradeMutant(t, game, m, totals, maxMarks)
				mu.Lock()
				outs = append(outs, o)
				mu.Unlock()
				if o.gradeErr != "" {
					t.Errorf("harness errors: %s", o.gradeErr)
				}
				switch {
				case m.lenient && o.killed():
					t.Errorf("an accepted alternative (%s) failed: %v", m.why, o.failed)
				case m.lenient && len(o.lenient) == 0:
					t.Errorf("an accepted alternative (%s) passed without PASS-LENIENT anywhere", m.why)
				case m.equivalent != "" && o.killed():
					t.Errorf("a mutant listed as equivalent (%s) was killed: %v", m.equivalent, o.failed)
				case !m.lenient && m.equivalent == "" && !o.killed():
					t.Errorf("survived: no marked case of the suite fails this bug (category %s)", m.category)
				}
				if o.unknown > 0 {
					t.Errorf("blast radius %.2f marks outside %s %v (known: %v): %v", o.unknown, m.category, m.also, m.known, o.failed)
				}
				if t.Failed() {
					t.Logf("report:\n%s", o.report)
				}
			})
		}
	})
	sort.Slice(outs, func(i, j int) bool { return outs[i].spec.name < outs[j].spec.name })
	t.Log(killMatrix(game, outs))
}

// MutantsVar, set to "all" in the environment, makes the adequacy tests grade every mutant
// of each library. Otherwise (go test ./..., full mode) they grade a sample that keeps the
// run short: the first mutant of each marking category (in library order) and every mutant that
// must survive (the accepted alternatives and the equivalent ones). Grading one mutant
// takes about 3 s on 2 cores; the whole libraries, several minutes.
const MutantsVar = "GAUNTLET_MUTANTS"

// SuiteVar, set to a folder of cases, makes the adequacy tests grade the mutants with those
// cases instead of the built-in suite (gauntlet grade -suite): how the blast radius of an
// older suite was measured. The test then also fails where that suite is inadequate.
const SuiteVar = "GAUNTLET_MUTANT_SUITE"

func selectMutants(lib []mutantSpec) []mutantSpec {
	if os.Getenv(MutantsVar) == "all" {
		return lib
	}
	seen := map[string]bool{}
	var out []mutantSpec
	for _, m := range lib {
		key := m.category
		if !seen[key] || m.lenient || m.equivalent != "" {
			out = append(out, m)
		}
		seen[key] = true
	}
	return out
}

// killMatrix is the table of each mutant's failed marked cases by category, the survivors,
// and the largest blast radius.
func killMatrix(game string, outs []mutantOutcome) string {
	var b strings.Builder
	killed, largest, largestName := 0, 0.0, ""
	fmt.Fprintf(&b, "%s: kill matrix (mutant: category of its bug -> failed marked cases by category)\n", game)
	for _, o := range outs {
		if o.killed() {
			killed++
		}
		var cats []string
		for c, cases := range o.failed {
			cats = append(cats, fmt.Sprintf("%s %d", c, len(cases)))
		}
		sort.Strings(cats)
		state := "killed"
		switch {
		case o.spec.lenient && !o.killed():
			state = "survives (accepted alternative: " + o.spec.why + ")"
		case o.spec.equivalent != "" && !o.killed():
			state = "survives (equivalent: " + o.spec.equivalent + ")"
		case !o.killed():
			state = "SURVIVES"
		}
		if o.outside > 0 {
			state += fmt.Sprintf(", blast radius %.2f marks", o.outside)
		}
		fmt.Fprintf(&b, "  %-28s [%s] %s: %s\n", o.spec.name, o.spec.category, state, strings.Join(cats, ", "))
		if o.outside > largest {
			largest, largestName = o.outside, o.spec.name
		}
	}
	fmt.Fprintf(&b, "%d mutants, %d killed; largest blast radius outside the mutant's categories: %.2f marks (%s)\n",
		len(outs), killed, largest, largestName)
	return b.String()
}
