// Package refereefuzz fuzzes a referee of the referee protocol, of any game: each case is the
// mock hub's referee probe (harness/judges/mockhub, docs/referee.md "A referee of any game") with
// a random seed, checking every part of the protocol at once and sending mutated move
// lines besides made-up ones (a '\r', spaces, an empty line, a long line, bytes that are
// not UTF-8: what a player may write, which the runner passes on as it came). The oracle is
// the protocol itself, and the referee's own verdicts (the same moves must get the same
// verdicts). Each kind of failure is written once as a case of the referee suite, in the
// category of the part broken, which runs the probe again with that seed for that part.
package refereefuzz

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"

	"gauntlet/fuzz/judgerun"
)

// part finds the part a probe's failure names.
var part = regexp.MustCompile(`^FAIL \(referee protocol: ([a-z]+)\)`)

func init() {
	judgerun.Register("referee", judgerun.Fuzzer{
		About: "referee (a referee of any game, probed as the match runner would)",
		Run:   func(_ string, c judgerun.Campaign) ([]judgerun.Finding, error) { return Run(c) },
	})
}

// Run probes the campaign's referee once per case and returns the findings; the error is
// the harness's own.
func Run(c judgerun.Campaign) ([]judgerun.Finding, error) {
	return c.Run(0x7e5ee, func(r *rand.Rand, j *judgerun.Judges, n int) (string, string, string, error) {
		seed := 1 + r.Uint64()%1_000_000
		report, _, err := j.Conversation(fmt.Sprintf("referee check=all mutate=1 seed=%d\n", seed))
		if err != nil || strings.HasPrefix(report, "ok: ") {
			return "", "", "", err
		}
		first, _, _ := strings.Cut(report, "\n")
		m := part.FindStringSubmatch(first)
		if m == nil {
			return "", "", "", fmt.Errorf("the referee probe failed without naming a part: %s", first)
		}
		detail, _, _ := strings.Cut(first, ", got ")
		text := fmt.Sprintf(`# Found by gauntlet fuzz referee (seed %d): the referee broke the protocol's %s part.
# section: Runner and referee
# category: protocol/%s
# The probe runs again with the seed of the finding, mutated moves and all.
run -status 0 -timeout 30s mockhub -timeout 2s conv $REFEREE
stdout '^ok: '

-- conv --
referee check=%s mutate=1 seed=%d
`, seed, m[1], m[1], m[1], seed)
		return fmt.Sprintf("referee_fuzz_%s_%d", m[1], n), text, detail, nil
	})
}
