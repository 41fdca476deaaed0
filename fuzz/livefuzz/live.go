// Package livefuzz fuzzes programs that choose their own moves (a Stratego AI, a tic-tac-toe or
// connect-four player) by playing them many random games judged live: the game's judge
// (harness/judges/live) is the oracle, so any legal play passes and a finding is a broken rule, a
// late reply or a wrong ending, never a difference from one reference's choices. Each
// case draws the seat, the opponents and the seed; each kind of failure is written once as
// a case of the game's suite.
package livefuzz

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"gauntlet/fuzz/judgerun"
	"gauntlet/harness/runtime/limitkill"
)

// game is how to draw a case of one game and write it as a suite case.
type game struct {
	variable, section, category string
	// conv returns a random live conversation.
	conv func(r *rand.Rand) string
}

var games = map[string]game{}

// Register makes a game known to this fuzzer: conv draws a random live conversation (the
// mock hub's format, starting with the game's judge line), and a finding is written as a
// case of the suite's section and category that runs the program of the suite variable.
func Register(name, variable, section, category string, conv func(r *rand.Rand) string) {
	if _, dup := games[name]; dup {
		panic("fuzz/livefuzz: " + name + " registered twice")
	}
	games[name] = game{variable, section, category, conv}
}

// Games lists the games this fuzzer plays.
func Games() []string {
	var out []string
	for g := range games {
		out = append(out, g)
	}
	slices.Sort(out)
	return out
}

// Options set up a run: the game, and the campaign (program, seed, stop, output).
type Options struct {
	Game string
	judgerun.Campaign
}

// Run plays the cases and returns the findings; the error is the harness's own.
func Run(o Options) ([]judgerun.Finding, error) {
	g, ok := games[o.Game]
	if !ok {
		return nil, fmt.Errorf("no game %q to fuzz live (games: %s)", o.Game, strings.Join(Games(), ", "))
	}
	return o.Campaign.Run(0x11fe, func(r *rand.Rand, j *judgerun.Judges, n int) (string, string, string, error) {
		conv := g.conv(r)
		report, _, err := j.Conversation(conv)
		if err != nil || strings.HasPrefix(report, "ok: ") {
			return "", "", "", err
		}
		what := "in which the program broke a rule of the game"
		if l := limitkill.InReport(report); l != limitkill.None {
			what = "in which the program was ended by " + l.Words() + " (a LIMIT, not a broken rule of the game)"
		}
		text := fmt.Sprintf(`# Found by gauntlet fuzz: a game judged live (%s), %s.
# section: %s
# category: %s
run -status 0 mockhub -timeout 2s conv $%s
stdout '^ok: '

-- conv --
%s`, strings.SplitN(conv, "\n", 2)[0], what, g.section, g.category, g.variable, conv)
		return fmt.Sprintf("%s_live_fuzz_%d", o.Game, n), text, report, nil
	})
}
