package grade

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"gauntlet/harness/grading/scriptcmds"
	"gauntlet/harness/judges/mockhub"
	"gauntlet/harness/runtime/transcript"
)

// divergenceContext is how many matching lines before the first divergence a report shows.
const divergenceContext = 10

// Divergence renders, from a failed case's log, what the subject did up to its first
// divergence from what was expected, with that point marked (transcript.Divergence.Text):
// for a player driven by the mock hub, the conversation, from the judge's own output
// (judged: scriptcmds.JudgeOutputFile, which the harness saves apart from the log); for a
// wrong stdout or stderr, that output line by line, the wanted line under the first wrong
// one. The expected side is the engine's (the conversations and golden outputs of the
// suites are generated from it or checked against it) or the spec's own text. It returns ""
// when there is neither. What failed is the script's line that testscript's last line of
// the log names (failureOf), never a command line read in the log, where the subject's
// output may print one (with a diff after it) as well as any other text.
func Divergence(log string, script []byte, judged string, runs *scriptcmds.Runs) string {
	if i := strings.Index("\n"+judged, "\n"+mockhub.DivergenceHeader+"\n"); i >= 0 {
		var b strings.Builder
		b.WriteString(mockhub.DivergenceHeader + "\n")
		for _, l := range strings.Split(judged[i+len(mockhub.DivergenceHeader)+1:], "\n") {
			if !strings.HasPrefix(l, "  ") {
				break
			}
			b.WriteString(l + "\n")
		}
		return b.String()
	}
	// What the failed command logged (a comparison's diffs), after its echo.
	f := failureOf(log, script)
	_, out, ok := f.echo(log)
	if !ok {
		return ""
	}
	cmd := f.cmd
	fields := scriptWords(cmd)
	// cmpexcept REGEXP STREAM ... compares the stream without the lines REGEXP matches: its
	// diff numbers the lines kept, so the whole output is filtered the same way.
	var skip *regexp.Regexp
	if len(fields) >= 3 && fields[0] == "cmpexcept" {
		re, err := regexp.Compile(fields[1])
		if err != nil {
			return ""
		}
		skip = re
		fields = append([]string{"cmpexcept"}, fields[2:]...)
	}
	if len(fields) < 2 || (fields[0] != "cmp" && fields[0] != "cmpalt" && fields[0] != "cmpaltenv" && fields[0] != "cmpprefix" && fields[0] != "cmpexcept") || (fields[1] != "stdout" && fields[1] != "stderr") {
		return ""
	}
	d, ok := lastDiff(out)
	if !ok {
		return ""
	}
	div := transcript.Divergence{Want: transcript.Ended, Got: transcript.Ended}
	if d.want != nil {
		div.Want = transcript.Escape([]byte(*d.want))
		if d.wantNoEOL {
			div.Want += " " + noNewline
		}
	}
	if d.got != nil {
		div.Got = transcript.Escape([]byte(*d.got))
		if d.gotNoEOL {
			div.Got += " " + noNewline
		}
	}
	// The diff only holds a few lines of context; the whole output is what the command
	// that made it the script's recorded (scriptcmds.Runs), used when it agrees with the
	// diff (never the log's blocks of output, where the subject's stderr may print a block
	// of stdout of its own).
	var lines []string
	if text, ok := runs.Output(fields[1]); ok {
		lines = outputLines(text)
	}
	if skip != nil && lines != nil {
		lines = slices.DeleteFunc(lines, skip.MatchString)
	}
	switch {
	case lines != nil && d.got != nil && len(lines) >= d.line && lines[d.line-1] == *d.got,
		lines != nil && d.got == nil && len(lines) == d.line-1:
		div.Before, div.First = lines[:d.line-1], 1
	default:
		div.Before, div.First = d.context, d.line-len(d.context)
	}
	for i, l := range div.Before {
		div.Before[i] = transcript.Escape([]byte(l))
	}
	what := fields[1] + ", line by line"
	if skip != nil {
		what += fmt.Sprintf(" (without the lines matching %q, which this case does not mark)", skip.String())
	}
	return what + ", up to the first divergence from the expected:\n" +
		div.Text("  ", divergenceContext)
}

// outputLines are the lines of an output: a final newline ends the last line, and does not
// start another.
func outputLines(text string) []string {
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return []string{}
	}
	return strings.Split(text, "\n")
}
