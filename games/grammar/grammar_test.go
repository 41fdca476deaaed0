package grammar

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestErrorText(t *testing.T) {
	err := &Error{Game: "stlucia", Rule: "a rule", Input: "x\ty"}
	if got, want := err.Error(), `stlucia: a rule: "x\ty"`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestCheck(t *testing.T) {
	bad := &Error{Game: "g", Rule: "r1", Input: "in"}
	tests := []struct {
		name    string
		err     error
		allowed []string
		want    string // "" when the check passes, else a part of its complaint
	}{
		{"allowed rule", bad, []string{"r0", "r1"}, ""},
		{"wrapped", fmt.Errorf("reading: %w", bad), []string{"r1"}, ""},
		{"other rule", bad, []string{"r2"}, `rule "r1" is not one of`},
		{"no rules allowed", bad, nil, "is not one of"},
		{"another error", errors.New("boom"), []string{"r1"}, "is not a *grammar.Error"},
		{"nil", nil, []string{"r1"}, "is not a *grammar.Error"},
	}
	for _, tc := range tests {
		got := Check(tc.err, tc.allowed...)
		switch {
		case tc.want == "" && got != nil:
			t.Errorf("%s: Check = %v, want nil", tc.name, got)
		case tc.want != "" && (got == nil || !strings.Contains(got.Error(), tc.want)):
			t.Errorf("%s: Check = %v, want an error saying %q", tc.name, got, tc.want)
		}
	}
}
