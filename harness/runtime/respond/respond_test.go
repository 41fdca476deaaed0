package respond

import (
	"bytes"
	"strings"
	"testing"

	"gauntlet/games/judge"
	"gauntlet/harness/runtime/lineio"
)

// echo greets with '>', answers each line with its upper case, writes "got LINE" on
// stderr, and ends with status 3 on "bye".
type echo struct{}

func (echo) Greeting() string { return ">" }
func (echo) Lost() judge.Reaction {
	return judge.Reaction{Stderr: "lost\n", Done: true, Status: 4}
}
func (echo) React(l string) judge.Reaction {
	if l == "bye" {
		return judge.Reaction{Done: true, Status: 3}
	}
	return judge.Reaction{Stderr: "got " + l + "\n", Replies: []string{strings.ToUpper(l)}}
}

type strict struct{ echo }

func (strict) TooLong() judge.Reaction { return judge.Reaction{Done: true, Status: 5} }

func TestRun(t *testing.T) {
	var out, errb bytes.Buffer
	if st := Run(echo{}, strings.NewReader("a\nb\nbye\nc\n"), &out, &errb); st != 3 || out.String() != ">A\nB\n" || errb.String() != "got a\ngot b\n" {
		t.Errorf("status %d, stdout %q, stderr %q", st, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	if st := Run(echo{}, strings.NewReader("a"), &out, &errb); st != 4 || out.String() != ">A\n" || errb.String() != "got a\nlost\n" {
		t.Errorf("a last line without newline, then EOF: status %d, %q, %q", st, out.String(), errb.String())
	}
	long := strings.Repeat("x", lineio.MaxLine+1) + "\n"
	if st := Run(strict{}, strings.NewReader(long), &out, &errb); st != 5 {
		t.Errorf("a line too long for a TooLonger: status %d, want 5", st)
	}
	if st := Run(echo{}, strings.NewReader(long), &out, &errb); st != 4 {
		t.Errorf("a line too long otherwise: status %d, want Lost's 4", st)
	}
}
