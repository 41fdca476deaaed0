package stlucia

import (
	"fmt"

	"gauntlet/games/grammar"
)

// FormatError reports text that breaks the grammar of a roll file, a message or an
// argument. Rule names the rule broken (one of the Rule constants) so tests, the grader and
// the fuzzer can tell failures apart without matching prose.
type FormatError = grammar.Error

// formatError is the error for input that breaks rule.
func formatError(rule, input string) *FormatError {
	return &FormatError{Game: "stlucia", Rule: rule, Input: input}
}

// The grammar rules a FormatError can name.
const (
	RuleDiceWord    = "dice are six faces from 123HAP in increasing order"
	RuleRollChar    = "a roll file holds only 1 2 3 H A P and newlines"
	RuleRollEmpty   = "a roll file holds at least one die"
	RuleMsgKind     = "a message starts with a known keyword"
	RuleMsgFields   = "a message has exactly its fields, one space apart"
	RuleLabel       = "a player label is one letter from A to Z"
	RuleNumber      = "a number is a positive decimal integer without leading zeros"
	RuleDirection   = "an attack goes in or out"
	RuleRerollFaces = "reroll lists one or more faces from 123HAP, with no spaces"
	RuleWinscore    = "winscore is a positive integer"
	RulePlayerCount = "the number of players is an integer from 2 to 26"
	RulePlayerID    = "the player ID is a letter naming one of the players"
)

// ReplyError reports a player's reply the engine refuses. Status is ExitMalformed (7) when
// the line is not a well-formed player message, ExitIllegal (8) when it is well formed but
// not a legal move at this point of the game; Rule says which rule was broken.
type ReplyError struct {
	Player int    // index of the player who sent the line
	Line   string // the line as received, without '\n'
	Status int    // ExitMalformed or ExitIllegal
	Rule   string // the rule broken
}

func (e *ReplyError) Error() string {
	if e.Player < 0 {
		return fmt.Sprintf("stlucia: %q sent while no reply was awaited: %s (exit %d)", e.Line, e.Rule, e.Status)
	}
	return fmt.Sprintf("stlucia: player %c sent %q: %s (exit %d)", Label(e.Player), e.Line, e.Rule, e.Status)
}

// The legality rules a ReplyError with ExitIllegal can name.
const (
	RuleExpectDice  = "after turn or rerolled the player answers reroll or keepall"
	RuleExpectStay  = "after stay? the player answers stay or go"
	RuleRerollLimit = "at most 2 rerolls a turn"
	RuleRerollHeld  = "a player rerolls only dice it holds"
	RuleAwaited     = "a player replies only when a reply is awaited"
)
