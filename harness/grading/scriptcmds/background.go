package scriptcmds

import (
	"slices"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// backgrounds are a script's runs in the background (`run ... &`), in the order they
// started, until awaited.
type backgrounds struct {
	mu   sync.Mutex
	runs []namedRun
}

type namedRun struct {
	name string // "" for a bare &
	run  *aRun
}

type backgroundsKey struct{}

// setupBackgrounds gives a script its list of background runs, and stops at the script's
// end those it never awaited: nothing a case started outlives it. Their status is not
// checked then, as with testscript's exec &.
func setupBackgrounds(env *testscript.Env) {
	b := &backgrounds{}
	env.Values[backgroundsKey{}] = b
	env.Defer(func() {
		b.mu.Lock()
		left := b.runs
		b.runs = nil
		b.mu.Unlock()
		for _, n := range left {
			n.run.stop()
		}
	})
}

func backgroundRuns(ts *testscript.TestScript) *backgrounds {
	b, _ := ts.Value(backgroundsKey{}).(*backgrounds)
	if b == nil {
		harnessFail(ts, "run: harness error: the script was not set up by scriptcmds.Setup")
	}
	return b
}

func (b *backgrounds) add(ts *testscript.TestScript, name string, r *aRun) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if name != "" {
		for _, n := range b.runs {
			if n.name == name {
				r.stop()
				harnessFail(ts, "run: a background run named %s is already running", name)
			}
		}
	}
	b.runs = append(b.runs, namedRun{name, r})
}

// matching returns the runs named name, or all of them for "", in the order they started.
func (b *backgrounds) matching(name string) []*aRun {
	b.mu.Lock()
	defer b.mu.Unlock()
	var got []*aRun
	for _, n := range b.runs {
		if name == "" || n.name == name {
			got = append(got, n.run)
		}
	}
	return got
}

// remove forgets an awaited run.
func (b *backgrounds) remove(r *aRun) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.runs = slices.DeleteFunc(b.runs, func(n namedRun) bool { return n.run == r })
}

// Await waits for runs started in the background and checks each as run checks a program
// in the foreground (status, deadline, limits, leftovers); their outputs, one after the
// other in the order they started, become the script's stdout and stderr.
//
//	run -env PORT server $PORT &srv&
//	run -env PORT client $PORT
//	await srv
//	cmp stdout server.out
func Await(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) > 1 {
		harnessFail(ts, "%s", usage("await"))
	}
	name := ""
	if len(args) == 1 {
		name = args[0]
	}
	bg := backgroundRuns(ts)
	runs := bg.matching(name)
	if len(runs) == 0 && name != "" {
		harnessFail(ts, "await: no background run named %s (running: %s)", name, bg.names())
	}
	for _, r := range runs {
		// A failed check ends the script: the runs not yet awaited are still listed, and
		// stopped at its end.
		r.finish(ts)
		bg.remove(r)
	}
}

// allEnded reports whether the script started runs in the background and every one still
// listed has ended (awaited ones are no longer listed).
func (b *backgrounds) allEnded() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.runs) == 0 {
		return false
	}
	for _, n := range b.runs {
		select {
		case <-n.run.done:
		default:
			return false
		}
	}
	return true
}

func (b *backgrounds) names() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var names []string
	for _, n := range b.runs {
		if n.name == "" {
			names = append(names, "&")
		} else {
			names = append(names, n.name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
