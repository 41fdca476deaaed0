package transcript

import "strings"

// Conversation renders the line events only, without times, one "FROM -> TO | TEXT" line
// each (TEXT as Escape gives it, then " [no newline]" when the line had none). When who is
// not empty, only the lines written or read by who are kept: one party's view of a game,
// whose order does not depend on timing, so it can be compared byte for byte.
func Conversation(events []Event, who string) string {
	var b strings.Builder
	for _, e := range events {
		if e.Kind != Line || (who != "" && e.From != who && e.To != who) {
			continue
		}
		b.WriteString(e.From + " -> " + e.To + " | " + Escape(e.Data))
		if e.NoEOL {
			b.WriteString(" [no newline]")
		}
		b.WriteByte('\n')
	}
	return b.String()
}
