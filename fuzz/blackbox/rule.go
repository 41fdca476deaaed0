package blackbox

import (
	"fmt"
	"strconv"
	"strings"

	"gauntlet/fuzz/record"
	"gauntlet/games/contract"
	"gauntlet/harness/runtime/transcript"
)

// Rule is the rule of a game's spec that a finding shows broken: what the reference did
// where the subject did otherwise, named from what the fuzzer measured (the reference's
// ending and the line it wrote there), never from the subject's output.
type Rule struct {
	ID    string // short and stable, e.g. "player/exit-6" or "player/stderr/Player"
	Words string // the rule in the project's words
}

// Group is one broken rule of a campaign and the findings that show it.
type Group struct {
	Subject  Subject
	Rule     Rule
	Runs     int   // the runs that broke it: each finding's first run and its duplicates
	Findings []int // indices into Summary.Findings
	Shortest int   // the index of its smallest finding (fewest steps or seats)
}

// ruleOf names the rule a difference breaks. An ending that differs (a hang, a death, another
// exit status) breaks the row of the program's exit table that the reference's status
// stands for; a line that differs breaks the rule that line of the reference follows: an
// exit table's message, or what the game's adapter says of the line's kind.
func ruleOf(g Game, role Role, sig Signature, ref record.Exit) Rule {
	switch sig.Kind {
	case KindTimeout, KindCrash, KindWrongExit:
		return endingRule(g, role, ref)
	case KindLate:
		return FlushRule(role)
	case KindLimit:
		return Rule{ID: string(role) + "/limit", Words: "no rule of the game: a resource limit ended the program " +
			"(its CPU time, or a file past its size), where the reference ended within its limits; a grade calls this LIMIT"}
	}
	stream, want, ok := wantedLine(sig.Where)
	if !ok {
		return Rule{ID: string(role) + "/output", Words: "the output the reference writes"}
	}
	if want == "" && strings.Contains(sig.Where, "want EOF") {
		return Rule{ID: string(role) + "/" + stream + "/end",
			Words: "nothing more on " + stream + " where the reference's output ends"}
	}
	for _, row := range g.Contract(role) {
		if row.Message != "" && row.Message == want {
			return exitRule(role, row)
		}
	}
	id, words := g.LineRule(role, stream, want)
	if id == "" {
		id, _, _ = strings.Cut(strings.TrimSpace(want), " ")
		words = fmt.Sprintf("the %s line the reference writes there (one beginning %q)", stream, id)
	}
	return Rule{ID: string(role) + "/" + stream + "/" + id, Words: words}
}

// FlushRule is the rule a late reply breaks, with the hint for the usual cause.
func FlushRule(role Role) Rule {
	return Rule{ID: string(role) + "/flush", Words: "each reply must reach the other side as soon as it is written, " +
		"before the program waits for the next message: the reference's reply came and this one did not, " +
		"within the step timeout (it came only when the input ended, or never). " +
		"Hint: stdout to a pipe is fully buffered in C: call fflush(stdout) after each reply, " +
		"or the hub waits for it forever and a real game deadlocks"}
}

// endingRule is the rule of the reference's ending.
func endingRule(g Game, role Role, ref record.Exit) Rule {
	if ref.Signal != 0 {
		name := transcript.SignalName(ref.Signal)
		return Rule{ID: string(role) + "/signal-" + name,
			Words: "die of " + name + " (the case sent it, and the spec gives it no other meaning: a C program's default action)"}
	}
	for _, row := range g.Contract(role) {
		if row.Status == ref.Code {
			return exitRule(role, row)
		}
	}
	return Rule{ID: fmt.Sprintf("%s/exit-%d", role, ref.Code), Words: fmt.Sprintf("exit with status %d", ref.Code)}
}

// exitRule is the rule of one row of an exit table.
func exitRule(role Role, row contract.Row) Rule {
	w := fmt.Sprintf("%s: exit %d", row.Condition, row.Status)
	if row.Message != "" {
		w += " with " + strconv.Quote(row.Message)
	}
	return Rule{ID: fmt.Sprintf("%s/exit-%d", role, row.Status), Words: w}
}

// refined adds to an exit rule the rule of the line the reference refused, when the game
// can name it: two bugs that end the same way (say, a space accepted in one message, a
// leading zero in another) are then two rules.
func refined(r Rule, refusal string) Rule {
	if refusal == "" {
		return r
	}
	slug := strings.Map(func(c rune) rune {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			return c
		case c >= 'A' && c <= 'Z':
			return c - 'A' + 'a'
		}
		return '-'
	}, refusal)
	words := strings.FieldsFunc(slug, func(c rune) bool { return c == '-' })
	if len(words) > 6 {
		words = words[:6]
	}
	return Rule{ID: r.ID + "/" + strings.Join(words, "-"), Words: r.Words + "; the line it refused breaks: " + refusal}
}

// wantedLine reads a signature's Where ("stderr: want \"...\", got ..."): the stream and the
// line the reference wrote ("" for EOF). A line the signature cut short ends with "...".
func wantedLine(where string) (stream, want string, ok bool) {
	stream, rest, ok := strings.Cut(where, ": want ")
	if !ok {
		return "", "", false
	}
	if strings.HasPrefix(rest, "EOF") {
		return stream, "", true
	}
	q, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return "", "", false
	}
	want, _ = strconv.Unquote(q)
	return stream, want, true
}
