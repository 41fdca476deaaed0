package stratego

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// The manager's -o log, line for line as the 2012 manager wrote it (measured on that
// manager; docs/stratego.md "The -o log"): each side's setup block, one line a move
// ("N RED: " or "N BLU: " and what the move did), then a line saying on whose turn the game
// ended and why. The manager adds the result line after them.

// invalidSetup stands for a bad setup's rows in its block.
const invalidSetup = "INVALID!"

// setupLog is the log's setup blocks: "NAME RED SETUP" and RED's four rows (INVALID! for a
// bad setup), then BLUE's; "BOTH players give invalid setup!" before them when both are bad.
func setupLog(names [2]string, answers [2][]string) []string {
	var lines []string
	var bad [2]bool
	var setups [2]Setup
	for c := range answers {
		var err error
		setups[c], err = ParseSetup(answers[c])
		bad[c] = err != nil
	}
	if bad[Red] && bad[Blue] {
		lines = append(lines, "BOTH players give invalid setup!")
	}
	for c := Red; c <= Blue; c++ {
		lines = append(lines, names[c]+" "+c.String()+" SETUP")
		if bad[c] {
			lines = append(lines, invalidSetup)
			continue
		}
		lines = append(lines, setups[c].Lines()...)
	}
	return lines
}

// moveLog is the log's line for side c's move in turn n: "N RED: " or "N BLU: " and text
// (the confirmation; the line and ILLEGAL for an illegal move; the line alone for a
// malformed one; nothing for silence).
func moveLog(n int, c Colour, text string) string {
	side := "RED"
	if c == Blue {
		side = "BLU"
	}
	return strconv.Itoa(n) + " " + side + ": " + text
}

// moveLogText is what the log's move line says of line, a move that err (nil: none)
// keeps from being made.
func moveLogText(line string, err error) string {
	var me *MoveError
	if errors.As(err, &me) {
		return line + " ILLEGAL"
	}
	return line // a malformed line, as it came
}

// The reasons of the log's last line, in the 2012 manager's words.
const (
	causeFlag         = "Captured the flag"
	causeAttrition    = "Destroyed all mobile enemy pieces"
	causeDraw         = "Game declared a draw because neither player has mobile pieces"
	causeSurrender    = "This player has surrendered!"
	causeUnreadable   = "Unintelligable response"
	causeInternal     = "Internal controller error - Unspecified ERROR"
	causeOutside      = "Coords outside board"
	causeNoSelection  = "Move does not select a piece"
	causeNotYours     = "Selected piece belongs to other player"
	causeImmobile     = "Selected piece is not mobile (FLAG or BOMB)"
	causeCannotMove   = "Selected unit cannot move that way"
	causePositionFull = "Attempted move into square occupied by neutral or allied piece"
)

// illegalCause is the 2012 manager's reason for a move line the rules refuse: err is
// ParseMove's or Check's error for it, judged on g before the move.
func illegalCause(g *Game, err error) string {
	var me *MoveError
	if !errors.As(err, &me) {
		return causeUnreadable
	}
	switch me.Rule {
	case RuleMoveOwn:
		switch {
		case !OnBoard(me.Move.X, me.Move.Y):
			return causeOutside
		case g.board[me.Move.Y][me.Move.X].Empty():
			return causeNoSelection
		}
		return causeNotYours
	case RuleMoveMovable:
		return causeImmobile
	case RuleMoveScoutOnly, RuleMoveOnBoard:
		return causeCannotMove
	}
	return causePositionFull // a lake, a piece in the way, one's own piece
}

// silenceCause is the 2012 manager's reason for a move line not had: a timeout names it,
// an end of file reads as an empty, unintelligible line.
func silenceCause(timeout bool, limit time.Duration) string {
	if timeout {
		return fmt.Sprintf("Response timeout after %f seconds.", limit.Seconds())
	}
	return causeUnreadable
}

// endLog is the log's last line: "Game ends on RED's turn - REASON: " (or BLUE's, or "in
// the SETUP phase" for an end in turn 0) and the reason; cause is the reason of an ILLEGAL
// end (illegalCause, silenceCause).
func endLog(g *Game, cause string) string {
	head := "Game ends in the SETUP phase - REASON: "
	if g.turns > 0 {
		head = "Game ends on " + g.about.String() + "'s turn - REASON: "
	}
	switch g.outcome {
	case Victory:
		cause = causeAttrition
		if g.byFlag {
			cause = causeFlag
		}
	case Draw:
		cause = causeDraw
	case DrawDefault:
		cause = fmt.Sprintf("Game declared a draw after %d turns", g.turns)
	case Surrender:
		cause = causeSurrender
	case BadSetup:
		who := g.about.String()
		if g.about == Both {
			who = "BOTH players"
		}
		cause = "An illegal setup was made by " + who
	case Internal:
		cause = causeInternal
	}
	return head + cause
}
