package tournament

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"
)

// fake is a match in which the player whose name sorts first wins; it counts its games.
func fake(played *atomic.Int32) Match {
	return func(a, b string) (Result, error) {
		played.Add(1)
		r := Result{Line: a + " vs " + b}
		w := 0
		if b < a {
			w = 1
		}
		r.Score[w], r.Points[w], r.Points[1-w] = 1, 0.3, 0.1
		return r, nil
	}
}

func TestRoundRobinTableAndResume(t *testing.T) {
	var played atomic.Int32
	save := filepath.Join(t.TempDir(), "results.jsonl")
	players := []string{"a", "b", "c"}
	stop := make(chan struct{})
	close(stop) // stopped before the first game: nothing is played
	res, err := Run(players, fake(&played), Options{Rounds: 2, Save: save, Stop: stop})
	if err != nil || len(res) != 0 || played.Load() != 0 {
		t.Fatalf("a stopped tournament played %d games: %v %v", played.Load(), res, err)
	}
	res, err = Run(players, fake(&played), Options{Rounds: 2, Jobs: 3, Save: save})
	// Every ordered pair twice: 3*2*2 = 12 games.
	if err != nil || len(res) != 12 || played.Load() != 12 {
		t.Fatalf("%d results, %d played, %v", len(res), played.Load(), err)
	}
	// Run again with the same file: nothing is played, everything is reported.
	res, err = Run(players, fake(&played), Options{Rounds: 2, Save: save})
	if err != nil || len(res) != 12 || played.Load() != 12 {
		t.Fatalf("resume: %d results, %d played in all, %v", len(res), played.Load(), err)
	}
	// One more round: only the new games are played.
	res, _ = Run(players, fake(&played), Options{Rounds: 3, Save: save})
	if len(res) != 18 || played.Load() != 18 {
		t.Fatalf("a third round: %d results, %d played", len(res), played.Load())
	}
	st := Table(res)
	if st[0].Player != "a" || st[0].Wins != 12 || st[0].Games != 12 || st[2].Player != "c" || st[2].Wins != 0 {
		t.Errorf("table %+v", st)
	}
	if !(st[0].Elo > 0 && st[2].Elo < 0 && st[1].Elo == 0) || st[0].EloError <= 0 {
		t.Errorf("elo %v %v %v (+/- %v)", st[0].Elo, st[1].Elo, st[2].Elo, st[0].EloError)
	}
	var b strings.Builder
	WriteCSV(&b, st)
	if !strings.HasPrefix(b.String(), "rank,program,games,wins,draws,losses,illegal,limit,points,elo,elo_error\n1,\"a\",12,12,0,0,0,0,3.60,") {
		t.Errorf("csv:\n%s", b.String())
	}
}

func TestElo(t *testing.T) {
	if r, _ := elo(5, 0, 10); r != 0 {
		t.Errorf("an even score: %v, want 0", r)
	}
	r1, e1 := elo(75, 0, 100)
	r2, e2 := elo(750, 0, 1000)
	if r1 < 180 || r1 > 200 || e2 >= e1 {
		t.Errorf("75%%: %v +/- %v (100 games), %v +/- %v (1000 games): want about 191, the error shrinking", r1, e1, r2, e2)
	}
}

// The table stays aligned when a program's name is longer than the program column (a long
// path, or one with non-ASCII letters): every row has the same width, and the short names'
// table is unchanged.
func TestTableAlignsLongNames(t *testing.T) {
	long := "/home/marker/submissions/2026/group-42/élève/stratego-ai"
	var b strings.Builder
	WriteTable(&b, []Standing{{Player: long, Games: 10, Wins: 7, Points: 7.5}, {Player: "ai", Games: 10, Wins: 3}})
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := "rank " + fmt.Sprintf("%-*s", utf8.RuneCountInString(long), "program") + " games  wins draws illeg limit  points     elo          +/-"
	if lines[0] != want {
		t.Errorf("header\n%q, want\n%q", lines[0], want)
	}
	for _, l := range lines[1:] {
		if utf8.RuneCountInString(l) != utf8.RuneCountInString(lines[0]) {
			t.Errorf("row %q is %d wide, the header %d", l, utf8.RuneCountInString(l), utf8.RuneCountInString(lines[0]))
		}
	}
	b.Reset()
	WriteTable(&b, []Standing{{Player: "ai", Games: 2, Wins: 1, Draws: 1, Points: 1.5, Elo: 191, EloError: 400}})
	if got := b.String(); got != "rank program                  games  wins draws illeg limit  points     elo          +/-\n1    ai                           2     1     1     0     0     1.5     191          400\n" {
		t.Errorf("short names:\n%s", got)
	}
}

// A competitor plays one game at a time, whatever Jobs: two games at once are between four
// different competitors, so that each keeps one folder (Boxes) for the whole tournament
// (before 2026-12-07, -j 2 had a competitor in two games at once, with a second folder,
// and a bot that learns from its games, as ramen did in 2012, saw half of them). Each
// game here lasts a moment, so that games that shared a competitor would overlap; whether
// they do never decides the verdict of a correct scheduler: it never starts them.
func TestACompetitorPlaysOneGameAtATime(t *testing.T) {
	var mu sync.Mutex
	running := map[string]bool{}
	var overlaps []string
	var played atomic.Int32
	m := func(a, b string) (Result, error) {
		mu.Lock()
		for _, p := range []string{a, b} {
			if running[p] {
				overlaps = append(overlaps, p)
			}
			running[p] = true
		}
		mu.Unlock()
		time.Sleep(5 * time.Millisecond)
		mu.Lock()
		running[a], running[b] = false, false
		mu.Unlock()
		played.Add(1)
		return Result{Line: a + " vs " + b}, nil
	}
	res, err := Run([]string{"a", "b", "c", "d", "e"}, m, Options{Rounds: 2, Jobs: 4})
	if err != nil || len(res) != 40 || played.Load() != 40 {
		t.Fatalf("%d results, %d played, %v", len(res), played.Load(), err)
	}
	if len(overlaps) > 0 {
		t.Errorf("competitors in two games at once: %v", overlaps)
	}
}
