// Package grammar holds what the codecs of every game share: the error for text that
// breaks a rule of the game's grammar (a file, a message, an argument), and the check that
// tests and fuzz targets make of such errors.
//
// Rules are named by sentences the game package declares as constants, so that tests, the
// grader and the fuzzer can tell failures apart without matching prose. Standard library
// only, like the games.
package grammar

import (
	"errors"
	"fmt"
	"slices"
)

// Error reports text that breaks a rule of a game's grammar.
type Error struct {
	Game  string // the game package that read the text, e.g. "stlucia"
	Rule  string // the rule broken: one of the game's Rule constants
	Input string // the offending text
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s: %q", e.Game, e.Rule, e.Input)
}

// Check returns nil when err is (or wraps) an *Error naming one of the allowed rules, and
// otherwise an error that says what err is instead.
func Check(err error, allowed ...string) error {
	var ge *Error
	switch {
	case !errors.As(err, &ge):
		return fmt.Errorf("error %v (%T) is not a *grammar.Error", err, err)
	case !slices.Contains(allowed, ge.Rule):
		return fmt.Errorf("rule %q is not one of %q", ge.Rule, allowed)
	}
	return nil
}
