// Package respond is the one player runtime of every game: it drives a game's Responder
// (games/judge) over a player process's streams. The player writes its greeting, then for
// each line from the hub writes what the responder reacts with: its stderr text, its
// replies, and exits with its status when it is done; at the end of its input (or a line
// too long to keep) the responder's Lost reaction decides. The reference players of every
// game are a strategy, a responder and this loop.
package respond

import (
	"bufio"
	"errors"
	"io"

	"gauntlet/games/judge"
	"gauntlet/harness/runtime/lineio"
)

// TooLonger is a Responder with a reaction of its own to a line too long to keep (the
// spec of St Lucia calls it a bad message); others get Lost.
type TooLonger interface {
	TooLong() judge.Reaction
}

// Run plays r over stdin and stdout, writing its stderr text to stderr, and returns its
// exit status. Write errors are ignored: a lost hub shows up as the read failure that
// follows. Stderr is flushed before every read, so a hub never waits on it.
func Run(r judge.Responder, stdin io.Reader, stdout, stderr io.Writer) int {
	errw := bufio.NewWriter(stderr)
	defer errw.Flush()
	out := bufio.NewWriter(stdout)
	if g := r.Greeting(); g != "" {
		out.WriteString(g)
		out.Flush()
	}
	in := lineio.NewReader(stdin)
	for {
		errw.Flush()
		var x judge.Reaction
		line, err := in.ReadLine()
		switch tl, ok := r.(TooLonger); {
		case err == nil:
			x = r.React(line)
		case errors.Is(err, lineio.ErrTooLong) && ok:
			x = tl.TooLong()
		default:
			x = r.Lost()
		}
		errw.WriteString(x.Stderr)
		for _, l := range x.Replies {
			out.WriteString(l)
			out.WriteByte('\n')
		}
		out.Flush()
		if x.Done {
			return x.Status
		}
	}
}
