package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"gauntlet/harness/grading/scriptcmds"
	"gauntlet/programs"
)

const runUsage = `usage: gauntlet run CASE.txtar [DIR] [grade flags]

Runs one case file as the grader runs it, and shows its whole log (grade -v): one of the
suite's, one written by course staff, or a regression file written by gauntlet fuzz, as it
is, without rebuilding gauntlet. With DIR it runs against that submission (built with make,
as grade builds it; -no-build takes DIR's programs as they are, as the replay command a
fuzz finding prints does), otherwise against the built-in reference. The game is the one whose
marking categories hold the case's "# category:" line. Any flag of grade may follow.

Exit status: that of grade (0 passed, 1 failed, 2 usage or harness error).
`

// runCaseCmd is `gauntlet run`: grade GAME -suite CASE -v with the game read from the case.
func runCaseCmd(args []string, stdout, stderr io.Writer) int {
	if wantsHelp(args) {
		fmt.Fprint(stdout, runUsage)
		fmt.Fprintf(stdout, "\nCommands a case may use besides testscript's own (docs/mocks.md):\n%s", scriptcmds.UsageText())
		return 0
	}
	if len(args) == 0 || !strings.HasSuffix(args[0], ".txtar") {
		fmt.Fprint(stderr, runUsage)
		return 2
	}
	data, err := os.ReadFile(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "gauntlet run: %v\n", err)
		return 2
	}
	category := ""
	for _, line := range strings.Split(string(data), "\n") {
		if c, ok := strings.CutPrefix(line, "# category:"); ok {
			category = strings.TrimSpace(c)
			break
		}
	}
	game := ""
	for _, name := range programs.GradeGames() {
		g, _ := programs.GradeGame(name)
		for _, c := range g.Categories {
			if c.Name == category {
				game = name
			}
		}
	}
	if game == "" {
		fmt.Fprintf(stderr, "gauntlet run: %s: no game has the category %q (its \"# category:\" line); the games: %s\n",
			args[0], category, strings.Join(programs.GradeGames(), ", "))
		return 2
	}
	return gradeCmd(append([]string{game, "-suite", args[0], "-v"}, args[1:]...), stdout, stderr)
}
