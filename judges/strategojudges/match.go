package strategojudges

import (
	"bytes"
	"fmt"
	"strings"

	"gauntlet/games/stratego"
	"gauntlet/harness/grading/tournament"
	"gauntlet/harness/runtime/limitkill"
	"gauntlet/hub/strategohub"
)

// Match is a tournament match: one game of the reference manager between the AI programs
// a (RED) and b (BLUE), with the manager's flags args, scored by the 2012 competition's
// points. A game the manager could not run (an AI that does not exist) is an error. With
// boxes, each game's AIs start in them (tournament.Boxes). The result's Line is the result
// line, followed for an ILLEGAL, BAD_SETUP or INTERNAL_ERROR end by its reason in
// parentheses, as the manager wrote it on its stderr; a BAD_SETUP of both sides counts as
// an illegal end of each.
// When stop is closed, a game that runs ends at once, every program killed, with
// tournament.ErrStopped (the tournament plays it again when resumed).
func Match(boxes *tournament.Boxes, stop <-chan struct{}, args ...string) tournament.Match {
	return func(a, b string) (tournament.Result, error) {
		var out, errb bytes.Buffer
		launch, done := boxes.Game()
		defer done()
		sigs, stopped, release := tournament.StopSignal(stop)
		defer release()
		cpu := limitkill.SoftCPU() // the AIs' limit: the boxes', or this process's they inherit
		if boxes != nil {
			cpu = boxes.CPU()
		}
		if status := strategohub.RunStop(append(append([]string(nil), args...), a, b), strings.NewReader(""), &out, &errb, launch, sigs, cpu); status != 0 {
			if stopped() {
				return tournament.Result{}, tournament.ErrStopped
			}
			return tournament.Result{}, fmt.Errorf("the manager exited %d: %s", status, strings.TrimSpace(errb.String()))
		}
		line := strings.TrimSpace(out.String())
		if i := strings.LastIndexByte(line, '\n'); i >= 0 {
			line = line[i+1:] // after -o stdout's moves
		}
		named, o, _, err := stratego.ParseResult(line)
		if err != nil {
			return tournament.Result{}, err
		}
		r := tournament.Result{Line: line}
		for l := range strings.SplitSeq(errb.String(), "\n") {
			if why, ok := strings.CutPrefix(l, "stratego: "); ok {
				r.Line += " (" + why + ")"
			}
		}
		for s := range 2 {
			isNamed := stratego.Colour(s) == named || named == stratego.Both
			r.Points[s] = stratego.Points(o, isNamed)
			switch {
			case o == stratego.Draw || o == stratego.DrawDefault || o == stratego.Internal:
				r.Score[s] = 0.5
			case o == stratego.Victory && isNamed, o != stratego.Victory && !isNamed:
				r.Score[s] = 1
			}
			r.Illegal[s] = isNamed && (o == stratego.Illegal || o == stratego.BadSetup)
			r.Limit[s] = r.Illegal[s] && strategohub.LimitNamed(r.Line, stratego.Colour(s))
		}
		return r, nil
	}
}
