package programs

import (
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Stratego's limits come from its protocol: every game of the AI suite ends at a turn
// limit of at most StrategoSuiteTurns with a line due within StrategoMoveTime, so the CPU
// time of a case's processes covers every line an AI may owe in it (its setup and its
// moves) and the deadline both sides' lines. Until 2026-11-28 they were 10 s of CPU and
// 30 s a case, and a slow but legal AI was killed in the middle of its game.
func TestStrategoLimitsFromTheProtocol(t *testing.T) {
	g, ok := GradeGame("stratego")
	if !ok {
		t.Fatal("no stratego game")
	}
	if g.CPU != StrategoCPU || g.Timeout != 2*StrategoCPU {
		t.Errorf("CPU %v, timeout %v; want %v and %v", g.CPU, g.Timeout, StrategoCPU, 2*StrategoCPU)
	}
	if want := time.Duration(StrategoSuiteTurns+1) * 2 * time.Second; StrategoCPU != want {
		t.Errorf("StrategoCPU %v, want %v (a setup and %d moves at 2s)", StrategoCPU, want, StrategoSuiteTurns)
	}
	suite := os.DirFS("../testscripts/stratego")
	turns := regexp.MustCompile(`judge stratego .*turns=(\d+)`)
	timeout := regexp.MustCompile(`mockhub -timeout (\S+)`)
	games := 0
	err := fs.WalkDir(suite, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".txtar") {
			return err
		}
		b, err := fs.ReadFile(suite, path)
		if err != nil {
			return err
		}
		text := string(b)
		if m := turns.FindStringSubmatch(text); m != nil {
			games++
			if n, _ := strconv.Atoi(m[1]); n > StrategoSuiteTurns {
				t.Errorf("%s: turns=%d, over the %d the limits allow for", path, n, StrategoSuiteTurns)
			}
		} else if strings.Contains(text, "judge stratego") && strings.Contains(text, "\nlive\n") {
			// (a "live N" step plays N lines at most)
			t.Errorf("%s: a whole live game without turns=: the default 5000 turns is over the limits", path)
		}
		for _, m := range timeout.FindAllStringSubmatch(text, -1) {
			if d, err := time.ParseDuration(m[1]); err != nil || d > StrategoMoveTime {
				t.Errorf("%s: mockhub -timeout %s, want at most %v", path, m[1], StrategoMoveTime)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if games == 0 {
		t.Fatal("no live game found in the suite")
	}
}
