package blackbox

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"gauntlet/fuzz/pipegame"
	"gauntlet/harness/judges/faults"
)

// The minimiser's passes, in the order it runs them: first whole messages or steps are
// dropped, then lines are shortened, then the injected faults are dropped. Each pass offers
// smaller variants of a case; the minimiser keeps the first that still fails with the same
// signature and asks the pass again, until no variant is kept.
const (
	passDrop = iota
	passShorten
	passFaults
	numPasses
)

// shrinker is a case the minimiser can shrink.
type shrinker interface {
	// variants returns the smaller variants of the case offered by a pass, most promising
	// (largest cut) first.
	variants(g Game, pass int) []shrinker
	// size measures the case, for reports: steps (or seats) and bytes.
	size() (steps, bytes int)
	// waits reports whether the case waits on purpose (a pause, a signal, a player that
	// sleeps or hangs), whatever the program under test does: the campaign plays such
	// cases beside its busy ones (playAhead).
	waits() bool
}

// Budget bounds one minimisation.
type Budget struct {
	// Tries: candidate runs at most (each runs the subject and the reference), as a
	// minimiser trying one candidate at a time counts them; one trying several at once
	// (Options.Jobs) may also run, and not count, those beside the first it keeps.
	Tries int
	Time  time.Duration // wall time at most
}

// minimise shrinks c while same(candidate) holds, within the budget, and returns the
// smallest case kept and the number of candidates tried. It tries up to jobs variants at
// once (same must allow that) and keeps the first, in the passes' order, that still
// fails: the case kept and the tries counted are those of trying the variants one at a
// time, a batch counting its variants up to the first kept and none after it, so they do
// not depend on jobs (the time budget aside, which is checked before each batch).
func minimise(g Game, c shrinker, same func(shrinker) bool, b Budget, jobs int) (shrinker, int) {
	deadline := time.Now().Add(b.Time)
	jobs = max(jobs, 1)
	tries := 0
	for round := 0; round < 4; round++ {
		progress := false
		for pass := 0; pass < numPasses; pass++ {
			for kept := true; kept; {
				kept = false
				vs := c.variants(g, pass)
				for i := 0; i < len(vs); {
					if tries >= b.Tries || time.Now().After(deadline) {
						return c, tries
					}
					batch := vs[i:min(i+jobs, len(vs), i+b.Tries-tries)]
					if k := firstSame(batch, same); k >= 0 {
						tries += k + 1
						c, kept, progress = batch[k], true, true
						break
					}
					tries += len(batch)
					i += len(batch)
				}
			}
		}
		if !progress {
			break
		}
	}
	return c, tries
}

// firstSame tries the variants at once and returns the index of the first for which same
// holds, or -1.
func firstSame(vs []shrinker, same func(shrinker) bool) int {
	if len(vs) == 1 {
		if same(vs[0]) {
			return 0
		}
		return -1
	}
	holds := make([]bool, len(vs))
	var wg sync.WaitGroup
	for i, v := range vs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			holds[i] = same(v)
		}()
	}
	wg.Wait()
	return slices.Index(holds, true)
}

// shorter returns shorter versions of s: halves of a long string, else s without each one
// of its bytes in turn.
func shorter(s string) []string {
	if s == "" {
		return nil
	}
	if len(s) > 64 {
		return []string{s[:len(s)/2], s[len(s)/2:], s[:len(s)-len(s)/4]}
	}
	var out []string
	seen := map[string]bool{}
	for i := 0; i < len(s); i++ {
		t := s[:i] + s[i+1:]
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

func (c *PlayerCase) size() (int, int) {
	n := 0
	for _, st := range c.Steps {
		n += len(st.Text)
	}
	return len(c.Steps), n
}

func (c *PlayerCase) variants(g Game, pass int) []shrinker {
	var out []shrinker
	switch pass {
	case passDrop:
		var msgs []int
		for i, st := range c.Steps {
			if st.Op == OpSend || st.Op == OpRaw {
				msgs = append(msgs, i)
			}
		}
		for _, ch := range pipegame.Chunks(len(msgs)) {
			drop := map[int]bool{}
			for _, k := range msgs[ch[0]:ch[1]] {
				drop[k] = true
			}
			d := c.clone()
			d.Steps = d.Steps[:0]
			for i, st := range c.Steps {
				if !drop[i] {
					d.Steps = append(d.Steps, st)
				}
			}
			out = append(out, d)
		}
	case passShorten:
		for i, st := range c.Steps {
			if st.Op != OpSend && st.Op != OpRaw {
				continue
			}
			text, nl := st.Text, ""
			if st.Op == OpRaw && strings.HasSuffix(text, "\n") {
				text, nl = strings.TrimSuffix(text, "\n"), "\n"
			}
			for _, s := range shorter(text) {
				d := c.clone()
				d.Steps[i].Text = s + nl
				if st.Op == OpSend {
					d.Steps[i].Await = g.Solicits(s)
				}
				out = append(out, d)
			}
		}
	case passFaults:
		for i, st := range c.Steps {
			if st.Op == OpSend || st.Op == OpRaw {
				continue
			}
			d := c.clone()
			d.Steps = append(d.Steps[:i], d.Steps[i+1:]...)
			out = append(out, d)
		}
	}
	return out
}

func (c *HubCase) size() (int, int) {
	n := 0
	for _, f := range c.Setup.Files {
		n += len(f)
	}
	for _, rules := range c.Faults {
		for _, r := range rules {
			n += len(r)
		}
	}
	return len(c.Setup.Players), n
}

func (c *HubCase) variants(g Game, pass int) []shrinker {
	// A setup whose honest game never ends would only run into the deadline.
	var out []shrinker
	for _, v := range c.allVariants(g, pass) {
		if g.Finite(v.Setup) {
			out = append(out, v)
		}
	}
	return out
}

func (c *HubCase) allVariants(g Game, pass int) []*HubCase {
	var out []*HubCase
	switch pass {
	case passDrop:
		// Seats, then parts of the input files.
		for i := range c.Setup.Players {
			if len(c.Setup.Players) == 1 {
				break
			}
			d := c.clone()
			d.Setup.Players = append(d.Setup.Players[:i], d.Setup.Players[i+1:]...)
			d.Faults = append(d.Faults[:i], d.Faults[i+1:]...)
			out = append(out, d)
		}
		for _, s := range g.Smaller(c.Setup) {
			d := c.clone()
			d.Setup.Files = s.Files
			out = append(out, d)
		}
	case passShorten:
		for i, rules := range c.Faults {
			for j, rule := range rules {
				for _, s := range shorterRule(rule) {
					d := c.clone()
					d.Faults[i][j] = s
					out = append(out, d)
				}
			}
		}
	case passFaults:
		for i, rules := range c.Faults {
			for j := range rules {
				d := c.clone()
				d.Faults[i] = append(d.Faults[i][:j], d.Faults[i][j+1:]...)
				out = append(out, d)
			}
		}
	}
	return out
}

// shorterRule returns smaller versions of a fault rule: an earlier message number, a
// shorter string or a shorter long line.
func shorterRule(rule string) []string {
	words, err := faults.Words(rule)
	if err != nil || len(words) < 2 {
		return nil
	}
	var out []string
	at := 1 // index of the action
	if words[0] == "after" || words[0] == "reply" {
		if k, err := strconv.Atoi(words[1]); err == nil && k > 1 {
			for _, s := range []int{1, k / 2, k - 1} {
				w := append([]string(nil), words...)
				w[1] = strconv.Itoa(s)
				out = append(out, joinRule(w))
			}
		}
		at = 2
	}
	if len(words) != at+2 {
		return out
	}
	switch words[at] {
	case "send", "line":
		for _, s := range shorter(words[at+1]) {
			w := append([]string(nil), words...)
			w[at+1] = s
			out = append(out, joinRule(w))
		}
	case "long":
		if n, err := strconv.Atoi(words[at+1]); err == nil && n > 0 {
			w := append([]string(nil), words...)
			w[at+1] = strconv.Itoa(n / 2)
			out = append(out, joinRule(w))
		}
	}
	return out
}

// joinRule writes the words of a rule back, quoting the string argument of send and line.
func joinRule(w []string) string {
	out := append([]string(nil), w...)
	for i := range out {
		if i > 0 && (out[i-1] == "send" || out[i-1] == "line") {
			out[i] = quoteRule(out[i])
		}
	}
	return strings.Join(out, " ")
}
