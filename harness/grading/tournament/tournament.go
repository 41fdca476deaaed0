// Package tournament plays round robins between programs of one game: every ordered pair
// (so both seatings) for a number of rounds, several games at once, each result saved as
// it comes so that a stopped tournament resumes where it was; then a table of games, wins,
// draws, illegal ends, points and an Elo estimate with its error bars.
//
// The game is a Match: it plays one game between two programs and returns each side's
// points and result, so the package serves any two-player protocol with a match runner.
package tournament

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"sync"
	"syscall"
	"unicode/utf8"
)

// Result is one game's outcome for its two seats.
type Result struct {
	Round   int        `json:"round"`
	Seats   [2]string  `json:"seats"`   // the programs, first seat first
	Points  [2]float64 `json:"points"`  // each seat's points by the game's scoring
	Score   [2]float64 `json:"score"`   // each seat's score for Elo: 1 win, 0.5 draw, 0 loss
	Illegal [2]bool    `json:"illegal"` // the seat broke the rules (or timed out)
	// Limit: of the illegal ends, the seat's was a resource limit's (its CPU time ran
	// out): named apart, as a grade's LIMIT is.
	Limit [2]bool `json:"limit,omitempty"`
	Line  string  `json:"line"` // the match runner's own account (its result line)
}

// Match plays one game between a (first seat) and b.
type Match func(a, b string) (Result, error)

// ErrStopped is the error of a game ended early because the tournament was stopped
// (Options.Stop): it is neither recorded nor an error of the tournament, and a run with the
// same Save plays it again.
var ErrStopped = errors.New("tournament: the game was stopped")

// StopSignal is how a Match passes a stopped tournament on to the game it runs: sigs gets
// SIGTERM when stop is closed (a reference hub ends its game as on that signal), until
// release is called; stopped reports whether stop is closed (the game's failure is then
// ErrStopped).
func StopSignal(stop <-chan struct{}) (sigs <-chan os.Signal, stopped func() bool, release func()) {
	ch := make(chan os.Signal, 1)
	over := make(chan struct{})
	go func() {
		select {
		case <-stop:
			ch <- syscall.SIGTERM
		case <-over:
		}
	}()
	stopped = func() bool {
		select {
		case <-stop:
			return true
		default:
			return false
		}
	}
	return ch, stopped, func() { close(over) }
}

// Options tune a tournament.
type Options struct {
	Rounds   int             // each ordered pair plays this many games (default 1)
	Jobs     int             // games at once (default 2), never two of one competitor
	Save     string          // a JSON-lines file: results already there are not played again
	Progress io.Writer       // a line per finished game, or nil
	Stop     <-chan struct{} // closed: start no more games (and the Match ends those running: ErrStopped)
}

type pairing struct {
	round int
	a, b  string
}

func key(round int, a, b string) string { return fmt.Sprintf("%d\x00%s\x00%s", round, a, b) }

// Run plays the tournament between players and returns every result, those resumed from
// Options.Save included, in schedule order.
func Run(players []string, m Match, opt Options) ([]Result, error) {
	if len(players) < 2 {
		return nil, errors.New("tournament: name at least two programs")
	}
	if opt.Rounds <= 0 {
		opt.Rounds = 1
	}
	if opt.Jobs <= 0 {
		opt.Jobs = 2
	}
	done := map[string]Result{}
	if opt.Save != "" {
		prev, err := load(opt.Save)
		if err != nil {
			return nil, err
		}
		for _, r := range prev {
			done[key(r.Round, r.Seats[0], r.Seats[1])] = r
		}
	}
	var schedule []pairing
	for round := 0; round < opt.Rounds; round++ {
		for _, a := range players {
			for _, b := range players {
				if a != b {
					schedule = append(schedule, pairing{round, a, b})
				}
			}
		}
	}
	var save *os.File
	if opt.Save != "" {
		f, err := os.OpenFile(opt.Save, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		save = f
	}
	var mu sync.Mutex
	var firstErr error
	sem := make(chan struct{}, opt.Jobs)
	var wg sync.WaitGroup
	finished := len(done)
	// A competitor plays one game at a time, whatever opt.Jobs: the games at once are
	// between competitors all different, so that each keeps one folder for the whole
	// tournament (Boxes), and a bot that learns from its past games sees all of them.
	busy := map[string]bool{}
	freed := sync.NewCond(&mu)
	var pending []pairing
	for _, p := range schedule {
		if _, ok := done[key(p.round, p.a, p.b)]; !ok {
			pending = append(pending, p)
		}
	}
loop:
	for len(pending) > 0 {
		select {
		case sem <- struct{}{}:
		case <-opt.Stop:
			break loop
		}
		// The first pairing whose competitors are both free; while there is none, a game
		// is running, and its end frees some.
		mu.Lock()
		i := -1
		for {
			select {
			case <-opt.Stop:
				mu.Unlock()
				<-sem
				break loop
			default:
			}
			for j, p := range pending {
				if !busy[p.a] && !busy[p.b] {
					i = j
					break
				}
			}
			if i >= 0 {
				break
			}
			freed.Wait()
		}
		p := pending[i]
		pending = append(pending[:i:i], pending[i+1:]...)
		busy[p.a], busy[p.b] = true, true
		mu.Unlock()
		wg.Add(1)
		go func(p pairing) {
			defer wg.Done()
			defer func() { <-sem }()
			r, err := m(p.a, p.b)
			mu.Lock()
			defer mu.Unlock()
			busy[p.a], busy[p.b] = false, false
			freed.Broadcast()
			if errors.Is(err, ErrStopped) {
				return
			}
			if err != nil {
				if firstErr == nil {
					firstErr = fmt.Errorf("tournament: %s vs %s: %w", p.a, p.b, err)
				}
				return
			}
			r.Round, r.Seats = p.round, [2]string{p.a, p.b}
			done[key(p.round, p.a, p.b)] = r
			finished++
			if save != nil {
				b, _ := json.Marshal(r)
				save.Write(append(b, '\n'))
			}
			if opt.Progress != nil {
				fmt.Fprintf(opt.Progress, "[%d/%d] %s\n", finished, len(schedule), r.Line)
			}
		}(p)
	}
	wg.Wait()
	var out []Result
	for _, p := range schedule {
		if r, ok := done[key(p.round, p.a, p.b)]; ok {
			out = append(out, r)
		}
	}
	return out, firstErr
}

func load(file string) ([]Result, error) {
	f, err := os.Open(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Result
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			// A line cut by a stop mid-write: the game is played again.
			continue
		}
		out = append(out, r)
	}
	return out, sc.Err()
}

// Standing is one program's line of the table.
type Standing struct {
	Player                     string
	Games, Wins, Draws, Losses int
	Illegal                    int
	Limit                      int // of the illegal ends, those a resource limit made
	Points                     float64
	Elo, EloError              float64 // relative to the field's average; the error is a 95% interval's half width
}

// Table totals the results by program, best points first.
func Table(results []Result) []Standing {
	by := map[string]*Standing{}
	get := func(p string) *Standing {
		if by[p] == nil {
			by[p] = &Standing{Player: p}
		}
		return by[p]
	}
	for _, r := range results {
		for s := 0; s < 2; s++ {
			st := get(r.Seats[s])
			st.Games++
			st.Points += r.Points[s]
			switch r.Score[s] {
			case 1:
				st.Wins++
			case 0.5:
				st.Draws++
			default:
				st.Losses++
			}
			if r.Illegal[s] {
				st.Illegal++
			}
			if r.Limit[s] {
				st.Limit++
			}
		}
	}
	var out []Standing
	for _, st := range by {
		st.Elo, st.EloError = elo(st.Wins, st.Draws, st.Games)
		out = append(out, *st)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Points != out[j].Points {
			return out[i].Points > out[j].Points
		}
		return out[i].Player < out[j].Player
	})
	return out
}

// elo estimates a program's rating against the field from its score fraction, with the
// 95% error of that fraction carried through the logistic curve. The fraction is kept off 0
// and 1 by half a game, so that a clean sweep still has a finite estimate.
func elo(wins, draws, games int) (rating, margin float64) {
	if games == 0 {
		return 0, 0
	}
	n := float64(games)
	p := (float64(wins) + 0.5*float64(draws)) / n
	p = math.Min(math.Max(p, 0.5/n), 1-0.5/n)
	toElo := func(p float64) float64 { return -400 * math.Log10(1/p-1) }
	se := math.Sqrt(p * (1 - p) / n)
	lo, hi := math.Max(p-1.96*se, 0.5/n), math.Min(p+1.96*se, 1-0.5/n)
	return toElo(p), (toElo(hi) - toElo(lo)) / 2
}

// WriteTable prints the table for people. The program column is 24 characters wide, or
// as wide as the longest program's name (a long path), so that the columns stay aligned.
func WriteTable(w io.Writer, st []Standing) {
	width := 24
	for _, s := range st {
		width = max(width, utf8.RuneCountInString(s.Player))
	}
	fmt.Fprintf(w, "%-4s %-*s %5s %5s %5s %5s %5s %7s %7s %12s\n", "rank", width, "program", "games", "wins", "draws", "illeg", "limit", "points", "elo", "+/-")
	for i, s := range st {
		fmt.Fprintf(w, "%-4d %-*s %5d %5d %5d %5d %5d %7.1f %7.0f %12.0f\n", i+1, width, s.Player, s.Games, s.Wins, s.Draws, s.Illegal, s.Limit, s.Points, s.Elo, s.EloError)
	}
}

// WriteCSV writes the table as CSV.
func WriteCSV(w io.Writer, st []Standing) error {
	fmt.Fprintln(w, "rank,program,games,wins,draws,losses,illegal,limit,points,elo,elo_error")
	for i, s := range st {
		if _, err := fmt.Fprintf(w, "%d,%q,%d,%d,%d,%d,%d,%d,%.2f,%.0f,%.0f\n", i+1, s.Player, s.Games, s.Wins, s.Draws, s.Losses, s.Illegal, s.Limit, s.Points, s.Elo, s.EloError); err != nil {
			return err
		}
	}
	return nil
}
