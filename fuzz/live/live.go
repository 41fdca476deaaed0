// Package live fuzzes programs that choose their own moves (a Stratego AI, a tic-tac-toe or
// connect-four player) by playing them many random games judged live: the game's judge
// (harness/live) is the oracle, so any legal play passes and a finding is a broken rule, a
// late reply or a wrong ending, never a difference from one reference's choices. Each
// case draws the seat, the opponents and the seed; each kind of failure is written once as
// a case of the game's suite.
package live

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gauntlet/fuzz/judgerun"
)

// game is how to draw a case of one game and write it as a suite case.
type game struct {
	variable, section, category string
	// conv returns a random live conversation.
	conv func(r *rand.Rand) string
}

var games = map[string]game{
	"stratego": {"AI", "Protocol", "ai/play", func(r *rand.Rand) string {
		return fmt.Sprintf("judge stratego seat=%s others=%s seed=%d turns=1000\nlive\neof\nexit 0\n",
			pick(r, "RED", "BLUE"), pick(r, "random", "hunter"), 1+r.IntN(100000))
	}},
	"tictactoe": {"TTT_PLAYER", "Runner and players", "player/tic-tac-toe", func(r *rand.Rand) string {
		return fmt.Sprintf("judge tictactoe seat=%d others=%s seed=%d\nlive\nclose\neof\n",
			r.IntN(2), pick(r, "random", "perfect"), 1+r.IntN(100000))
	}},
	"connectfour": {"C4_PLAYER", "Runner and players", "player/connect-four", func(r *rand.Rand) string {
		return fmt.Sprintf("judge connectfour seat=%d seed=%d\nlive\nclose\neof\n", r.IntN(2), 1+r.IntN(100000))
	}},
}

func pick(r *rand.Rand, s ...string) string { return s[r.IntN(len(s))] }

// Games lists the games this fuzzer plays.
func Games() []string {
	var out []string
	for g := range games {
		out = append(out, g)
	}
	slices.Sort(out)
	return out
}

// Options set up a run.
type Options struct {
	Game     string
	Program  string
	Seed     uint64
	Runs     int           // cases to run (0: until Time)
	Time     time.Duration // (0: until Runs)
	Out      string        // where the regression cases go
	Log      io.Writer
	Gauntlet string // the gauntlet binary that runs the mock hub (default: this program)
}

// Finding is a case the program failed.
type Finding struct {
	File, Detail string
}

// Run plays the cases and returns the findings; the error is the harness's own.
func Run(o Options) ([]Finding, error) {
	g, ok := games[o.Game]
	if !ok {
		return nil, fmt.Errorf("no game %q to fuzz live (games: %s)", o.Game, strings.Join(Games(), ", "))
	}
	if o.Gauntlet == "" {
		self, err := os.Executable()
		if err != nil {
			return nil, err
		}
		o.Gauntlet = self
	}
	prog, err := filepath.Abs(o.Program)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, err
	}
	j, err := judgerun.New(o.Gauntlet, prog, o.Log)
	if err != nil {
		return nil, err
	}
	defer j.Close()
	r := rand.New(rand.NewPCG(o.Seed, 0x11fe))
	start := time.Now()
	seen := map[string]bool{}
	var found []Finding
	n := 0
	for ; (o.Runs == 0 || n < o.Runs) && (o.Time == 0 || time.Since(start) < o.Time); n++ {
		conv := g.conv(r)
		report, _, err := j.Conversation(conv)
		if err != nil {
			return found, err
		}
		if strings.HasPrefix(report, "ok: ") || seen[judgerun.Signature(report)] {
			continue
		}
		seen[judgerun.Signature(report)] = true
		file := filepath.Join(o.Out, fmt.Sprintf("%s_live_fuzz_%d.txtar", o.Game, n))
		text := fmt.Sprintf(`# Found by gauntlet fuzz: a game judged live (%s), in which the program broke a rule of the game.
# section: %s
# category: %s
run -status 0 mockhub -timeout 2s conv $%s
stdout '^ok: '

-- conv --
%s`, strings.SplitN(conv, "\n", 2)[0], g.section, g.category, g.variable, conv)
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			return found, err
		}
		found = append(found, Finding{File: file, Detail: report})
		fmt.Fprintf(o.Log, "finding %d: %s\n  %s\n", len(found), file, report)
	}
	fmt.Fprintf(o.Log, "%d games in %v, %d findings (seed %d)\n", n, time.Since(start).Round(time.Millisecond), len(found), o.Seed)
	return found, nil
}
