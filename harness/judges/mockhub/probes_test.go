package mockhub

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// pingProbe is a probe for the tests: `ping word=W` sends W to the program and wants it
// back.
type pingProbe struct{ word string }

func parsePing(settings []string) (ProbeSpec, error) {
	if len(settings) != 1 || !strings.HasPrefix(settings[0], "word=") {
		return nil, errors.New("ping takes word=W")
	}
	return pingProbe{strings.TrimPrefix(settings[0], "word=")}, nil
}

func (e pingProbe) String() string { return "word=" + e.word }

func (e pingProbe) Run(prog string, args []string, opt Options) (Result, error) {
	s, err := StartSession(prog, args, opt)
	if err != nil {
		return Result{}, err
	}
	defer s.Kill()
	s.Send(e.word)
	line, _ := s.ReadLine(opt.StepTimeout)
	if line != e.word {
		return Result{Text: "FAIL: got " + line + " for " + e.word + " with " + strings.Join(args, ",")}, nil
	}
	return Result{OK: true, Text: "ok: echoed " + line}, nil
}

func init() {
	RegisterProbe("ping", parsePing)
	RegisterProbe("pang", parsePing)
}

// A probe's line replaces the steps: it is parsed by the probe, written back in the
// probe's canonical form, and run by the probe with the conversation's arguments.
func TestProbe(t *testing.T) {
	c, err := Parse("# a probe\nargs a b\nping word=hi\n")
	if err != nil {
		t.Fatal(err)
	}
	if p := c.Probe; p == nil || p.Word != "ping" || p.Source != 3 || p.Spec != (pingProbe{"hi"}) || len(c.Steps) != 0 {
		t.Fatalf("probe %+v, steps %v", p, c.Steps)
	}
	if f, want := c.Format(), "ping word=hi\nargs a b\n"; f != want {
		t.Errorf("format %q, want %q", f, want)
	}
	res := runConv(t, c.Format(), `read w; echo "$w"`, 5*time.Second)
	if !res.OK || res.Report() != "ok: echoed hi" {
		t.Errorf("report %q", res.Report())
	}
	res = runConv(t, "ping word=hi\nargs a b\n", `read w; echo "x$w"`, 5*time.Second)
	if res.OK || res.Report() != "FAIL: got xhi for hi with a,b" {
		t.Errorf("report %q", res.Report())
	}
}

// A probe's line is checked as the referee line always was; a first word that is neither
// a step's nor a probe's is still an error.
func TestProbeErrors(t *testing.T) {
	for _, tc := range []struct{ conv, want string }{
		{"ping word=a\nping word=b", "conversation line 2: ping given twice"},
		{"ping word=a\npang word=b", "conversation line 2: pang after ping: a conversation runs one probe"},
		{"ping", "conversation line 1: ping takes word=W"},
		{"ping word=a\nexpect \"x\"", "conversation line 1: a ping probe takes no steps, judge, tcp or connect"},
		{"tcp\nping word=a", "conversation line 2: a ping probe takes no steps, judge, tcp or connect"},
		{"pings word=a", `conversation line 1: unknown step "pings"`},
	} {
		if _, err := Parse(tc.conv); err == nil || err.Error() != tc.want {
			t.Errorf("%q: error %v, want %s", tc.conv, err, tc.want)
		}
	}
}

// A probe cannot take a word the conversations use, nor another probe's.
func TestRegisterProbeRefusesATakenWord(t *testing.T) {
	for _, word := range []string{"ping", "send", "expect-unordered", "args", "judge", "tcp", "connect"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s registered as a probe", word)
				}
			}()
			RegisterProbe(word, parsePing)
		}()
	}
}
