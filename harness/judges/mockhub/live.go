package mockhub

import (
	"fmt"
	"os"
	"time"

	"gauntlet/games/judge"
	"gauntlet/harness/judges/live"
)

// liveGame is the game a conversation's live steps play.
type liveGame struct {
	g       *live.Game
	started bool
	pending [][]string // the reference seats' replies the hub has not yet read
}

func newLiveGame(spec *JudgeSpec) (*liveGame, error) {
	g, err := live.New(spec.Game, spec.Params, os.ReadFile)
	if err != nil {
		return nil, fmt.Errorf("conversation line %d: %w", spec.Source, err)
	}
	return &liveGame{g: g, pending: make([][]string, g.Judge.Seats())}, nil
}

// live plays a Live step: the judge runs the game, the reference responders answer for
// the other seats, and every line the player sends is taken by the judge, which accepts
// any legal one. done gets each line exchanged with the player, for the account of a
// failure. The error is the harness's own (a reference seat that does not answer).
func (p *proc) live(st *Step, lv *liveGame, timeout time.Duration, done *[]string) (want, got string, ok bool, err error) {
	j, seat := lv.g.Judge, lv.g.Seat
	deliver := func(outs []judge.Out) {
		for _, o := range outs {
			switch {
			case o.To == judge.Log:
			case o.To == seat:
				p.stdin.Write([]byte(o.Line + "\n"))
				*done = append(*done, "hub -> player | "+showLine(o.Line, true))
			default:
				r := lv.g.Others[o.To].React(o.Line)
				lv.pending[o.To] = append(lv.pending[o.To], r.Replies...)
			}
		}
	}
	if !lv.started {
		lv.started = true
		for s := 0; s < j.Seats(); s++ {
			deliver(j.Welcome(s))
		}
		deliver(j.Start())
	}
	for taken := 0; !j.Over() && (st.Lines == 0 || taken < st.Lines); {
		s := j.Awaiting()
		if s < 0 {
			return "", "", false, fmt.Errorf("live: the judge awaits no one in a game not over")
		}
		if s != seat {
			if len(lv.pending[s]) == 0 {
				return "", "", false, fmt.Errorf("live: reference seat %d has no reply where one is awaited", s)
			}
			line := lv.pending[s][0]
			lv.pending[s] = lv.pending[s][1:]
			outs, v := j.Take(line)
			if v != nil {
				return "", "", false, fmt.Errorf("live: a reference seat broke a rule: %v", v)
			}
			deliver(outs)
			continue
		}
		allowed := "a line the rules allow: " + j.Allowed()
		timer, by := time.NewTimer(timeout), time.Now().Add(timeout)
		timedOut := p.fill(timer.C, by, hasLine)
		timer.Stop()
		if !hasLine(p.buf) {
			want, got, ok = p.take(allowed, len(p.buf), timedOut, timeout)
			return want, got, ok, nil
		}
		n := 0
		for p.buf[n] != '\n' {
			n++
		}
		line := string(p.buf[:n])
		p.buf = p.buf[n+1:]
		taken++
		outs, v := j.Take(line)
		if v != nil {
			return allowed, fmt.Sprintf("%q, which breaks the rule: %s", line+"\n", v.Rule), false, nil
		}
		*done = append(*done, "player -> hub | "+showLine(line, true))
		deliver(outs)
	}
	return "", "", true, nil
}
