// Package grammartest holds the test helper every game's codec tests share.
package grammartest

import (
	"testing"

	"gauntlet/games/grammar"
)

// Require fails the test unless err is a *grammar.Error naming one of the allowed rules.
// what names the call that returned err, for the failure message.
func Require(tb testing.TB, what string, err error, allowed ...string) {
	tb.Helper()
	if err := grammar.Check(err, allowed...); err != nil {
		tb.Fatalf("%s: %v", what, err)
	}
}
