package stratego

import "gauntlet/games/grammar"

// FormatError reports text that breaks the grammar of a setup or a move. Rule names the
// rule broken (one of the Rule constants).
type FormatError = grammar.Error

func formatError(rule, input string) *FormatError {
	return &FormatError{Game: "stratego", Rule: rule, Input: input}
}

// The rules a setup and a move line follow.
const (
	RuleSetupRows   = "a setup is exactly 4 rows"
	RuleSetupWidth  = "a setup row is exactly 10 characters"
	RuleSetupPiece  = "a setup holds only the characters 1-9 s B F"
	RuleSetupCounts = "a setup places exactly the 40 pieces: 1 of 1, 2, s and F; 2 of 3; 3 of 4; 4 of 5, 6 and 7; 5 of 8; 8 of 9; 6 of B"
	RuleMoveWords   = "a move is X Y DIRECTION [MULTIPLIER], or SURRENDER"
	RuleMoveNumber  = "X, Y and the multiplier are decimal numbers without sign or leading zeros"
	RuleMoveDir     = "the direction is UP, DOWN, LEFT or RIGHT"
)

// MoveError reports a well-formed move the rules do not allow. Rule is one of the
// RuleMove constants.
type MoveError struct {
	Move Move
	Rule string
}

func (e *MoveError) Error() string { return "stratego: " + e.Move.String() + ": " + e.Rule }

// The rules a move follows.
const (
	RuleMoveOwn       = "the square moved from holds one of the mover's pieces"
	RuleMoveMovable   = "bombs and the flag do not move"
	RuleMoveScoutOnly = "only a scout moves more than one square"
	RuleMoveOnBoard   = "a piece stays on the board"
	RuleMoveLake      = "no piece enters a lake"
	RuleMoveBlocked   = "a scout passes only through empty squares"
	RuleMoveOntoOwn   = "a piece does not move onto one of its own side"
)
