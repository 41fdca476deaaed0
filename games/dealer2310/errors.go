package dealer2310

import (
	"fmt"

	"gauntlet/games/grammar"
)

// FormatError reports text that breaks the grammar of a deck file, a path file or a
// message. Rule names the rule broken (one of the Rule constants) so that tests, the grader
// and the fuzzer can tell failures apart without matching prose.
type FormatError = grammar.Error

// formatError is the error for input that breaks rule.
func formatError(rule, input string) *FormatError {
	return &FormatError{Game: "dealer2310", Rule: rule, Input: input}
}

// The grammar rules of the deck file.
const (
	RuleDeckLine  = "a deck file is one line ending in '\\n'"
	RuleDeckCount = "a deck starts with its number of cards, in decimal without leading zeros"
	RuleDeckCard  = "cards are letters from A to E"
	RuleDeckMatch = "the deck holds as many cards as its count says"
	RuleDeckSize  = "a deck holds at least four cards"
)

// The grammar rules of the path file (and of the path line the dealer sends).
const (
	RulePathLine  = "a path file is one line ending in '\\n'"
	RulePathCount = "a path starts with its number of sites, in decimal without leading zeros, and ';'"
	RulePathSite  = "a site is '::-' or one of Mo V1 V2 Do Ri followed by a capacity from 1 to 9"
	RulePathMatch = "the path holds as many sites as its count says"
	RulePathSize  = "a path has at least two sites"
	RulePathEnds  = "a path starts and ends with a barrier"
)

// The grammar rules of messages.
const (
	RuleMsgKind    = "a message is YT, DOn, HAPp,n,s,m,c, EARLY or DONE"
	RuleMsgNumber  = "a number is decimal digits without leading zeros (m may start with '-')"
	RuleHAPFields  = "HAP carries five comma-separated fields"
	RuleHAPSign    = "only m, the change in money, may be negative"
	RuleHAPCard    = "the card c is a number from 0 to 5"
	RuleFromPlayer = "a player sends only DOn"
	RuleFromDealer = "the dealer sends only YT, HAP, EARLY and DONE"
)

// MoveError reports a well-formed move the rules forbid.
type MoveError struct {
	Player int    // the player who asked for the move
	Site   int    // the site asked for
	Rule   string // the rule broken (one of the RuleMove constants)
}

func (e *MoveError) Error() string {
	return fmt.Sprintf("dealer2310: player %d to site %d: %s", e.Player, e.Site, e.Rule)
}

// The rules a move must follow.
const (
	RuleMoveSite    = "the site exists"
	RuleMoveForward = "a player moves forward"
	RuleMoveBarrier = "a player cannot move past a barrier"
	RuleMoveFull    = "the site has room"
	RuleMoveOver    = "the game is not over"
)

// HAPError reports a well-formed HAP message that names a player or a site that does not
// exist: the one kind of semantic error the spec has players check.
type HAPError struct {
	HAP  HAP
	Rule string // RuleHAPPlayer or RuleHAPSite
}

func (e *HAPError) Error() string {
	return fmt.Sprintf("dealer2310: %s: %s", e.Rule, e.HAP)
}

// The rules a HAP must follow from a player's point of view.
const (
	RuleHAPPlayer = "the player exists"
	RuleHAPSite   = "the site exists"
)
