package transcript

import (
	"fmt"
	"strings"
)

// Divergence is the point where what a program did first differs from what the engine (or a
// golden file checked against it) says it should have done: the lines that led there, the
// line the program produced instead of the expected one, and the expected one.
type Divergence struct {
	Before []string // the lines before the divergence, all of which matched
	First  int      // the number of Before[0] (or of Got, when Before is empty); 1 for the start
	Got    string   // what came instead (a line, or a description such as "(nothing more)")
	Want   string   // what was expected
}

// Ended is the text of Got or Want when one side has no more lines.
const Ended = "(nothing more)"

// Text renders the divergence for people, with at most context lines before it and a count
// of the earlier ones left out:
//
//	   (4 earlier lines)
//	   5  Player A rolled 1PPPPP
//	   6  Player B rolled 13333A
//	>  7  Player B scored 6 for a total of 7
//	want  Player B scored 5 for a total of 7
//
// Every line is prefixed by prefix (for indentation), and ends with '\n'.
func (d Divergence) Text(prefix string, context int) string {
	var b strings.Builder
	before := d.Before
	first := d.First
	if context >= 0 && len(before) > context {
		skipped := len(before) - context
		fmt.Fprintf(&b, "%s      (%d earlier line%s)\n", prefix, skipped, plural(skipped))
		before = before[skipped:]
		first += skipped
	}
	for i, l := range before {
		fmt.Fprintf(&b, "%s  %4d  %s\n", prefix, first+i, l)
	}
	fmt.Fprintf(&b, "%s> %4d  %s\n", prefix, first+len(before), d.Got)
	fmt.Fprintf(&b, "%s  want  %s\n", prefix, d.Want)
	return b.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
