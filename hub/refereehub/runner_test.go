package refereehub

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gauntlet/harness/box/execfile"
	"gauntlet/internal/buildtest"
)

// examples links the example referees and players to a gauntlet binary.
func examples(t *testing.T) map[string]string {
	t.Helper()
	exe := buildtest.Path(t, "gauntlet/cmd/gauntlet")
	dir := t.TempDir()
	m := map[string]string{}
	for _, n := range []string{"ttt-referee", "c4-referee", "ttt-random", "ttt-perfect", "c4-random"} {
		p := filepath.Join(dir, n)
		if err := os.Symlink(exe, p); err != nil {
			t.Fatal(err)
		}
		m[n] = p
	}
	return m
}

func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "prog")
	if err := execfile.Write(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func run(t *testing.T, args ...string) (stdout, stderr string, status int, took time.Duration) {
	t.Helper()
	var out, errb bytes.Buffer
	start := time.Now()
	buildtest.Returns(t, "the runner waits for a program that sleeps for an hour", func() { status = Run(args, &out, &errb) })
	return out.String(), errb.String(), status, time.Since(start)
}

// Every pair of example players under both referees plays to the end; the perfect
// tic-tac-toe player never loses.
func TestExamplesPlayToTheEnd(t *testing.T) {
	buildtest.Long(t)
	ex := examples(t)
	for _, p0 := range []string{"ttt-random", "ttt-perfect"} {
		for _, p1 := range []string{"ttt-random", "ttt-perfect"} {
			for i := 0; i < 3; i++ {
				out, errs, status, _ := run(t, ex["ttt-referee"], ex[p0], ex[p1])
				if status != 0 || !strings.HasSuffix(out, " end\n") {
					t.Fatalf("%s vs %s: exit %d, %q %q", p0, p1, status, out, errs)
				}
				if (p0 == "ttt-perfect" && strings.HasPrefix(out, "0 2")) || (p1 == "ttt-perfect" && strings.HasPrefix(out, "2 0")) {
					t.Errorf("%s vs %s: %q: the perfect player lost", p0, p1, out)
				}
			}
		}
	}
	for i := 0; i < 3; i++ {
		out, errs, status, _ := run(t, ex["c4-referee"], ex["c4-random"], ex["c4-random"])
		if status != 0 || !strings.HasSuffix(out, " end\n") {
			t.Fatalf("connect four: exit %d, %q %q", status, out, errs)
		}
	}
}

// Every fault ends the match within its limit (-t/-T 500ms here), the 2-second grace for
// programs that do not exit, and a second: never a hang, always the documented outcome.
func TestFaults(t *testing.T) {
	buildtest.Long(t)
	ex := examples(t)
	ttt := "read line; echo '1 1'; while read line; do echo '1 1'; done\n" // always the centre
	tests := []struct {
		name             string
		referee, p0, p1  string
		wantOut, wantErr string
		status           int
	}{
		{"silent referee", script(t, "exec sleep 3600\n"), ex["ttt-random"], ex["ttt-random"], "", "ERROR referee: no feature line within", 2},
		{"unknown feature", script(t, "echo 'feature telepathy'; echo feature_end; exec sleep 3600\n"), ex["ttt-random"], ex["ttt-random"], "", "ERROR referee: " + `referee: a feature is write_lines or no_last_move: "feature telepathy"`, 2},
		{"valid end without scores", script(t, "echo feature_end; read n; read a; read b; read m; echo 'valid end'; exec sleep 3600\n"), ex["ttt-random"], ex["ttt-random"], "", "ERROR referee: no scores after 'valid end' within", 2},
		{"malformed verdict", script(t, "echo feature_end; read n; read a; read b; read m; echo 'ok'; exec sleep 3600\n"), ex["ttt-random"], ex["ttt-random"], "", "ERROR referee: referee: a verdict is", 2},
		{"player never answers", ex["ttt-referee"], script(t, "exec sleep 3600\n"), ex["ttt-random"], "0 1 timeout 0\n", "", 0},
		{"player dies", ex["ttt-referee"], ex["ttt-random"], script(t, "read l; exit 3\n"), "1 0 lost 1\n", "ERROR reading move from player 1", 0},
		{"line without newline", ex["ttt-referee"], script(t, "read l; printf '1 1'; exec sleep 3600\n"), ex["ttt-random"], "0 1 timeout 0\n", "", 0},
		{"invalid move", ex["ttt-referee"], script(t, ttt), script(t, ttt), "1 0 invalid 1\n", "", 0},
		// docs/referee.md: a last line ended by the end of the output is a move; a line
		// over 1 MiB is a lost player; a move reaches the referee byte for byte (spaces, a
		// carriage return), and scores may be negative.
		{"last line without newline, then exit", ex["ttt-referee"], script(t, "read l; printf '5 5'\n"), ex["ttt-random"], "0 1 invalid 0\n", "", 0},
		{"line over 1 MiB", ex["ttt-referee"], script(t, "read l; head -c 1100000 /dev/zero | tr '\\0' x; echo; exec sleep 3600\n"), ex["ttt-random"], "0 1 lost 0\n", "ERROR reading move from player 0", 0},
		{"move passed through as written", script(t, `echo feature_end; read n; read a; read b; IFS= read -r m
if [ "$m" = "$(printf '0   a  b\r')" ]; then echo 'valid end'; echo '-5 7'; else echo invalid; fi; exec sleep 3600
`), script(t, "read l; printf '  a  b\\r\\n'; exec sleep 3600\n"), ex["ttt-random"], "-5 7 end\n", "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, errs, status, _ := run(t, "-t", "500ms", "-T", "500ms", tc.referee, tc.p0, tc.p1)
			if status != tc.status || out != tc.wantOut || !strings.Contains(errs, tc.wantErr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, %q", status, out, errs, tc.status, tc.wantOut, tc.wantErr)
			}
			// The faulty programs sleep an hour: a runner that waited for them instead of
			// its timeout and kill grace would not end before run's backstop. (How long the
			// timeout and the grace take is not asserted: under load it varies.)
		})
	}
}

func TestUsage(t *testing.T) {
	if _, errs, status, _ := run(t, "only", "two"); status != 1 || !strings.Contains(errs, "usage: referee-runner") {
		t.Errorf("exit %d, %q", status, errs)
	}
	// Flags come before the programs; the usage says what "lost" means.
	if _, errs, status, _ := run(t, "r", "p0", "p1", "-t", "1s"); status != 1 || !strings.Contains(errs, "could not\nbe read: it died, closed its output or wrote a line over 1 MiB") {
		t.Errorf("a flag after the programs: exit %d, %q", status, errs)
	}
	if _, errs, status, _ := run(t, "/no/such/referee", "/no/p0", "/no/p1"); status != ExitMatchError || !strings.Contains(errs, "ERROR starting the match") {
		t.Errorf("missing programs: exit %d, %q", status, errs)
	}
}

// Golden games: perfect play is a draw, whoever starts; the runner's line says so.
func TestPerfectPlayDraws(t *testing.T) {
	ex := examples(t)
	out, errs, status, _ := run(t, ex["ttt-referee"], ex["ttt-perfect"], ex["ttt-perfect"])
	if status != 0 || out != "1 1 end\n" {
		t.Errorf("perfect against perfect: exit %d, %q %q; want a draw", status, out, errs)
	}
}
