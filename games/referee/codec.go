// Package referee is the referee protocol of a two-player match runner, version 1 (with the
// feature handshake), as pure code: the lines a referee and the runner exchange, with typed
// errors naming the rule a line breaks, and two example games (tic-tac-toe and connect
// four) whose referees and players the project ships. docs/referee.md describes the
// protocol and every decision taken where the original runner's header is silent.
package referee

import (
	"strconv"
	"strings"

	"gauntlet/games/grammar"
)

// FormatError reports a line that breaks the protocol's grammar.
type FormatError = grammar.Error

func formatError(rule, input string) *FormatError {
	return &FormatError{Game: "referee", Rule: rule, Input: input}
}

// The rules of the referee's lines.
const (
	RuleFeature   = "before the players, the referee writes 'feature NAME' lines and then 'feature_end'"
	RuleUnknown   = "a feature is write_lines or no_last_move"
	RuleVerdict   = "a verdict is 'valid', 'invalid' or 'valid end'"
	RuleScores    = "after 'valid end' the referee writes one integer per player, separated by single spaces"
	RuleWriteLine = "a write_lines line is '<player> <line>' with the index of a player, or 'write_end'"
)

// The features the runner knows.
const (
	FeatureWriteLines = "write_lines"
	FeatureNoLastMove = "no_last_move"
)

// Features are what a referee announced.
type Features struct {
	WriteLines, NoLastMove bool
}

// FeatureEnd ends the referee's list of features.
const FeatureEnd = "feature_end"

// ParseFeature reads one line of the referee's feature list: a feature it supports, or
// the end of the list (end true).
func ParseFeature(line string) (name string, end bool, err error) {
	if line == FeatureEnd {
		return "", true, nil
	}
	name, ok := strings.CutPrefix(line, "feature ")
	if !ok || name == "" || strings.Contains(name, " ") {
		return "", false, formatError(RuleFeature, line)
	}
	if name != FeatureWriteLines && name != FeatureNoLastMove {
		return name, false, formatError(RuleUnknown, line)
	}
	return name, false, nil
}

// Set records feature name.
func (f *Features) Set(name string) {
	switch name {
	case FeatureWriteLines:
		f.WriteLines = true
	case FeatureNoLastMove:
		f.NoLastMove = true
	}
}

// Lines is the feature list as the referee writes it.
func (f Features) Lines() []string {
	var out []string
	if f.WriteLines {
		out = append(out, "feature "+FeatureWriteLines)
	}
	if f.NoLastMove {
		out = append(out, "feature "+FeatureNoLastMove)
	}
	return append(out, FeatureEnd)
}

// Verdict is the referee's judgement of a move.
type Verdict int

// The verdicts.
const (
	Valid Verdict = iota
	Invalid
	ValidEnd
)

var verdictText = [...]string{"valid", "invalid", "valid end"}

func (v Verdict) String() string { return verdictText[v] }

// ParseVerdict reads the referee's answer to a move.
func ParseVerdict(line string) (Verdict, error) {
	for v, t := range verdictText {
		if line == t {
			return Verdict(v), nil
		}
	}
	return 0, formatError(RuleVerdict, line)
}

// ParseScores reads the scores line after 'valid end': exactly n integers.
func ParseScores(line string, n int) ([]int, error) {
	f := strings.Split(line, " ")
	if len(f) != n {
		return nil, formatError(RuleScores, line)
	}
	scores := make([]int, n)
	for i, w := range f {
		v, err := strconv.Atoi(w)
		if err != nil || w != strconv.Itoa(v) {
			return nil, formatError(RuleScores, line)
		}
		scores[i] = v
	}
	return scores, nil
}

// FormatScores writes scores as the referee does.
func FormatScores(scores []int) string {
	w := make([]string, len(scores))
	for i, s := range scores {
		w[i] = strconv.Itoa(s)
	}
	return strings.Join(w, " ")
}

// WriteEnd ends a write_lines block.
const WriteEnd = "write_end"

// ParseWriteLine reads a line of a write_lines block: the player to write to and the line,
// or the end of the block (end true).
func ParseWriteLine(line string, players int) (player int, text string, end bool, err error) {
	if line == WriteEnd {
		return 0, "", true, nil
	}
	head, text, ok := strings.Cut(line, " ")
	p, perr := strconv.Atoi(head)
	if !ok || perr != nil || head != strconv.Itoa(p) || p < 0 || p >= players {
		return 0, "", false, formatError(RuleWriteLine, line)
	}
	return p, text, false, nil
}

// MoveLine is what the runner sends the referee for a player's move.
func MoveLine(player int, line string) string { return strconv.Itoa(player) + " " + line }

// ParseMoveLine reads a move line on the referee's side.
func ParseMoveLine(line string) (player int, move string, ok bool) {
	head, move, ok := strings.Cut(line, " ")
	p, err := strconv.Atoi(head)
	return p, move, ok && err == nil && head == strconv.Itoa(p) && p >= 0
}

// StartMove is the last move a runner gives the first player before any move.
const StartMove = "Start"
