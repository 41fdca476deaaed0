package refereejudges

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"gauntlet/harness/grading/tournament"
	"gauntlet/hub/refereehub"
)

// Match is a tournament match: one game of the reference runner between players a (who
// moves first) and b, judged by the referee program, with the runner's flags args. Points
// are the referee's scores (or 0 for the offender and 1 for the other when a player broke
// the game); a higher score wins. With boxes, each game's programs start in them
// (tournament.Boxes).
// When stop is closed, a game that runs ends at once, every program killed, with
// tournament.ErrStopped (the tournament plays it again when resumed).
func Match(boxes *tournament.Boxes, stop <-chan struct{}, referee string, args ...string) tournament.Match {
	return func(a, b string) (tournament.Result, error) {
		var out, errb bytes.Buffer
		launch, done := boxes.Game()
		defer done()
		sigs, stopped, release := tournament.StopSignal(stop)
		defer release()
		if status := refereehub.RunStop(append(append([]string(nil), args...), referee, a, b), &out, &errb, launch, sigs); status != 0 {
			if stopped() {
				return tournament.Result{}, tournament.ErrStopped
			}
			return tournament.Result{}, fmt.Errorf("the runner exited %d: %s", status, strings.TrimSpace(errb.String()))
		}
		line := strings.TrimSpace(out.String())
		f := strings.Fields(line)
		if len(f) < 3 {
			return tournament.Result{}, fmt.Errorf("the runner printed %q", line)
		}
		r := tournament.Result{Line: line}
		for s := range 2 {
			v, err := strconv.Atoi(f[s])
			if err != nil {
				return tournament.Result{}, fmt.Errorf("the runner printed %q", line)
			}
			r.Points[s] = float64(v)
		}
		switch {
		case r.Points[0] > r.Points[1]:
			r.Score = [2]float64{1, 0}
		case r.Points[0] < r.Points[1]:
			r.Score = [2]float64{0, 1}
		default:
			r.Score = [2]float64{0.5, 0.5}
		}
		if f[2] != "end" && len(f) == 4 {
			if p, err := strconv.Atoi(f[3]); err == nil && (p == 0 || p == 1) {
				r.Illegal[p] = true
			}
		}
		return r, nil
	}
}
