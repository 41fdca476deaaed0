package mockhub

import (
	"fmt"
	"gauntlet/harness/judges/outcome"

	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"gauntlet/games/judge"
	"gauntlet/harness/box/execfile"
	"gauntlet/harness/runtime/child"
	"gauntlet/internal/buildtest"
)

func player(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "player")
	if err := execfile.Write(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// runConv plays the conversation conv with a player whose shell body is given.
func runConv(t *testing.T, conv, body string, step time.Duration) Result {
	t.Helper()
	c, err := Parse(conv)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(c, player(t, body), Options{StepTimeout: step})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// pingPong answers "PING x" with "PONG x" after a '^' handshake and exits 0 on BYE, 6 on EOF.
const pingPong = `printf '^'
while read line; do
  case "$line" in
    BYE) exit 0;;
    PING*) echo "PONG${line#PING}";;
    *) echo bad >&2; exit 5;;
  esac
done
exit 6
`

func TestRun(t *testing.T) {
	t.Parallel() // its subtests wait on their players: the package goes on meanwhile
	tests := []struct {
		name   string
		player string
		conv   string
		ok     bool
		report string // a substring of the report
	}{
		{"matches", pingPong, "args 1 0\nhello \"^\"\nsend \"PING 1\"\nexpect \"PONG 1\"\nsend \"BYE\"\neof\nexit 0\n", true, "ok: 6 steps"},
		{"wrong reply", pingPong, "hello \"^\"\nsend \"PING 1\"\nexpect \"PONG 2\"\n", false, `want "PONG 2\n", got "PONG 1\n"`},
		{"wrong handshake", `printf '!'; exit 0`, "hello \"^\"\n", false, `want "^", got "!"`},
		{"no handshake", `exit 0`, "hello \"^\"\n", false, `want "^", got EOF`},
		{"silent player times out", `printf '^'; sleep 30`, "hello \"^\"\nexpect \"X\"\n", false, "got nothing within"},
		{"line without newline then EOF", `printf '^DO1'`, "hello \"^\"\nexpect \"DO1\"\n", false, `got "DO1" and then EOF`},
		{"EOF from the hub", pingPong, "hello \"^\"\nclose\nexit 6\n", true, "exit status 6"},
		{"wrong exit status", pingPong, "hello \"^\"\nsend \"HUH\"\nexit 6\n", false, "want exit status 6, got exit status 5"},
		{"signal", pingPong, "hello \"^\"\nsignal TERM\nexit signal TERM\n", true, "killed by SIGTERM"},
		{"extra output where EOF expected", `printf '^x'; exit 0`, "hello \"^\"\neof\n", false, `want EOF, got "x"`},
		{"player left running is killed", `printf '^'; sleep 30`, "hello \"^\"\n", true, "killed by the mock hub"},
		// After end, nothing is checked: any exit, any output, or none (killed at the timeout).
		{"end: any exit", pingPong, "hello \"^\"\nsend \"PING 1\"\nexpect \"PONG 1\"\nsend \"HUH\"\nend\n", true, "ok: 5 steps matched; player: exit status 5"},
		{"end: any output", `printf '^'; read l; echo "$l"; yes | head -c 200000; exit 3`, "hello \"^\"\nsend \"A\"\nexpect \"A\"\nend\n", true, "player: exit status 3"},
		{"end: a player that stays", `printf '^'; sleep 30`, "hello \"^\"\nend\n", true, "killed by the mock hub"},
		// expect-unordered: the lines in either order pass; a line of neither, or one twice, fails.
		{"unordered: in order", `printf 'a\nb\nc\n'`, "expect-unordered \"a\" \"b\"\nexpect \"c\"\n", true, "ok: 2 steps"},
		{"unordered: swapped", `printf 'b\na\nc\n'`, "expect-unordered \"a\" \"b\"\nexpect \"c\"\n", true, "ok: 2 steps"},
		{"unordered: a line of neither", `printf 'b\nx\n'`, "expect-unordered \"a\" \"b\"\n", false, `want one of "a\n", got "x\n"`},
		{"unordered: one twice", `printf 'a\na\n'`, "expect-unordered \"a\" \"b\"\n", false, `want one of "b\n", got "a\n"`},
		{"unordered: too few", `printf 'a\n'`, "expect-unordered \"a\" \"b\"\n", false, `want one of "b\n", got EOF`},
		{"end does not excuse what came before", pingPong, "hello \"^\"\nsend \"PING 1\"\nexpect \"PONG 2\"\nend\n", false, `want "PONG 2\n"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var res Result
			buildtest.Returns(t, "the conversation waits beyond its step timeouts", func() {
				res = runConv(t, tc.conv, tc.player, 500*time.Millisecond)
			})
			if res.OK != tc.ok || !strings.Contains(res.Report(), tc.report) {
				t.Errorf("report %q (ok=%v), want ok=%v containing %q", res.Report(), res.OK, tc.ok, tc.report)
			}
		})
	}
}

func TestParseAndFormat(t *testing.T) {
	src := "args 3 \"a b\"\nhello \"^\"\nsend \"7;::-::-\"\nsend-raw \"DONE\"\nexpect \"DO1\"\nexpect-unordered \"x y\" \"z\"\nclose\nsignal HUP\nsleep 20ms\neof\nexit 4\nexit signal SEGV\nend\n"
	c, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Args) != 2 || c.Args[1] != "a b" || len(c.Steps) != 12 || len(c.Steps[4].Unordered()) != 2 {
		t.Fatalf("parsed %+v", c)
	}
	again, err := Parse(c.Format())
	if err != nil || again.Format() != c.Format() {
		t.Fatalf("round trip: %v\n%s\nvs\n%s", err, again.Format(), c.Format())
	}
	for _, bad := range []string{"expect", "send \"a\nb\"", "exit -1", "exit signal NOPE", "sleep x", "frobnicate", "args 1\nargs 2", "close now", "end now", "end\nexit 0",
		"expect-unordered \"a\"", "expect-unordered \"a\\n\" \"b\"", "connect now", "connect\nconnect", "tcp\nconnect", "connect\ntcp"} {
		var e *Error
		if _, err := Parse(bad); !errors.As(err, &e) {
			t.Errorf("Parse(%q) = %v, want *Error", bad, err)
		}
	}
}

// A connect line survives a round trip through Format.
func TestConnectRoundTrip(t *testing.T) {
	c, err := Parse("connect\nargs 2 0\nexpect \"ping 1\"\neof\nexit 0\n")
	if err != nil || !c.Connect || c.TCP {
		t.Fatalf("Parse: %+v, %v", c, err)
	}
	if again, err := Parse(c.Format()); err != nil || !again.Connect || again.Format() != c.Format() {
		t.Fatalf("round trip: %v\n%s", err, c.Format())
	}
}

func TestFromEvents(t *testing.T) {
	c := FromEvents([]string{"1", "0"}, "^", []judge.Line{
		{Text: "PING 1"}, {FromPlayer: true, Text: "PONG 1"}, {Text: "BYE"},
	}, 0)
	want := "args 1 0\nhello \"^\"\nsend \"PING 1\"\nexpect \"PONG 1\"\nsend \"BYE\"\neof\nexit 0\n"
	if got := c.Format(); got != want {
		t.Fatalf("conversation:\n%s\nwant\n%s", got, want)
	}
	res, err := Run(c, player(t, pingPong), Options{StepTimeout: 2 * time.Second})
	if err != nil || !res.OK {
		t.Fatalf("generated conversation against the player: %v %s", err, res.Report())
	}
}

// A failed conversation is reported with the steps that went before, the divergent one
// marked and the expected one under it.
func TestReportMarksTheDivergence(t *testing.T) {
	tests := []struct {
		name, conv, want string
	}{
		{"wrong reply", "hello \"^\"\nsend \"PING 1\"\nexpect \"PONG 1\"\nsend \"PING 2\"\nexpect \"PONG 3\"\n",
			"     1  player -> hub | ^ [no newline]\n" +
				"     2  hub -> player | PING 1\n" +
				"     3  player -> hub | PONG 1\n" +
				"     4  hub -> player | PING 2\n" +
				">    5  player -> hub | PONG 2\n" +
				"  want  player -> hub | PONG 3"},
		{"wrong exit", "hello \"^\"\nsend \"HUH\"\nexit 6\n",
			"     1  player -> hub | ^ [no newline]\n" +
				"     2  hub -> player | HUH\n" +
				">    3  player: exit status 5\n" +
				"  want  player: exit 6"},
		{"no newline", "hello \"^\"\nsend \"PING\\x01\"\nexpect \"PONG\"\n",
			"     1  player -> hub | ^ [no newline]\n" +
				"     2  hub -> player | PING\\x01\n" +
				">    3  player -> hub | PONG\\x01\n" +
				"  want  player -> hub | PONG"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := Parse(tc.conv)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(c, player(t, pingPong), Options{StepTimeout: 2 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.SplitN(res.Report(), "\n", 3)
			if res.OK || len(lines) != 3 || lines[1] != DivergenceHeader {
				t.Fatalf("report:\n%s", res.Report())
			}
			// The FAIL line numbers the step as the conversation under it marks it.
			marked := regexp.MustCompile(`(?m)^>\s+(\d+)`).FindStringSubmatch(tc.want)[1]
			if !strings.HasPrefix(lines[0], "FAIL at step "+marked+" (line ") {
				t.Errorf("FAIL line %q does not name step %s", lines[0], marked)
			}
			if got := strings.ReplaceAll(lines[2], "\n  ", "\n")[2:]; got != tc.want {
				t.Errorf("conversation:\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// With -alt, a player that diverges from the main conversation but matches an allowed
// alternative makes the mock hub exit AltStatus, naming the alternative, and only the
// stderr of the run reported is copied.
func TestMainAlternatives(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	echo := player(t, `printf '^'; read l; echo "got $l" >&2; echo "PONG${l#PING}"; exit 0`)
	main := write("main.conv", "hello \"^\"\nsend \"PING 1\"\nexpect \"PONG 2\"\n")
	wrong := write("wrong.conv", "hello \"^\"\nsend \"PING 1\"\nexpect \"PONG 3\"\n")
	right := write("right.conv", "hello \"^\"\nsend \"PING 1\"\nexpect \"PONG 1\"\neof\nexit 0\n")
	far := write("far.conv", "hello \"^\"\nsend \"PING 1\"\nexpect \"PONG 1\"\neof\nexit 3\n")
	tests := []struct {
		name   string
		args   []string
		status int
		stdout string       // a prefix
		kind   outcome.Kind // of the record given to outcome.Var's file ("": none)
	}{
		{"an alternative matches", []string{"-alt", wrong, "-alt", right, main, echo}, AltStatus, AltPrefix + right + ": 5 steps matched", ""},
		{"none matches", []string{"-alt", wrong, main, echo}, 1, "FAIL at step 3", outcome.Diverged},
		{"the main one matches", []string{"-alt", main, right, echo}, 0, "ok: 5 steps", ""},
		// None matches: the one followed furthest is reported, named (the player's fault is
		// its exit status, not the reading of the main one it did not take).
		{"none matches, an alternative is closest", []string{"-alt", wrong, "-alt", far, main, echo}, 1,
			"FAIL at step 5 (line 5 of the conversation: exit 3): want exit status 3, got exit status 0; player: exit status 0; the closest allowed conversation: " + far, outcome.Exit},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			recs := filepath.Join(dir, fmt.Sprintf("records-%d", i))
			t.Setenv(outcome.Var, recs)
			var stdout, stderr strings.Builder
			if got := Main(tc.args, &stdout, &stderr); got != tc.status || !strings.HasPrefix(stdout.String(), tc.stdout) {
				t.Fatalf("exit %d, stdout %q; want %d, %q", got, stdout.String(), tc.status, tc.stdout)
			}
			rec, ok, err := outcome.Last(recs)
			line, _, _ := strings.Cut(stdout.String(), "\n")
			switch {
			case err != nil:
				t.Error(err)
			case tc.kind == "" && ok:
				t.Errorf("record %+v, want none", rec)
			case tc.kind != "" && (rec.Kind != tc.kind || rec.Judge != "mockhub" || rec.Message != line):
				t.Errorf("record %+v (found %v), want a %s of the mock hub's with the report's first line", rec, ok, tc.kind)
			}
			if stderr.String() != "got PING 1\n" {
				t.Errorf("stderr %q: want the player's stderr of one run", stderr.String())
			}
		})
	}
}

// A player whose file cannot be run (a script whose interpreter is missing, a file that
// is no program, one the player's user may not run) fails the conversation at its first
// step, charged to it; it is not the judge's error (until 2026-11-28 the mock hub exited 2
// and the case was a HARNESS-ERROR, which left the marks).
// What the mock hub saw at the failed step is its record's kind, for the grader: each
// from what happened, not from the report's words; so are the facts the grader's hints
// rest on (LineDue, Partial).
func TestRunRecordsTheKind(t *testing.T) {
	t.Parallel() // its subtests wait on their players: the package goes on meanwhile
	tests := []struct {
		name, player, conv string
		want               outcome.Record // the report's first line is its message
	}{
		{"wrong reply", pingPong, "hello \"^\"\nsend \"PING 1\"\nexpect \"PONG 2\"\n",
			outcome.Record{Kind: outcome.Diverged, Step: 3, Want: `"PONG 2\n"`, Got: `"PONG 1\n"`, Signal: "SIGKILL"}},
		{"silent", `printf '^'; sleep 30`, "hello \"^\"\nexpect \"X\"\n",
			outcome.Record{Kind: outcome.Silent, Step: 2, Want: `"X\n"`, Got: "nothing within 300ms", Signal: "SIGKILL", LineDue: true}},
		{"half a line, then silent", `printf '^X'; sleep 30`, "hello \"^\"\nexpect \"X\"\n",
			outcome.Record{Kind: outcome.Silent, Step: 2, Want: `"X\n"`, Got: `"X" and then nothing within 300ms`, Signal: "SIGKILL", Partial: true}},
		{"half a line, then EOF", `printf '^X'`, "hello \"^\"\nexpect \"X\"\n",
			outcome.Record{Kind: outcome.Diverged, Step: 2, Want: `"X\n"`, Got: `"X" and then EOF`, Partial: true}},
		{"silent at the handshake", `sleep 30`, "hello \"^\"\n",
			outcome.Record{Kind: outcome.Silent, Step: 1, Want: `"^"`, Got: "nothing within 300ms", Signal: "SIGKILL", LineDue: true}},
		{"stdout still open at eof", `printf '^'; sleep 30`, "hello \"^\"\neof\n",
			outcome.Record{Kind: outcome.Silent, Step: 2, Want: "EOF", Got: "nothing within 300ms (stdout still open)", Signal: "SIGKILL"}},
		{"wrong exit status", pingPong, "hello \"^\"\nsend \"HUH\"\nexit 6\n",
			outcome.Record{Kind: outcome.Exit, Step: 3, Want: "exit status 6", Got: "exit status 5"}},
		{"killed at the exit step", `printf '^'; kill -SEGV $$`, "hello \"^\"\nexit 0\n",
			outcome.Record{Kind: outcome.Signal, Step: 2, Want: "exit status 0", Got: "killed by SIGSEGV", Signal: "SIGSEGV"}},
		{"still running at the exit step", `printf '^'; sleep 30`, "hello \"^\"\nexit 0\n",
			outcome.Record{Kind: outcome.Diverged, Step: 2, Want: "exit 0", Got: "still running after 300ms", Signal: "SIGKILL"}},
		{"cpu limit", `printf '^'; kill -XCPU $$`, "hello \"^\"\nexpect \"X\"\n",
			outcome.Record{Kind: outcome.Limit, Step: 2, Want: `"X\n"`, Got: "EOF", Signal: "SIGXCPU", Limit: "cpu"}},
		{"file size limit at the exit step", `printf '^'; kill -XFSZ $$`, "hello \"^\"\nexit 0\n",
			outcome.Record{Kind: outcome.Limit, Step: 2, Want: "exit status 0", Got: "killed by SIGXFSZ", Signal: "SIGXFSZ", Limit: "file-size"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := runConv(t, tc.conv, tc.player, 300*time.Millisecond).Record()
			if !strings.HasPrefix(got.Message, "FAIL at step ") || strings.Contains(got.Message, "\n") {
				t.Errorf("message %q, want the report's FAIL line", got.Message)
			}
			got.Message = ""
			// How a limit ended the player is said after its status, with its CPU time
			// (limitkill): checked to be there, not for the time.
			if tc.want.Kind == outcome.Limit && strings.HasPrefix(got.Got, tc.want.Got+" (the ") {
				got.Got = tc.want.Got
			}
			if got != tc.want {
				t.Errorf("record\n%+v\nwant\n%+v", got, tc.want)
			}
		})
	}
}

func TestAPlayerThatCannotStartFails(t *testing.T) {
	dir := t.TempDir()
	c, err := Parse("args A\nsend \"hello\"\nexpect \"hi\"\neof\nexit 0\n")
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"no-interpreter": "#!/nonexistent/interpreter\n",
		"not-a-program":  "\x01\x02\x03 not a program\n",
	} {
		prog := filepath.Join(dir, name)
		if err := os.WriteFile(prog, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		res, err := Run(c, prog, Options{StepTimeout: time.Second})
		if err != nil {
			t.Errorf("%s: the judge failed: %v", name, err)
			continue
		}
		if res.OK || res.Failed == nil || !strings.Contains(res.Got, "cannot be started") || res.Kind != outcome.Diverged {
			t.Errorf("%s: %s, want a failure at the first step", name, res.Report())
		}
	}
}

// A graded judge starts the subject with only what a program of a game looks at: its own
// environment is the script's, which names the mock player (a subject that ran it played
// as the reference player, before 2026-11-28) and the harness's settings.
func TestJudgedSubjectGetsNoJudgeInItsEnvironment(t *testing.T) {
	t.Setenv("GAUNTLET_MOCKPLAYER", "/grader/programs/x/mockplayer")
	t.Setenv("DEALER", "/grader/programs/y/2310dealer")
	t.Setenv("GAUNTLET_CASE", "marker")
	s := spec("/subject/2310A", nil, child.Pipes, nil, &Subject{UID: 1, GID: 1, Dir: "/"}, 0)
	env := strings.Join(s.Env, "\n") + "\n"
	for _, bad := range []string{"GAUNTLET_MOCKPLAYER=", "DEALER="} {
		if strings.Contains(env, bad) {
			t.Errorf("the subject's environment has %s:\n%s", bad, env)
		}
	}
	for _, want := range []string{"GAUNTLET_CASE=marker\n", "TMPDIR=/tmp\n"} {
		if !strings.Contains(env, want) {
			t.Errorf("the subject's environment lacks %q:\n%s", want, env)
		}
	}
}
