package acceptance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gauntlet/fuzz/judgerun"
	"gauntlet/harness/grading/grade"
	"gauntlet/internal/buildtest"
	"gauntlet/judges/cluefuzz"
)

// The Clue suites fail a client mutant that walks through walls into the staircase
// (PROTOCOL, the move named as unreachable), and a server mutant that skips the first player who could
// disprove a suggestion.
func TestClueSuitesFailMutants(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mutants and grades them: full mode only")
	}
	t.Parallel()
	tests := []struct {
		name, pkg, prog, file, old, new, cases, category, detail string
	}{
		{"client walks through walls", "gauntlet/cmd/clue-strong", "clue-client", "games/clue/brains.go",
			"opts := board.Destinations(b.me, roll)", "opts := []Pos{Cell(12, 12)} // inside the walled staircase",
			"^client_game", "client/play", "cannot be reached"},
		{"server skips a disprover", "gauntlet/cmd/clue-server", "clue-server", "games/clue/game.go",
			"for i := 1; i < Tokens; i++ {\n\t\td := (t + i) % Tokens", "for i := 2; i < Tokens; i++ {\n\t\td := (t + i) % Tokens",
			"^server_game", "server/games", "FAIL at step"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := binarySubmission(t, mutant(t, tc.pkg, tc.file, tc.old, tc.new), tc.prog)
			_, rep, text := gradeRun(t, "clue", "-run", tc.cases, dir)
			failed := 0
			for _, c := range rep.Cases {
				if c.Category != tc.category {
					continue
				}
				if !c.Verdict.Passed() {
					failed++
					if c.Verdict != grade.Protocol || !strings.Contains(c.Detail, tc.detail) {
						t.Errorf("%s: %s (%s), want PROTOCOL mentioning %q", c.ID, c.Verdict, c.Detail, tc.detail)
					}
				}
			}
			if failed == 0 {
				t.Errorf("the mutant passed every %s case", tc.category)
			}
			t.Logf("%s: %d cases of %s failed", tc.name, failed, tc.category)
			if t.Failed() {
				t.Logf("report:\n%s", text)
			}
		})
	}
}

// A client's exit 3 is checked by the first line of its stderr (docs/clue.md, "The
// clients"): a client that writes what was wrong on a second line passes every fault case,
// and neither the suite nor the fuzzer blames it; one that writes a line of its own first
// fails them.
func TestClueProtocolErrorIsTheFirstLine(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mutants and grades them: full mode only")
	}
	t.Parallel()
	gauntlet := buildtest.Path(t, "gauntlet/cmd/gauntlet")
	for _, tc := range []struct {
		name, stderr string
		pass         bool
	}{
		{"a detail after the line", `"Protocol error from server\nunexpected message\n"`, true},
		{"a line before it", `"client: bad message\nProtocol error from server\n"`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin := mutant(t, "gauntlet/cmd/clue-strong", "games/clue/client.go",
				`const ProtocolError = "Protocol error from server\n"`, "const ProtocolError = "+tc.stderr)
			_, rep, text := gradeRun(t, "clue", "-run", "^client_(bad_|eof_|unexpected_|unknown_)", binarySubmission(t, bin, "clue-client"))
			cases := 0
			for _, c := range rep.Cases {
				if c.Verdict == grade.BuildFail {
					continue
				}
				cases++
				if c.Verdict.Passed() != tc.pass || c.Verdict == grade.HarnessError {
					t.Errorf("%s: %s (%s), want passed %v", c.ID, c.Verdict, c.Detail, tc.pass)
				}
			}
			if cases != 7 {
				t.Errorf("%d fault cases graded, want 7\n%s", cases, text)
			}
			var log strings.Builder
			found, err := cluefuzz.Run(cluefuzz.Options{Role: "client", Campaign: judgerun.Campaign{Program: bin, Seed: 7,
				Runs: 4, Out: t.TempDir(), Log: &log, Gauntlet: gauntlet}})
			if err != nil {
				t.Fatal(err)
			}
			if (len(found) == 0) != tc.pass {
				t.Errorf("the fuzzer found %d failures, want some: %v\n%s", len(found), !tc.pass, log.String())
			}
		})
	}
}

// The Clue fuzzer finds a client mutant that ignores unknown messages and a server mutant
// that drops a client in its turn without telling the others, and finds nothing in the
// reference programs with the same seeds.
func TestClueFuzzerFindsMutants(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzz campaigns: full mode only")
	}
	t.Parallel()
	gauntlet := buildtest.Path(t, "gauntlet/cmd/gauntlet")
	tests := []struct {
		role, pkg, file, old, new string
		runs                      int
	}{
		{"client", "gauntlet/cmd/clue-strong", "games/clue/client.go",
			`return c.fail("%q where %v was expected", line, c.expect)`, `return judge.Reaction{}`, 6},
		{"server", "gauntlet/cmd/clue-server", "games/clue/judge.go",
			"outs = append(outs, j.tellOthers(Moved{Board: j.g.Board, Mover: s, Disprover: -1}, -1)...)", "", 10},
	}
	for _, tc := range tests {
		t.Run(tc.role, func(t *testing.T) {
			ref := filepath.Join(t.TempDir(), "ref")
			if err := os.Symlink(gauntlet, ref); err != nil {
				t.Fatal(err)
			}
			refProg := filepath.Join(filepath.Dir(ref), "clue-"+tc.role)
			os.Symlink(gauntlet, refProg)
			for _, p := range []struct {
				name, prog string
				want       bool
			}{{"reference", refProg, false}, {"mutant", mutant(t, tc.pkg, tc.file, tc.old, tc.new), true}} {
				var log strings.Builder
				found, err := cluefuzz.Run(cluefuzz.Options{Role: tc.role, Campaign: judgerun.Campaign{Program: p.prog, Seed: 7,
					Runs: tc.runs, Out: t.TempDir(), Log: &log, Gauntlet: gauntlet}})
				if err != nil {
					t.Fatalf("%s: %v\n%s", p.name, err, log.String())
				}
				if (len(found) > 0) != p.want {
					t.Errorf("%s: %d findings, want findings: %v\n%s", p.name, len(found), p.want, log.String())
				}
				t.Logf("%s: %s", p.name, log.String())
			}
		})
	}
}
