package blackbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rogpeppe/go-internal/txtar"

	"gauntlet/fuzz/pipegame"
	"gauntlet/fuzz/record"
	"gauntlet/harness/box/execfile"
	"gauntlet/internal/buildtest"
	"gauntlet/programs"
)

// TestMain makes this test binary every reference and mock program: testscript puts copies
// of it named after them in PATH, and the suite runner that checks regression files runs
// them from there too.
func TestMain(m *testing.M) {
	testscript.Main(m, programs.Commands())
}

// refDir is the folder holding the reference programs.
func refDir(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("mockplayer")
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(p)
}

// vars is the suite variables of g's programs, from its grade table.
func vars(g Game) func(program string) (string, bool) {
	gg, _ := programs.GradeGame(g.Name())
	return gg.VarOf
}

func game(t *testing.T, name string) Game {
	t.Helper()
	g, ok := pipegame.Lookup(name)
	if !ok {
		t.Fatalf("no game %s", name)
	}
	return g
}

// TestFindsBuggyPlayer fuzzes a player that behaves like EAIT except that it crashes on a
// well-formed message naming a player beyond the count (fuzz/testdata/buggyeait). The
// fuzzer must find the crash within a bounded number of cases, keep it once, minimise it
// to a conversation of a few lines, and write a regression file that passes on the
// reference and fails on the buggy player.
//
// The mutations are those that change a message's content: with all of them about one
// case in 120 hits the bug, with these one in 25, so that 150 cases find it whatever game
// the engine deals (a miss has odds below 1 in 400).
func TestFindsBuggyPlayer(t *testing.T) {
	if testing.Short() {
		t.Skip("a fuzzing campaign of several seconds: full mode only (the seed corpora replay in -short)")
	}
	buggy := buildtest.Path(t, "gauntlet/fuzz/testdata/buggyeait")
	out := t.TempDir()
	sum, err := Run(Options{
		Game: game(t, "stlucia"), Vars: vars(game(t, "stlucia")), Role: RolePlayer, RefDir: refDir(t), InProcess: inProcess,
		Subjects: []Subject{{Path: buggy, Ref: "EAIT"}},
		Seed:     1, Runs: 150, Out: out, Kinds: []string{"boundary", "malformed", "wrong-turn", "crlf"},
		Minimise: Budget{Tries: 300, Time: time.Minute},
		Verify:   true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Findings) != 1 {
		t.Fatalf("%d findings in %d runs, want 1: %+v", len(sum.Findings), sum.Runs, sum.Findings)
	}
	fd := sum.Findings[0]
	t.Logf("run %d: %s\n%s -> %s (%d tries)", fd.Run, fd.Sig, fd.Case, fd.Minimised, fd.Tries)
	if fd.Sig.Kind != KindCrash || fd.Sig.Subject != "killed by SIGSEGV" || fd.Sig.Ref != "exit status 5" {
		t.Errorf("signature %s", fd.Sig)
	}
	if fd.Steps[1] > 3 {
		t.Errorf("minimised to %d steps, want at most 3", fd.Steps[1])
	}
	if fd.Verified != "" {
		t.Errorf("the regression file is not verified: %s", fd.Verified)
	}
	arch, err := txtar.ParseFile(fd.File)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range arch.Files {
		if n := strings.Count(string(f.Data), "\n"); f.Name == "conv" && n > 8 {
			t.Errorf("the conversation has %d lines:\n%s", n, f.Data)
		}
	}
	if !strings.Contains(string(arch.Comment), "run -status 0 mockhub conv $EAIT\n") {
		t.Errorf("the case does not run mockhub on $EAIT:\n%s", arch.Comment)
	}
	// The file is a suite case: independently of Verify, it passes on the reference under
	// the suite's own runner.
	if res := runScript(game(t, "stlucia"), vars(game(t, "stlucia")), refDir(t), fd.File, Subject{}, nil); !res.Passed {
		t.Errorf("the regression file fails on the reference:\n%s", res.Log)
	}
	if _, err := os.Stat(filepath.Join(out, "summary.txt")); err != nil {
		t.Error(err)
	}
}

// A player whose one bug is its exit status on a line it refuses (0 where the reference
// exits 6, whatever the line: the reference 2310A behind a shell wrapper, issue 15's
// mutant) is one bug: one finding, of the exit rule, with a regression file of a few
// steps. The lines it refuses break many different rules, but it writes what the reference
// writes; only the endings differ, and the line refused no longer splits the finding.
// (Before, a 300-run campaign gave 7 findings.) Signals are left out: the wrapper, not the
// player, gets them and ends otherwise, a second bug of the wrapper's own.
func TestExitCodeMutantIsOneFinding(t *testing.T) {
	buildtest.Long(t) // a campaign of a few seconds
	ref := refDir(t)
	dir := t.TempDir()
	mutant := filepath.Join(dir, "2310A")
	wrapper := "#!/bin/sh\n'" + filepath.Join(ref, "2310A") + "' \"$@\"\ns=$?\n[ $s = 6 ] && exit 0\nexit $s\n"
	if err := execfile.Write(mutant, []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, k := range PlayerMutations {
		if k != "signal" {
			kinds = append(kinds, k)
		}
	}
	sum, err := Run(Options{
		Game: game(t, "dealer2310"), Vars: vars(game(t, "dealer2310")), Role: RolePlayer, RefDir: ref, InProcess: inProcess,
		Subjects: []Subject{{Path: mutant, Ref: "2310A"}},
		Seed:     1, Runs: 150, Out: t.TempDir(), Kinds: kinds,
		Minimise: Budget{Tries: 300, Time: time.Minute},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Findings) != 1 || sum.Duplicates == 0 {
		for _, fd := range sum.Findings {
			t.Logf("%s [%s]", fd.Sig, fd.Rule.ID)
		}
		t.Fatalf("%d findings and %d duplicates in %d runs, want 1 finding and its duplicates", len(sum.Findings), sum.Duplicates, sum.Runs)
	}
	fd := sum.Findings[0]
	if fd.Rule.ID != "player/exit-6" || fd.Sig.Kind != KindWrongExit || !fd.Sig.SameOutput() {
		t.Errorf("finding %s, rule %s; want a wrong exit with the same output, rule player/exit-6", fd.Sig, fd.Rule.ID)
	}
	if fd.Steps[1] > 3 {
		t.Errorf("minimised to %d steps, want at most 3", fd.Steps[1])
	}
}

// Cases played ahead on several workers are taken in order: the campaign finds the same
// failures, at the same case numbers, and minimises them to the same cases in as many
// tries, whatever Jobs is, and whether the reference plays as a process or in process;
// and each finding's case is the case of its number.
func TestJobsKeepTheCampaign(t *testing.T) {
	buildtest.Long(t) // two campaigns of a few seconds
	buggy := buildtest.Path(t, "gauntlet/fuzz/testdata/buggyeait")
	g := game(t, "stlucia")
	campaign := func(jobs int, in func(string) (record.Func, bool)) *Summary {
		sum, err := Run(Options{
			Game: g, Vars: vars(g), Role: RolePlayer, RefDir: refDir(t),
			Subjects: []Subject{{Path: buggy, Ref: "EAIT"}},
			Seed:     3, Runs: 120, Kinds: []string{"boundary", "malformed", "wrong-turn", "crlf"},
			Jobs: jobs, InProcess: in, Minimise: Budget{Tries: 40, Time: time.Minute},
		})
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	one, three := campaign(1, nil), campaign(3, inProcess)
	got := func(s *Summary) string {
		out := fmt.Sprintf("runs %d, duplicates %d, skipped %d;", s.Runs, s.Duplicates, s.Skipped)
		for _, fd := range s.Findings {
			out += fmt.Sprintf(" run %d %s %s, minimised in %d tries to %s;", fd.Run, fd.Rule.ID, fd.Case, fd.Tries, fd.Minimised)
		}
		return out
	}
	if got(one) != got(three) {
		t.Errorf("-j 1, the reference as a process: %s\n-j 3, in process: %s", got(one), got(three))
	}
	if len(three.Findings) == 0 {
		t.Fatal("no finding: the campaign shows nothing of the order")
	}
	if !slices.ContainsFunc(three.Findings, func(fd Finding) bool { return fd.Tries > 1 && fd.Minimised != fd.Case }) {
		t.Error("no finding was minimised: the campaign shows nothing of the minimiser's order")
	}
	f := &fuzzer{g: g, kinds: []string{"boundary", "malformed", "wrong-turn", "crlf"},
		opt: Options{Role: RolePlayer, Seed: 3, Subjects: []Subject{{Path: buggy, Ref: "EAIT"}}}}
	for _, fd := range three.Findings {
		if c, _, err := f.newCase(fd.Run); err != nil || describe(c) != fd.Case {
			t.Errorf("finding of run %d is the case %q, not that run's %q (%v)", fd.Run, fd.Case, describe(c), err)
		}
	}
}

// TestFindsBuggyHub fuzzes a hub that reports a malformed reply with the wrong exit status
// (8 instead of 7): a wrapper around the reference hub.
func TestFindsBuggyHub(t *testing.T) {
	if testing.Short() {
		t.Skip("a fuzzing campaign of several seconds: full mode only (the seed corpora replay in -short)")
	}
	ref := refDir(t)
	buggy := filepath.Join(t.TempDir(), "stlucia")
	script := "#!/bin/sh\n'" + filepath.Join(ref, "stlucia") + "' \"$@\"\ns=$?\n[ $s = 7 ] && exit 8\nexit $s\n"
	if err := execfile.Write(buggy, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	sum, err := Run(Options{
		Game: game(t, "stlucia"), Vars: vars(game(t, "stlucia")), Role: RoleHub, RefDir: ref,
		Subjects: []Subject{{Path: buggy, Ref: "stlucia"}},
		Seed:     2, Runs: 6, Out: t.TempDir(), Kinds: []string{"garbage"},
		Minimise: Budget{Tries: 60, Time: time.Minute},
		Verify:   true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Findings) != 1 {
		t.Fatalf("%d findings, want 1: %+v", len(sum.Findings), sum.Findings)
	}
	fd := sum.Findings[0]
	if fd.Sig.Kind != KindWrongExit || fd.Sig.Subject != "exit status 8" || fd.Sig.Ref != "exit status 7" {
		t.Errorf("signature %s", fd.Sig)
	}
	if fd.Verified != "" {
		t.Errorf("the regression file is not verified: %s", fd.Verified)
	}
	data, err := os.ReadFile(fd.File)
	if err != nil {
		t.Fatal(err)
	}
	// The seats are given to the hub as paths ($MOCKBIN/p1), never as bare names a hub
	// would have to find through PATH.
	for _, want := range []string{"mkplayer p1 -as ", "run -status 7 $STLUCIA game.roll ", " $MOCKBIN/p1 $MOCKBIN/p2", "-- game.roll --", "Invalid message received from player"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the regression file lacks %q:\n%s", want, data)
		}
	}
}

// TestReferenceAgainstItself: fuzzing each reference program against itself finds nothing,
// not even an unconfirmed difference: the fuzzer's runs are deterministic.
func TestReferenceAgainstItself(t *testing.T) {
	if testing.Short() {
		t.Skip("a fuzzing campaign of several seconds: full mode only (the seed corpora replay in -short)")
	}
	ref := refDir(t)
	tests := []struct {
		game, prog string
		role       Role
		runs       int
		kinds      []string
	}{
		{"stlucia", "EAIT", RolePlayer, 40, nil},
		{"stlucia", "HASS", RolePlayer, 20, nil},
		{"dealer2310", "2310A", RolePlayer, 30, nil},
		{"dealer2310", "2310B", RolePlayer, 30, nil},
		{"stlucia", "stlucia", RoleHub, 12, fastFaults()},
		{"dealer2310", "2310dealer", RoleHub, 12, fastFaults()},
	}
	for _, tc := range tests {
		t.Run(tc.game+"/"+tc.prog, func(t *testing.T) {
			sum, err := Run(Options{
				Game: game(t, tc.game), Vars: vars(game(t, tc.game)), Role: tc.role, RefDir: ref, InProcess: inProcess,
				Subjects: []Subject{{Path: filepath.Join(ref, tc.prog), Ref: tc.prog}},
				Seed:     5, Runs: tc.runs, Kinds: tc.kinds,
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(sum.Findings) != 0 || sum.Unconfirmed != 0 || sum.Skipped != 0 || sum.Runs != tc.runs {
				t.Errorf("%d runs: %d findings, %d unconfirmed %q, %d skipped", sum.Runs, len(sum.Findings), sum.Unconfirmed, sum.Flaky, sum.Skipped)
				for _, fd := range sum.Findings {
					t.Logf("%s: %s", fd.Sig, fd.Case)
				}
			}
		})
	}
}

// fastFaults are the hub faults whose cases take no seconds-long wait.
func fastFaults() []string {
	var out []string
	for _, k := range HubFaults {
		if !slowKinds[k] {
			out = append(out, k)
		}
	}
	return out
}

// TestReproducible: a case is a function of the seed and its number alone.
func TestReproducible(t *testing.T) {
	for _, role := range []Role{RolePlayer, RoleHub} {
		for _, name := range pipegame.Games() {
			g := game(t, name)
			ref := g.Hub()
			kinds := HubFaults
			if role == RolePlayer {
				ref, kinds = g.Players()[0], PlayerMutations
			}
			mk := func(seed uint64) *fuzzer {
				return &fuzzer{g: g, kinds: kinds, opt: Options{Role: role, Seed: seed, Subjects: []Subject{{Path: "x", Ref: ref}}}}
			}
			a, b, c := mk(9), mk(9), mk(10)
			same := 0
			for run := 0; run < 20; run++ {
				ca, _, err := a.newCase(run)
				if err != nil {
					t.Fatal(err)
				}
				cb, _, _ := b.newCase(run)
				cc, _, _ := c.newCase(run)
				if describe(ca) != describe(cb) {
					t.Errorf("%s %s run %d: %s then %s", name, role, run, describe(ca), describe(cb))
				}
				if describe(ca) == describe(cc) {
					same++
				}
			}
			if same > 2 {
				t.Errorf("%s %s: seeds 9 and 10 give %d equal cases of 20", name, role, same)
			}
		}
	}
}

func TestRunErrors(t *testing.T) {
	g := game(t, "stlucia")
	ref := refDir(t)
	tests := []Options{
		{Game: g, Vars: vars(g), Role: RolePlayer, RefDir: ref, Runs: 1},                                                              // no subject
		{Game: g, Vars: vars(g), Role: RolePlayer, RefDir: ref, Subjects: []Subject{{Path: "x", Ref: "EAIT"}}},                        // no bound
		{Game: g, Vars: vars(g), Role: "both", RefDir: ref, Runs: 1, Subjects: []Subject{{Path: "x", Ref: "EAIT"}}},                   // bad role
		{Game: g, Vars: vars(g), Role: RolePlayer, RefDir: ref, Runs: 1, Subjects: []Subject{{Path: "x", Ref: "NOSUCH"}}},             // no reference
		{Game: g, Vars: vars(g), Role: RolePlayer, RefDir: ref, Runs: 1, Kinds: []string{"hang"}, Subjects: []Subject{{Ref: "EAIT"}}}, // hub fault for a player
		{Game: g, Vars: vars(g), Role: RoleHub, RefDir: ref, Runs: 1, Subjects: []Subject{{Ref: "stlucia"}, {Ref: "stlucia"}}},        // two hubs
	}
	for i, opt := range tests {
		if _, err := Run(opt); err == nil {
			t.Errorf("case %d: no error", i)
		}
	}
	// A subject that cannot be started is a harness error too.
	_, err := Run(Options{Game: g, Vars: vars(g), Role: RolePlayer, RefDir: ref, Runs: 1, Subjects: []Subject{{Path: "/nonexistent", Ref: "EAIT"}}})
	if err == nil {
		t.Error("no error for a subject that cannot start")
	}
}

// TestCampaignRefusesAHarnessThatCannotPlay: when the harness cannot run the programs as it
// means to (here the mock player a hub's seats run is missing, or the reference player
// only fails), the campaign stops with an error before its first case, instead of playing
// cases that all differ, or all agree, for a reason that is not the subject's. Before the
// check, a hub campaign whose mock players the box hid found nothing, at a rate that
// looked like speed.
func TestCampaignRefusesAHarnessThatCannotPlay(t *testing.T) {
	ref := refDir(t)
	broken := t.TempDir()
	if err := execfile.Write(filepath.Join(broken, "2310A"), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	subject := filepath.Join(ref, "stlucia")
	tests := []struct {
		name string
		opt  Options
		want string
	}{
		{"no mock player", Options{Game: game(t, "stlucia"), Vars: vars(game(t, "stlucia")), Role: RoleHub, RefDir: ref,
			Published: map[string]string{"mockplayer": filepath.Join(t.TempDir(), "mockplayer")},
			Subjects:  []Subject{{Path: subject, Ref: "stlucia"}}}, "the reference stlucia did not play"},
		{"a failing reference", Options{Game: game(t, "dealer2310"), Vars: vars(game(t, "dealer2310")), Role: RolePlayer, RefDir: broken,
			Subjects: []Subject{{Path: filepath.Join(ref, "2310A"), Ref: "2310A"}}}, "the reference 2310A did not play"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.opt.Runs, tc.opt.Seed = 5, 1
			sum, err := Run(tc.opt)
			t.Log(err)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q (summary %+v)", err, tc.want, sum)
			}
		})
	}
}

// TestCampaignCheckPlaysEverySetup: the check before a campaign passes on the references
// whatever the seed (each seed gives it another game), for both roles of both games.
func TestCampaignCheckPlaysEverySetup(t *testing.T) {
	ref := refDir(t)
	seeds := 12
	if testing.Short() {
		seeds = 2
	}
	for _, tc := range []struct {
		game, prog string
		role       Role
	}{{"stlucia", "stlucia", RoleHub}, {"stlucia", "EAIT", RolePlayer}, {"dealer2310", "2310dealer", RoleHub}, {"dealer2310", "2310B", RolePlayer}} {
		for seed := range uint64(seeds) {
			f := &fuzzer{opt: Options{Game: game(t, tc.game), Vars: vars(game(t, tc.game)), Role: tc.role, RefDir: ref, Seed: seed,
				Subjects: []Subject{{Path: filepath.Join(ref, tc.prog), Ref: tc.prog}}},
				g: game(t, tc.game), tmp: t.TempDir(), rec: record.Options{ExitTimeout: 10 * time.Second}}
			if err := f.check(); err != nil {
				t.Errorf("%s %s seed %d: %v", tc.game, tc.role, seed, err)
			}
		}
	}
}

// A subject that cannot run what it runs (a wrapper whose program is missing, or hidden by
// the box) gets a note before the campaign, in the log: the shell's status 127 on an
// unmutated case.
func TestCampaignNotesASubjectThatCannotRun(t *testing.T) {
	ref := refDir(t)
	wrapper := filepath.Join(t.TempDir(), "2310A")
	if err := execfile.Write(wrapper, []byte("#!/bin/sh\nexec /nonexistent/2310A \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	_, err := Run(Options{Game: game(t, "dealer2310"), Vars: vars(game(t, "dealer2310")), Role: RolePlayer, RefDir: ref, Seed: 1, Runs: 1,
		Subjects: []Subject{{Path: wrapper, Ref: "2310A"}}, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if want := "note: " + wrapper + " exited 127 on an unmutated case"; !strings.Contains(log.String(), want) {
		t.Errorf("the log lacks %q:\n%s", want, log.String())
	}
}

// A difference the machine's load makes is not a finding: the subject here plays as the
// reference but exits 9 whenever another copy of it is running at its start, which
// happens only because the campaign plays cases side by side. Confirmed alone, with nothing
// else of the campaign under way, the difference does not come back, so nothing is kept
// (before 2026-11-28 confirmations ran beside the workers, and under load a one-bug
// mutant's campaign kept 22 rules where it kept 2 quiet).
func TestConfirmationRunsAlone(t *testing.T) {
	buildtest.Long(t) // a campaign of a few seconds
	ref := refDir(t)
	subject := loadedSubject(t, ref, func(player string) string {
		return "'" + player + "' \"$@\"\ns=$?\nrm -f \"$d/$$\"\n[ \"$n\" -gt 1 ] && exit 9\nexit $s\n"
	})
	sum, err := Run(Options{
		Game: game(t, "dealer2310"), Vars: vars(game(t, "dealer2310")), Role: RolePlayer, RefDir: ref, InProcess: inProcess,
		Subjects: []Subject{{Path: subject, Ref: "2310A"}},
		Seed:     1, Runs: 80, Jobs: 2, Out: t.TempDir(), Kinds: []string{"malformed"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Unconfirmed == 0 {
		t.Fatalf("no difference under load in %d runs: the test did not load the subject", sum.Runs)
	}
	if len(sum.Findings) != 0 {
		for _, fd := range sum.Findings {
			t.Logf("%s [%s]", fd.Sig, fd.Rule.ID)
		}
		t.Errorf("%d findings of the load alone (%d unconfirmed), want none", len(sum.Findings), sum.Unconfirmed)
	}
}

// loadedSubject writes a 2310A subject that knows whether another copy of it runs at its
// start: a shell script that counts the copies in a folder every run's user may write ($n,
// with its own mark $d/$$), then goes on with rest(the reference player's path), which
// must remove its mark.
func loadedSubject(t *testing.T, ref string, rest func(player string) string) string {
	t.Helper()
	dir := t.TempDir()
	shared := filepath.Join(dir, "running")
	if err := os.Mkdir(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o777); err != nil { // past the umask: every run's user writes here
		t.Fatal(err)
	}
	buildtest.SearchableByOthers(t, dir)
	subject := filepath.Join(dir, "2310A")
	wrapper := "#!/bin/sh\nd='" + shared + "'\ntouch \"$d/$$\"\nn=$(ls \"$d\" | wc -l)\n" + rest(filepath.Join(ref, "2310A"))
	if err := execfile.Write(subject, []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	return subject
}
