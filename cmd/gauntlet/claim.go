package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// With -steal, the shards of a cohort that share one -out folder also pull work from each
// other: a shard that has graded its own part goes on with the submissions of the other
// parts that no shard has started, so that one part slowed by a submission that takes
// long does not hold the whole array (the part holding a hung student would take 1590 s,
// the other 267 s). Who grades what is settled by claims: before it builds a
// submission, a shard makes -out/.claims/NAME with O_EXCL, and keeps its time fresh while
// it grades. The plan stays what it is (deterministic: the manifests, gauntlet merge);
// only who writes a report changes, and every report lands in the shared -out.

// claimsDir is the folder of the claims in -out.
const claimsDir = ".claims"

// Claims are kept fresh every claimBeat while their submission is graded; one older than
// claimStale is a grade that died (its shard was killed), and the submission's own part
// takes it over on a rerun.
const (
	claimBeat  = 15 * time.Second
	claimStale = 2 * time.Minute
)

// claimer takes claims in outDir for shard who ("K/N").
type claimer struct {
	dir, who string
	beat     time.Duration
	stale    time.Duration
}

func newClaimer(outDir, who string) *claimer {
	return &claimer{dir: filepath.Join(outDir, claimsDir), who: who, beat: claimBeat, stale: claimStale}
}

// claim takes the claim of submission name: a new claim always; one already there only
// for a submission of the shard's own part (own) whose claim has gone stale (a grade that
// died). It returns a function that ends the claim's heartbeat, or false (and why) when
// another shard holds it.
func (c *claimer) claim(name string, own bool) (release func(), why string, ok bool) {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return nil, err.Error(), false
	}
	path := filepath.Join(c.dir, name)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		st, serr := os.Stat(path)
		held, _ := os.ReadFile(path)
		if !own || serr != nil || time.Since(st.ModTime()) < c.stale {
			return nil, fmt.Sprintf("claimed by shard %s", held), false
		}
		// Stale: taken over, by a fresh file renamed into place.
		tmp := path + ".new." + fmt.Sprint(os.Getpid())
		if f, err = os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644); err == nil {
			err = os.Rename(tmp, path)
		}
	}
	if err != nil {
		return nil, err.Error(), false
	}
	fmt.Fprint(f, c.who)
	f.Close()
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(c.beat)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-t.C:
				os.Chtimes(path, now, now)
			}
		}
	}()
	return func() { close(done) }, "", true
}
