package grade

import (
	"sort"
	"strconv"
	"strings"
)

// groupCases gathers the cases keep selects into groups of the same cause (see cause), in
// the order each group first appears: one bug met in many cases (a missing program, a
// display without its trailing spaces, a crash at end of file) is one entry in a report,
// with its cases.
func groupCases(cases []CaseReport, keep func(CaseReport) bool) [][]CaseReport {
	var groups [][]CaseReport
	index := map[string]int{}
	for _, c := range cases {
		if !keep(c) {
			continue
		}
		key := cause(c)
		i, ok := index[key]
		if !ok {
			i = len(groups)
			index[key] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], c)
	}
	return groups
}

func failed(c CaseReport) bool { return !c.Verdict.Passed() }

var (
	// runPrefix is the command a run failure quotes: "run $PLAYER_A 2 7: ".
	runPrefix = lazyRegexp(`^run [^\n]*?: (want )`)
	// stepPrefix is where a conversation failed: "FAIL at step 7 (line 8 of ...: exit 6): ".
	stepPrefix = lazyRegexp(`^FAIL at step \d+ \(line \d+ of the conversation: [^\n]*?\): `)
	// lineDiff is a compared output's first differing line.
	lineDiff = lazyRegexp(`(stdout|stderr|[^ :]+) (?:and [^ ]+ differ|does not begin with [^ ]+): at line \d+, want ("(?:[^"\\]|\\.)*"|EOF), got ("(?:[^"\\]|\\.)*"|EOF)`)
	digits   = lazyRegexp(`[0-9]+`)
	// runSays is a run's command before what happened to it: "run $DEALER d p a exited ...".
	runSays = lazyRegexp(`^run [^\n]*? ((exited|did not finish|was killed|left|ran into|wrote more) )`)
	// pids are process ids, which differ in every run of the same bug.
	pids = lazyRegexp(`\b(pid|pids|process|child of pid) [0-9]+`)
	// measuredTimes are measured times ("after 10.02s", "CPU 0.311s").
	measuredTimes = lazyRegexp(`\b[0-9]+(\.[0-9]+)?(s|ms)\b`)
)

// cause is what makes two failures the same for a report: the verdict, the account
// without what names the case itself, and the shape of the recorded conversation's end
// (conversationShape). A run's command line and a conversation's step
// number are left out; a compared output's first differing line counts by its stream and
// its kind (the wanted line's first word, numbers as 9), and a line that differs only in
// its trailing spaces is that, whatever its text. Process ids and measured times, which
// differ in every run, are left out too. The case's own name never counts.
func cause(c CaseReport) string {
	d := c.Detail
	if m := runPrefix().FindStringSubmatchIndex(d); m != nil {
		d = d[m[2]:]
	} else if m := runSays().FindStringSubmatchIndex(d); m != nil {
		d = d[m[2]:]
	}
	d = pids().ReplaceAllString(d, "$1 N")
	d = measuredTimes().ReplaceAllString(d, "Ns")
	d = stepPrefix().ReplaceAllString(d, "")
	if m := lineDiff().FindStringSubmatch(d); m != nil {
		want, got := unquoted(m[2]), unquoted(m[3])
		kind := "first word " + digits().ReplaceAllString(firstWord(want), "9")
		if want != got && strings.TrimRight(want, " ") == strings.TrimRight(got, " ") {
			kind = "trailing spaces"
		}
		d = m[1] + ": " + kind
	}
	// A run that is not marked for a reason of its own is not joined with marked ones:
	// the group's entry says whether it is marked by its first case.
	return string(c.Verdict) + "\x00" + d + "\x00" + conversationShape(c.Conversation) + "\x00" + c.Unmarked + "\x00" + c.ChargedIn
}

// conversationShape is what a recorded conversation (MockConversation) says of how each
// player's part ended: for each player, the last line it was sent or sent and the last
// note about it (a fault injected, how it ended), with every number as 9, the players in
// no order and each shape once. Two runs of one bug end their conversations the same way
// whatever the game (a negative points field in the HAP that ends each, then the same
// exit); runs whose hub failed the same way for different reasons do not (a negative
// points field in one, a reply without its newline in another). "" without a
// conversation.
func conversationShape(conv string) string {
	lines := strings.Split(conv, "\n")
	if len(lines) < 2 {
		return ""
	}
	last, note := map[string]string{}, map[string]string{}
	for _, l := range lines[1:] {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		who, isNote := conversationParty(l)
		if who == "" {
			continue
		}
		if isNote {
			note[who] = digits().ReplaceAllString(l, "9")
		} else {
			last[who] = digits().ReplaceAllString(l, "9")
		}
	}
	seen := map[string]bool{}
	for who := range last {
		seen[last[who]+" / "+note[who]] = true
	}
	for who := range note {
		if _, ok := last[who]; !ok {
			seen[" / "+note[who]] = true
		}
	}
	shapes := make([]string, 0, len(seen))
	for s := range seen {
		shapes = append(shapes, s)
	}
	sort.Strings(shapes)
	return strings.Join(shapes, "\n")
}

// conversationParty is the player a line of a recorded conversation is about ("player 1"
// in "hub -> player 1 | YT", "player 1 -> hub | DO2" and "player 1: player ended with
// status 0"), and whether the line is a note; "" for a line of no player.
func conversationParty(l string) (who string, note bool) {
	if head, _, ok := strings.Cut(l, " | "); ok {
		from, to, _ := strings.Cut(head, " -> ")
		if from == "hub" {
			return to, false
		}
		return from, false
	}
	if who, _, ok := strings.Cut(l, ": "); ok {
		return who, true
	}
	return "", false
}

func unquoted(s string) string {
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return s
}

func firstWord(s string) string {
	w, _, _ := strings.Cut(strings.TrimSpace(s), " ")
	return w
}
