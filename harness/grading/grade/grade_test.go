package grade

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"gauntlet/games/contract"
	"gauntlet/harness/box/execfile"
	"gauntlet/harness/grading/build"
	"gauntlet/internal/buildtest"
)

var toy = Game{
	Name: "toy",
	Programs: []Program{
		{Var: "HUB", Name: "toyhub", Role: "hub"},
		{Var: "PLAYER", Name: "toyplayer", Role: "players"},
	},
	Categories: []contract.Category{
		{Name: "hub/basics", Program: "toyhub", Marks: 4},
		{Name: "player/basics", Program: "toyplayer", Marks: 2},
	},
	Timeout: 2 * time.Second,
}

// The reference toy player prints "^" and echoes one line; the toy hub runs the player
// named by its argument and prints what it said.
const refPlayer = "#!/bin/sh\nprintf '^'\nread x\necho \"echo $x\"\n"
const refHub = "#!/bin/sh\necho hello | \"$1\"\necho\necho done\n"

func header(cat string) string { return "# t\n# section: s\n# category: " + cat + "\n" }

var toyCases = fstest.MapFS{
	"toy/pass.txtar":         {Data: []byte(header("player/basics") + "run $PLAYER\nstdout '^\\^echo $'\n")},
	"toy/wrong_exit.txtar":   {Data: []byte(header("player/basics") + "run -status 3 $PLAYER\n")},
	"toy/wrong_stdout.txtar": {Data: []byte(header("player/basics") + "run $PLAYER\ncmp stdout want\n-- want --\nsomething else\n")},
	"toy/wrong_stderr.txtar": {Data: []byte(header("player/basics") + "run $PLAYER\ncmp stderr want\n-- want --\nan error\n")},
	"toy/lenient.txtar":      {Data: []byte(header("player/basics") + "run -status 5,0 $PLAYER\n")},
	"toy/protocol.txtar":     {Data: []byte(header("player/basics") + "run mockhub conv $PLAYER\n-- conv --\nhello \"^\"\nsend \"hi\"\nexpect \"echo hello\"\n")},
	"toy/hub_pairs.txtar":    {Data: []byte(header("hub/basics") + "run $HUB $PLAYER\nstdout '^\\^echo hello$'\nstdout '^done$'\n")},
}

func setup(t testing.TB, subjectPlayer string) (Subject, Options) {
	t.Helper()
	bin := t.TempDir()
	gauntlet := buildtest.Path(t, "gauntlet/cmd/gauntlet")
	if err := os.Symlink(gauntlet, filepath.Join(bin, "mockhub")); err != nil {
		t.Fatal(err)
	}
	write := func(dir, name, body string) string {
		p := filepath.Join(dir, name)
		if err := execfile.Write(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write(bin, "toyplayer", refPlayer)
	write(bin, "toyhub", refHub)
	subj := t.TempDir()
	return Subject{Name: "s", Programs: map[string]string{
		"toyplayer": write(subj, "toyplayer", subjectPlayer),
		"toyhub":    write(subj, "toyhub", refHub),
	}}, Options{Jobs: 4, BinDir: bin, Scratch: t.TempDir()}
}

func verdicts(outs []Outcome) map[string]Verdict {
	m := map[string]Verdict{}
	for _, o := range outs {
		key := o.Case.ID
		if o.Pairing != Theirs {
			key += "@" + string(o.Pairing)
		}
		m[key] = o.Verdict
	}
	return m
}

// TestMain lets more tests run at once than there are cores: many wait on a subject's
// timeout or on cases that wait on purpose.
func TestMain(m *testing.M) {
	buildtest.WaitingTests()
	os.Exit(m.Run())
}

func TestGradeReferenceLikeSubject(t *testing.T) {
	cases, err := LoadCases(toyCases, "toy", toy.ProgramVars())
	if err != nil {
		t.Fatal(err)
	}
	subj, opt := setup(t, refPlayer)
	outs := Run(toy, cases, subj, opt)
	got := verdicts(outs)
	want := map[string]Verdict{
		"pass": Pass, "wrong_exit": WrongExit, "wrong_stdout": WrongStdout, "wrong_stderr": WrongStderr,
		"lenient": PassLenient, "protocol": Protocol,
		"hub_pairs@their-hub+ref-players": Pass, "hub_pairs@ref-hub+their-players": Pass,
		"hub_pairs@their-hub+their-players": Pass,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s, want %s", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d outcomes, want %d: %v", len(got), len(want), got)
	}
	for _, o := range outs {
		if o.Verdict == HarnessError {
			t.Logf("%s log:\n%s", o.Case.ID, o.Log)
		}
		if o.Case.ID == "wrong_stdout" && !strings.Contains(o.Detail, `at line 1, want "something else", got "^echo "`) {
			t.Errorf("wrong_stdout detail %q", o.Detail)
		}
		if o.Case.ID == "protocol" && !strings.Contains(o.Detail, `want "echo hello\n", got "echo hi\n"`) {
			t.Errorf("protocol detail %q", o.Detail)
		}
		if o.Case.ID == "hub_pairs" && o.Counted != (o.Pairing == TheirHub) {
			t.Errorf("hub_pairs counted in %s: %v", o.Pairing, o.Counted)
		}
	}
	marks := Marks(toy, outs)
	// hub: 1 of 1 counted case passed; player: pass and lenient of 6 cases passed.
	if marks[0].Marks != 4 || marks[1].Cases != 6 || marks[1].Passed != 2 {
		t.Errorf("marks %+v", marks)
	}
}

func TestGradeBrokenSubjects(t *testing.T) {
	t.Parallel() // the hang waits for its timeout: beside the other tests, not before them
	tests := []struct {
		name, player string
		want         Verdict
	}{
		{"crash", "#!/bin/sh\nkill -SEGV $$\n", Crash},
		{"hang", "#!/bin/sh\nexec sleep 30\n", Timeout},
		{"leaves a process", "#!/bin/sh\nsleep 30 &\nprintf '^'\nread x\necho \"echo $x\"\n", Hygiene},
	}
	cases, err := LoadCases(toyCases, "toy", toy.ProgramVars())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			subj, opt := setup(t, tc.player)
			opt.Run = regexp.MustCompile(`^pass$`)
			// The hang's deadline is short; the others end at once, and their deadline leaves
			// room for a loaded machine (a run again of the HYGIENE is alone of its grade,
			// not of the other subtests' beside it).
			opt.Timeout = 5 * time.Second
			if tc.want == Timeout {
				opt.Timeout = 500 * time.Millisecond
			}
			outs := Run(toy, cases, subj, opt)
			if len(outs) != 1 || outs[0].Verdict != tc.want {
				t.Fatalf("outcomes %+v", outs)
			}
		})
	}
}

// The reference programs reach a subject's hub as paths, as a course passes them: a hub
// that starts its players without a PATH search (execl) plays with them.
func TestReferenceProgramsArePaths(t *testing.T) {
	cases, err := LoadCases(toyCases, "toy", toy.ProgramVars())
	if err != nil {
		t.Fatal(err)
	}
	subj, opt := setup(t, refPlayer)
	execl := "#!/bin/sh\ncase \"$1\" in */*) ;; *) echo \"no path: $1\" >&2; exit 9;; esac\n" + strings.TrimPrefix(refHub, "#!/bin/sh\n")
	if err := os.WriteFile(subj.Programs["toyhub"], []byte(execl), 0o755); err != nil {
		t.Fatal(err)
	}
	opt.Run = regexp.MustCompile(`^hub_pairs$`)
	got := verdicts(Run(toy, cases, subj, opt))
	if got["hub_pairs@their-hub+ref-players"] != Pass {
		t.Errorf("a hub that needs paths, with the reference players: %v", got)
	}
}

func TestMissingProgramIsBuildFail(t *testing.T) {
	cases, err := LoadCases(toyCases, "toy", toy.ProgramVars())
	if err != nil {
		t.Fatal(err)
	}
	subj, opt := setup(t, refPlayer)
	delete(subj.Programs, "toyplayer")
	opt.Run = regexp.MustCompile(`^(pass|hub_pairs)$`)
	got := verdicts(Run(toy, cases, subj, opt))
	if got["pass"] != BuildFail || got["hub_pairs@ref-hub+their-players"] != BuildFail || got["hub_pairs@their-hub+ref-players"] != Pass {
		t.Fatalf("verdicts %v", got)
	}
}

// With ProgramsOptional, a subject that built the player only is graded on the player:
// the case runs that would start its hub are not made (no BUILD-FAIL), the report leaves
// the hub's category out of the marks, and CaseRuns counts only what runs. A subject that
// built nothing still fails every case as BUILD-FAIL.
func TestOptionalProgramsGradeWhatWasBuilt(t *testing.T) {
	cases, err := LoadCases(toyCases, "toy", toy.ProgramVars())
	if err != nil {
		t.Fatal(err)
	}
	either := toy
	either.ProgramsOptional = true
	subj, opt := setup(t, refPlayer)
	delete(subj.Programs, "toyhub")
	opt.Run = regexp.MustCompile(`^(pass|hub_pairs)$`)
	outs := Run(either, cases, subj, opt)
	got := verdicts(outs)
	want := map[string]Verdict{"pass": Pass, "hub_pairs@ref-hub+their-players": Pass}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("verdicts %v, want %v", got, want)
	}
	if n := either.CaseRuns(selected(cases, opt.Run), subj); n != 2 {
		t.Errorf("CaseRuns %d, want 2", n)
	}
	b := &build.Result{OK: true, Programs: subj.Programs, Missing: []string{"toyhub"}}
	rep := NewReport(either, "s", time.Now(), b, outs)
	if len(rep.Categories) != 1 || rep.Categories[0].Name != "player/basics" || rep.MaxMarks != 2 || rep.TotalText() != "2.00" {
		t.Errorf("report: %+v, %v/%v", rep.Categories, rep.TotalText(), rep.MaxMarks)
	}
	// Without the option (the toy game as registered), the same subject's hub cases fail.
	if got := verdicts(Run(toy, cases, subj, opt)); got["hub_pairs@their-hub+ref-players"] != BuildFail {
		t.Errorf("programs not optional: %v", got)
	}
	if rep := NewReport(toy, "s", time.Now(), b, outs); rep.MaxMarks != 6 {
		t.Errorf("programs not optional: max marks %v, want 6", rep.MaxMarks)
	}
	// Nothing built: every case is BUILD-FAIL.
	none := Subject{Name: "s", Programs: map[string]string{}}
	nothing := verdicts(Run(either, cases, none, opt))
	if len(nothing) != 4 {
		t.Errorf("nothing built: %v, want the 4 case runs", nothing)
	}
	for k, v := range nothing {
		if v != BuildFail {
			t.Errorf("nothing built: %s is %s", k, v)
		}
	}
}

func selected(cases []Case, run *regexp.Regexp) []Case {
	var out []Case
	for _, c := range cases {
		if run.MatchString(c.ID) {
			out = append(out, c)
		}
	}
	return out
}

func TestParseCase(t *testing.T) {
	c, err := ParseCase("g", "id", []byte("# The hub checks its arguments.\n# section: Exits\n# category: hub/args\n# accept: exit 6 too\n\nrun $HUB $EAIT # $MABS in a comment\n-- f --\n$PLAYER\n"),
		map[string]bool{"HUB": true, "EAIT": true, "MABS": true, "PLAYER": true})
	if err != nil {
		t.Fatal(err)
	}
	if c.Title != "The hub checks its arguments." || c.Section != "Exits" || c.Category != "hub/args" ||
		c.Accept != "exit 6 too" || strings.Join(c.Vars, ",") != "EAIT,HUB,MABS" {
		t.Fatalf("case %+v", c)
	}
	if _, err := ParseCase("g", "x", []byte("# no category\n# section: s\nrun x\n"), nil); err == nil {
		t.Error("a case without a category was accepted")
	}
}

func TestFirstDiff(t *testing.T) {
	tests := []struct{ log, want string }{
		{"> cmp stderr w\ndiff stderr w\n--- stderr\n+++ w\n@@ -1,4 +1,4 @@\n Player A rolled 1\n Player B rolled 2\n-Player A wins\n+Player B wins\n\nFAIL: x", `: at line 3, want "Player B wins", got "Player A wins"`},
		{"@@ -1,2 +1,1 @@\n a\n-extra\n\n", `: at line 2, want nothing more, got "extra"`},
		{"@@ -5,2 +5,3 @@\n a\n b\n+missing\n\n", `: at line 7, want "missing", got nothing more`},
		// A line left out, then the program's next line: it has that line, not nothing more.
		{"@@ -5,3 +5,4 @@\n a\n b\n+missing\n c\n\n", `: at line 7, want "missing", got "c"`},
		{"@@ -1,3 +1,2 @@\n a\n-extra\n b\n\n", `: at line 2, want "b", got "extra"`},
		{"no diff here", ""},
		// The same text but for the final newline: the side without it is marked.
		{"@@ -1,1 +1,1 @@\n-Invalid player count\n\\ No newline at end of file\n+Invalid player count\n\nFAIL: x", `: at line 1, want "Invalid player count", got "Invalid player count" [no newline]`},
		{"@@ -1,1 +1,1 @@\n-ok\n+ok\n\\ No newline at end of file\n\nFAIL: x", `: at line 1, want "ok" [no newline], got "ok"`},
	}
	for _, tc := range tests {
		if got := firstDiff(tc.log); got != tc.want {
			t.Errorf("firstDiff(%q) = %q, want %q", tc.log, got, tc.want)
		}
	}
}

// TestSandboxUsers checks Options.SandboxUsers: a root grader runs the subject as a user
// of its own (never root, never the grader), handed the case's folder so that it can
// write there; any other grader runs it as itself.
func TestSandboxUsers(t *testing.T) {
	cases, err := LoadCases(fstest.MapFS{
		"toy/uid.txtar": {Data: []byte(header("player/basics") + "run -nofiles $PLAYER\n")},
	}, "toy", toy.ProgramVars())
	if err != nil {
		t.Fatal(err)
	}
	// The player says who it is and proves it may write in its folder (the file it leaves
	// is a finding under -nofiles, so the case is HYGIENE, and its log shows the uid).
	player := "#!/bin/sh\nid -u >&2\nid -u > mine\n"
	subj, opt := setup(t, player)
	opt.SandboxUsers = true
	opt.BinDir = "" // its mockhub leads into the test's private build folder; not needed here
	searchable(t, opt.Scratch)
	searchable(t, filepath.Dir(subj.Programs["toyplayer"]))
	me := strconv.Itoa(os.Geteuid())
	uidOf := func(subj Subject) string {
		t.Helper()
		outs := Run(toy, cases, subj, opt)
		if len(outs) != 1 {
			t.Fatalf("outcomes %+v", outs)
		}
		o := outs[0]
		m := regexp.MustCompile(`(?m)^\[stderr\]\n(\d+)$`).FindStringSubmatch(o.Log)
		if m == nil {
			t.Fatalf("no uid in the log (verdict %s):\n%s", o.Verdict, o.Log)
		}
		if o.Verdict != Hygiene || !strings.Contains(o.Detail, "mine") {
			t.Errorf("verdict %s (%s), want %s for the file mine", o.Verdict, o.Detail, Hygiene)
		}
		return m[1]
	}

	if os.Geteuid() != 0 {
		// No box without root: every case is refused, never run unprotected...
		if outs := Run(toy, cases, subj, opt); len(outs) != 1 || outs[0].Verdict != HarnessError {
			t.Errorf("a grader that is not root graded an untrusted subject: %+v", outs)
		}
		// ...unless asked to, and then as the grader's own user.
		opt.Unsafe = true
		if uid := uidOf(subj); uid != me {
			t.Errorf("the subject ran as uid %s, want the grader's own %s", uid, me)
		}
		return
	}
	if err := BoxProblem(); err != nil {
		t.Fatalf("a root grader on this machine has no box: %v", err)
	}
	if uid := uidOf(subj); uid == "0" || uid == me {
		t.Errorf("the subject ran as uid %s under a root grader, want a sandbox user", uid)
	}

	// A script in a folder the sandbox user cannot search (the grader publishes the
	// programs it builds where they can, so only a caller's own paths can do this): the case
	// is the grader's failure, and the script never runs as root.
	private := filepath.Join(filepath.Dir(subj.Programs["toyplayer"]), "private")
	if err := os.Mkdir(private, 0o700); err != nil {
		t.Fatal(err)
	}
	hidden := filepath.Join(private, "toyplayer")
	if err := os.Rename(subj.Programs["toyplayer"], hidden); err != nil {
		t.Fatal(err)
	}
	subj.Programs["toyplayer"] = hidden
	outs := Run(toy, cases, subj, opt)
	if len(outs) != 1 || outs[0].Verdict != HarnessError || strings.Contains(outs[0].Log, "[stderr]\n0\n") {
		t.Errorf("an unreachable script: %+v, want HARNESS-ERROR without running it", outs)
	}
}

// Pairings follow the roles a case uses: one role runs once, two or more run every choice
// of the subject's roles, the category's role alone first.
func TestPairings(t *testing.T) {
	three := Game{
		Name: "three",
		Programs: []Program{
			{Var: "A", Name: "alpha", Role: "alpha"},
			{Var: "B1", Name: "beta1", Role: "beta"}, {Var: "B2", Name: "beta2", Role: "beta"},
			{Var: "C", Name: "gamma", Role: "gamma"},
		},
		Categories: []contract.Category{
			{Name: "beta/x", Program: "beta2"}, {Name: "gamma/x", Program: "gamma"}, {Name: "none/x", Program: "nobody"},
		},
	}
	tests := []struct {
		g    Game
		cat  string
		vars []string
		want []Pairing
	}{
		{toy, "hub/basics", []string{"HUB"}, []Pairing{Theirs}},
		{toy, "player/basics", []string{"PLAYER"}, []Pairing{Theirs}},
		{toy, "hub/basics", []string{"HUB", "PLAYER"}, []Pairing{TheirHub, TheirPlayers, TheirHubTheir}},
		{toy, "player/basics", []string{"PLAYER", "HUB"}, []Pairing{TheirPlayers, TheirHub, TheirHubTheir}},
		{three, "beta/x", []string{"B1", "B2"}, []Pairing{Theirs}},
		{three, "gamma/x", []string{"A", "B1"}, []Pairing{"their-alpha+ref-beta", "ref-alpha+their-beta", "their-alpha+their-beta"}},
		{three, "beta/x", []string{"C", "A", "B1"}, []Pairing{
			"ref-alpha+their-beta+ref-gamma", "their-alpha+ref-beta+ref-gamma", "ref-alpha+ref-beta+their-gamma",
			"their-alpha+their-beta+ref-gamma", "ref-alpha+their-beta+their-gamma", "their-alpha+ref-beta+their-gamma",
			"their-alpha+their-beta+their-gamma",
		}},
		{three, "none/x", []string{"C", "B2"}, []Pairing{"their-beta+ref-gamma", "ref-beta+their-gamma", "their-beta+their-gamma"}},
	}
	for _, tc := range tests {
		got := tc.g.Pairings(Case{Category: tc.cat, Vars: tc.vars})
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s %v: %v, want %v", tc.cat, tc.vars, got, tc.want)
		}
	}
	for _, tc := range []struct {
		v    string
		p    Pairing
		want bool
	}{
		{"B1", "ref-alpha+their-beta+ref-gamma", true},
		{"B2", "ref-alpha+their-beta+ref-gamma", true},
		{"A", "ref-alpha+their-beta+ref-gamma", false},
		{"C", "their-alpha+ref-beta+their-gamma", true},
		{"A", Theirs, true},
	} {
		if got := three.theirsIn(tc.v, tc.p); got != tc.want {
			t.Errorf("theirsIn(%s, %s) = %v", tc.v, tc.p, got)
		}
	}
}

// A case's folder is removed after its slot is given to the next case, but before Run
// returns: nothing of the cases is left in the scratch folder.
func TestCaseFoldersGoneWhenRunReturns(t *testing.T) {
	t.Parallel()
	files := fstest.MapFS{}
	for i := range 6 {
		files[fmt.Sprintf("toy/c%d.txtar", i)] = &fstest.MapFile{Data: []byte(header("player/basics") + "run $PLAYER\nstdout '^\\^echo $'\n")}
	}
	cases, err := LoadCases(files, "toy", toy.ProgramVars())
	if err != nil {
		t.Fatal(err)
	}
	subj, opt := setup(t, refPlayer)
	opt.Jobs = 2
	outs := Run(toy, cases, subj, opt)
	if len(outs) != 6 {
		t.Fatalf("%d outcomes", len(outs))
	}
	for _, o := range outs {
		if o.Verdict != Pass {
			t.Errorf("%s: %s %s", o.Case.ID, o.Verdict, o.Detail)
		}
	}
	left, err := os.ReadDir(opt.Scratch)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range left {
		t.Errorf("left in the scratch folder: %s", e.Name())
	}
}

// A caller that stops the grade on an outcome (-failfast) is told before the case's slot
// is free: with one slot, no case starts after the first failure.
func TestStopOnAnOutcomeStartsNoMoreCases(t *testing.T) {
	t.Parallel()
	files := fstest.MapFS{}
	for i := range 4 {
		files[fmt.Sprintf("toy/c%d.txtar", i)] = &fstest.MapFile{Data: []byte(header("player/basics") + "run $PLAYER\nstdout '^\\^echo $'\n")}
	}
	cases, err := LoadCases(files, "toy", toy.ProgramVars())
	if err != nil {
		t.Fatal(err)
	}
	subj, opt := setup(t, "#!/bin/sh\necho wrong\n")
	opt.Jobs = 1
	stop := make(chan struct{})
	var once sync.Once
	opt.Stop = stop
	opt.OnOutcome = func(o Outcome) {
		if !o.Verdict.Passed() {
			once.Do(func() { close(stop) })
		}
	}
	if outs := Run(toy, cases, subj, opt); len(outs) != 1 {
		t.Errorf("%d case runs after a stop on the first failure, want 1: %+v", len(outs), outs)
	}
}

// TestUnmarkedCaseRunsButCountsNowhere checks the header's "unmarked:" line: the case runs
// and its failure is reported with the reason, but none of its runs is counted, so the
// category's marks are those of its other cases (here: full marks, where a counted failure
// would halve them).
func TestUnmarkedCaseRunsButCountsNowhere(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"toy/pass.txtar":     toyCases["toy/pass.txtar"],
		"toy/unmarked.txtar": {Data: []byte(header("player/basics") + "# unmarked: the spec is silent on this\nrun -status 3 $PLAYER\n")},
	}
	cases, err := LoadCases(fsys, "toy", toy.ProgramVars())
	if err != nil {
		t.Fatal(err)
	}
	if cases[1].ID != "unmarked" || cases[1].Unmarked != "the spec is silent on this" {
		t.Fatalf("case %+v", cases[1])
	}
	subj, opt := setup(t, refPlayer)
	opt.Run = regexp.MustCompile(`^(pass|unmarked)$`)
	outs := Run(toy, cases, subj, opt)
	if v := verdicts(outs); v["unmarked"] != WrongExit || v["pass"] != Pass {
		t.Fatalf("verdicts %v", v)
	}
	for _, o := range outs {
		if o.Case.ID == "unmarked" && o.Counted {
			t.Error("the unmarked case's run is counted")
		}
	}
	for _, cm := range Marks(toy, outs) {
		if cm.Category.Name == "player/basics" && (cm.Cases != 1 || cm.Marks != 2) {
			t.Errorf("player/basics: %d cases, %.2f marks; want 1 case, 2 marks", cm.Cases, cm.Marks)
		}
	}
	var b strings.Builder
	NewReport(toy, "s", time.Now(), nil, outs).WriteSummary(&b, false)
	if !strings.Contains(b.String(), "(not marked: the spec does not fix it)") || !strings.Contains(b.String(), "not marked: the spec is silent on this") {
		t.Errorf("the report does not say the case is not marked, and why:\n%s", b.String())
	}
}

// A category whose cases name parts gives each part an equal share of its marks, and each
// case an equal share of its part's: one case of part "usage" weighs as much as the two of
// part "deck" together. A run that is not counted weighs nothing and is left out of its
// part's count; a harness error carries its weight, as lost, and leaves the category
// incomplete. Without parts, every case weighs the same.
func TestCaseWeightsSplitACategoryByItsParts(t *testing.T) {
	mk := func(id, cat, part string, counted bool, v Verdict) Outcome {
		return Outcome{Case: &Case{ID: id, Category: cat, Part: part}, Counted: counted, Verdict: v}
	}
	outs := []Outcome{
		mk("usage", "hub/basics", "usage", true, Pass),
		mk("deck1", "hub/basics", "deck", true, WrongExit),
		mk("deck2", "hub/basics", "deck", true, Pass),
		mk("deck3", "hub/basics", "deck", true, HarnessError),
		mk("deck2@pairing", "hub/basics", "deck", false, Pass),
		mk("p1", "player/basics", "", true, Pass),
		mk("p2", "player/basics", "", true, WrongExit),
		mk("p3", "player/basics", "", true, Pass),
	}
	want := []float64{0.5, 1.0 / 6, 1.0 / 6, 1.0 / 6, 0, 1.0 / 3, 1.0 / 3, 1.0 / 3}
	got := CaseWeights(outs)
	for i := range want {
		if d := got[i] - want[i]; d > 1e-9 || d < -1e-9 {
			t.Errorf("%s: weight %.4f, want %.4f", outs[i].Case.ID, got[i], want[i])
		}
	}
	for _, cm := range Marks(toy, outs) {
		want := map[string]float64{"hub/basics": 4 * (0.5 + 1.0/6), "player/basics": 2 * 2.0 / 3}[cm.Category.Name]
		if d := cm.Marks - want; d > 1e-9 || d < -1e-9 {
			t.Errorf("%s: %.4f marks, want %.4f", cm.Category.Name, cm.Marks, want)
		}
		if complete := cm.Category.Name != "hub/basics"; cm.Complete() != complete {
			t.Errorf("%s: complete %v, want %v", cm.Category.Name, cm.Complete(), complete)
		}
	}
}

// A category's cases name parts all or none: a suite that mixes them is refused.
func TestPartsAllOrNone(t *testing.T) {
	fsys := fstest.MapFS{
		"toy/a.txtar": {Data: []byte(header("player/basics") + "# part: usage\nrun $PLAYER\n")},
		"toy/b.txtar": {Data: []byte(header("player/basics") + "run $PLAYER\n")},
	}
	if _, err := LoadCases(fsys, "toy", toy.ProgramVars()); err == nil || !strings.Contains(err.Error(), "all or none") {
		t.Errorf("a category with and without parts: %v", err)
	}
	fsys["toy/b.txtar"] = &fstest.MapFile{Data: []byte(header("player/basics") + "# part: deck\nrun $PLAYER\n")}
	cases, err := LoadCases(fsys, "toy", toy.ProgramVars())
	if err != nil || cases[0].Part != "usage" || cases[1].Part != "deck" {
		t.Errorf("cases %+v, %v", cases, err)
	}
}

// One bug, one charge: a failed case that needs a case which failed too is charged there,
// and left out of its own category (as a harness error is); a case that needs a case which
// passed, or that passed itself, is marked as any other. A needs: line naming no case of
// the suite is refused.
func TestFailureChargedInTheCaseItNeeds(t *testing.T) {
	mk := func(id, cat string, v Verdict, needs ...string) Outcome {
		return Outcome{Case: &Case{ID: id, Category: cat, Needs: needs}, Pairing: Theirs, Counted: true, Verdict: v}
	}
	outs := []Outcome{
		mk("ends", "player/basics", WrongExit),
		mk("eof_after", "hub/basics", WrongExit, "ends"),
		mk("eof_passed", "hub/basics", Pass, "ends"),
		mk("other", "hub/basics", WrongExit, "fine"),
		mk("fine", "player/basics", Pass),
	}
	if got := strings.Join(ChargedIn(outs), ","); got != ",ends,,," {
		t.Errorf("charged in %q, want only eof_after's, in ends", got)
	}
	for _, cm := range Marks(toy, outs) {
		if cm.Category.Name == "hub/basics" && (cm.Cases != 2 || cm.Passed != 1 || cm.Marks != 2) {
			t.Errorf("hub/basics: %d cases, %d passed, %.2f marks; want 2, 1, 2.00", cm.Cases, cm.Passed, cm.Marks)
		}
	}
	var b strings.Builder
	NewReport(toy, "s", time.Now(), nil, outs).WriteSummary(&b, false)
	if !strings.Contains(b.String(), "WRONG-EXIT eof_after (not marked: already charged in ends)") {
		t.Errorf("the report does not say where the failure is charged:\n%s", b.String())
	}
	fsys := fstest.MapFS{"toy/a.txtar": {Data: []byte(header("player/basics") + "# needs: nosuch\nrun $PLAYER\n")}}
	if _, err := LoadCases(fsys, "toy", toy.ProgramVars()); err == nil {
		t.Error("a case that needs no case of the suite was accepted")
	}
}

// A grade past its Cap starts no more case runs, and each one it did not start is a counted
// TIMEOUT saying why (so that its marks are lost, never silently dropped): with a cap that has
// passed before the first case ends, one slot runs at most that case.
func TestCapLeavesCasesNotRunAsTimeouts(t *testing.T) {
	t.Parallel()
	files := fstest.MapFS{}
	for i := range 4 {
		files[fmt.Sprintf("toy/c%d.txtar", i)] = &fstest.MapFile{Data: []byte(header("player/basics") + "run $PLAYER\nstdout '^\\^echo $'\n")}
	}
	cases, err := LoadCases(files, "toy", toy.ProgramVars())
	if err != nil {
		t.Fatal(err)
	}
	subj, opt := setup(t, refPlayer)
	opt.Jobs, opt.Cap = 1, time.Nanosecond
	outs := Run(toy, cases, subj, opt)
	if len(outs) != len(cases) {
		t.Fatalf("%d outcomes, want one per case (%d)", len(outs), len(cases))
	}
	notRun := 0
	for i, o := range outs {
		switch {
		case o.Case.ID != cases[i].ID || !o.Counted:
			t.Errorf("outcome %d: case %s, counted %v; want %s, counted", i, o.Case.ID, o.Counted, cases[i].ID)
		case o.Verdict == Timeout && o.Detail == NotRunDetail(time.Nanosecond):
			notRun++
		case o.Verdict != Pass:
			t.Errorf("%s: %s %s", o.Case.ID, o.Verdict, o.Detail)
		}
	}
	if notRun < len(cases)-1 {
		t.Errorf("%d case runs not run after the cap, want at least %d", notRun, len(cases)-1)
	}
	if got := NotRunDetail(10 * time.Minute); !strings.Contains(got, "-submission-timeout 10m0s") {
		t.Errorf("NotRunDetail names no flag: %q", got)
	}
}
