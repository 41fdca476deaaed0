package grade

import (
	"fmt"
	"io"
	"os"
	"strings"

	"gauntlet/harness/runtime/transcript"
)

// conversationLines bounds the messages a report shows of the mock players' conversation:
// the last ones, where the hub went wrong.
const conversationLines = 30

// maxRecord bounds what is read of one mock player's record.
const maxRecord = 8 << 20

// conversationWidth bounds the bytes shown of one line (a hub that sends a 100,000-byte
// line is shown its first ones and the count of the rest).
const conversationWidth = 200

// MockConversation renders, for a failed case with a hub under test, what the hub sent each
// mock player and what each answered, in order, from the records the witnessed mock players
// wrote outside the subject's reach (scriptcmds.WitnessRecords): never from the case's log,
// where the subject's own output could imitate it. Each mock player's lines are in its own
// order; the players' lines are merged by the time each was seen. The faults the mocks
// injected and how each ended are shown between the lines. It returns "" when there is no
// record (a case without witnessed mock players).
func MockConversation(files []string) string {
	var lists [][]transcript.Event
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		events, _ := transcript.ReadJSON(io.LimitReader(f, maxRecord))
		f.Close()
		lists = append(lists, events)
	}
	var lines []string
	for _, e := range transcript.Merge(lists...) {
		switch e.Kind {
		case transcript.Line:
			data, cut := e.Data, e.Cut
			if len(data) > conversationWidth {
				data, cut = data[:conversationWidth], cut+int64(len(data)-conversationWidth)
			}
			l := e.From + " -> " + e.To + " | " + transcript.Escape(data)
			if cut > 0 {
				l += fmt.Sprintf(" [cut: %d more bytes]", cut)
			}
			if e.NoEOL {
				l += " " + noNewline
			}
			lines = append(lines, l)
		case transcript.Note:
			lines = append(lines, e.From+": "+transcript.Escape(e.Data))
		}
	}
	if len(lines) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("the players' side, as the harness recorded it (what the hub sent each one and what it answered)")
	if n := len(lines); n > conversationLines {
		fmt.Fprintf(&b, ", the last %d of %d:\n", conversationLines, n)
		lines = lines[n-conversationLines:]
	} else {
		b.WriteString(":\n")
	}
	for _, l := range lines {
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}

// exchangedHeader introduces, in the mock clients' report of a failure, the last lines they
// exchanged with the Clue server under test (judges/cluejudges).
const exchangedHeader = "the last lines exchanged:"

// JudgeExchange renders the lines a judge that plays the clients of a server under test
// (the mock clients of a Clue server) exchanged with it before the failure, from the
// judge's own output (scriptcmds.JudgeOutputFile, which the harness writes: never from the
// log, where the subject's output could imitate it). It returns "" when the judge's
// output has none.
func JudgeExchange(judged string) string {
	i := strings.Index(judged, "\n"+exchangedHeader+"\n")
	if i < 0 {
		return ""
	}
	var lines []string
	for _, l := range strings.Split(judged[i+len(exchangedHeader)+2:], "\n") {
		if !strings.HasPrefix(l, "  ") || strings.TrimSpace(l) == "" {
			break
		}
		lines = append(lines, l)
	}
	if len(lines) == 0 {
		return ""
	}
	return "the mock clients' side, as the judge recorded it (the last lines exchanged with the server):\n" +
		strings.Join(lines, "\n") + "\n"
}
