package stlucia

import (
	"github.com/rogpeppe/go-internal/txtar"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gauntlet/games/judge"
)

// suiteDir holds the conformance suite's cases (testscripts/stlucia). Several of them embed
// expectations produced by the engine; the tests below check them again at every run,
// against the engine and against refPlay, so the suite cannot drift from the rules.
const suiteDir = "../../testscripts/stlucia"

// from and to build the lines of a conversation.
func from(s string) judge.Line { return judge.Line{Text: s} }
func to(s string) judge.Line   { return judge.Line{FromPlayer: true, Text: s} }

// TestConversationHandTraced checks player A's side of the rules file's first worked
// example (x.roll, EAIT against EAIT, to 10). The expected lines were traced by hand from
// the rules, die by die, before this code ran; docs/stlucia-suite.md gives the trace.
func TestConversationHandTraced(t *testing.T) {
	want := []judge.Line{
		from("turn HHAPPP"), to("reroll HHAPPP"),
		from("rerolled 1PPPPP"), to("reroll 1PPPPP"),
		from("rerolled 123333"), to("keepall"),
		from("points A 4"),
		from("rolled B 111123"), from("points B 2"),
		from("turn 223AAA"), to("reroll 223AAA"),
		from("rerolled HHAPPP"), to("reroll HHAPPP"),
		from("rerolled 1PPPPP"), to("keepall"),
		from("rolled B 13333A"), from("claim B"), from("points B 5"),
		from("turn 123AAA"), to("reroll 123AAA"),
		from("rerolled 2223AA"), to("reroll 3AA"),
		from("rerolled 222HAA"), to("keepall"),
		from("attacks A 2 in"), from("points A 2"),
		from("rolled B 111333"), from("points B 6"),
		from("winner B"),
	}
	convs, err := Conversations(readRolls(t, "x.roll"), 10, []Strategy{EAIT, EAIT}, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(convs[0], want) {
		t.Errorf("player A's conversation:\n got %v\nwant %v", convs[0], want)
	}
	// B answers the stay? it is asked (after A's attack) and wins.
	b := convs[1]
	if len(b) != 31 || b[20] != from("stay?") || b[21] != to("stay") || b[30] != from("winner B") {
		t.Errorf("player B's conversation: %v", b)
	}
}

// TestConversationErrors checks that transcripts whose replies do not fit their requests
// are refused rather than interleaved wrongly.
func TestConversationErrors(t *testing.T) {
	tests := []struct {
		name     string
		received []string
		sent     []string
		player   int
	}{
		{"reply missing", []string{"turn 111111"}, nil, 0},
		{"reply unasked", []string{"points A 4"}, []string{"keepall"}, 0},
		{"bad message", []string{"turn 654321"}, []string{"keepall"}, 0},
		{"no such player", []string{"winner A"}, nil, 1},
		{"negative player", []string{"winner A"}, nil, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := Transcript{Received: [][]string{tc.received}, Sent: [][]string{tc.sent}}
			if c, err := tr.Conversation(tc.player); err == nil {
				t.Errorf("no error; conversation %v", c)
			}
		})
	}
}

// txtarFiles splits a suite case (a txtar archive) into its comment, the script, and its
// files, by file name.
func txtarFiles(data string) (script string, files map[string]string) {
	a := txtar.Parse([]byte(data))
	files = map[string]string{}
	for _, f := range a.Files {
		files[f.Name] = string(f.Data)
	}
	return string(a.Comment), files
}

// suiteCases returns the suite's cases whose names match the glob, read whole.
func suiteCases(t *testing.T, glob string) map[string]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(suiteDir, glob))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cases[strings.TrimSuffix(filepath.Base(p), ".txtar")] = string(b)
	}
	return cases
}

// strategyVar maps the program names a case's hub command uses to strategies. ./typeA is
// game_renamed_copy's renamed EAIT.
var strategyVar = map[string]string{
	"$EAIT": "EAIT", "$SCIENCE": "SCIENCE", "$HABS": "HABS", "$HASS": "HASS", "$MABS": "MABS", "./typeA": "EAIT",
}

// suiteGame is a case's complete game between reference strategies, as hubGame finds it.
type suiteGame struct {
	roll   string         // the roll file's name
	win    int            // the winscore
	names  []string       // the strategies, in label order
	want   string         // the file the hub's stderr is compared with
	files  []string       // the files of the comparison: want, then its alternatives
	except *regexp.Regexp // the lines left out of the comparison (cmpexcept), or nil
	ending bool           // a mock ends in its own way: lines may follow the game's (its exit line)
}

// hubGame finds a case's complete reference game: its `run -status 0 [-timeout D] $STLUCIA
// ROLL WIN PROGS...` command when every program plays a reference strategy (a reference
// player, a fault-free recording relay of one, `mkplayer NAME -relay $VAR -record FILE`, or a
// mock playing one whose only fault is how it ends, `mkplayer NAME -as VAR -fault 'end ...'`),
// and the command that compares its stderr (`cmp stderr FILE`, `cmpalt stderr FILE ALT...`
// or `cmpexcept REGEXP stderr FILE ALT...`). ok is false when the case has no such game.
func hubGame(script string) (g suiteGame, ok bool) {
	lines := strings.Split(script, "\n")
	plays := map[string]string{} // a mock's name -> the program whose strategy it plays
	for _, l := range lines {
		f := strings.Fields(l)
		switch {
		case len(f) == 6 && f[0] == "mkplayer" && f[2] == "-relay" && f[4] == "-record":
			plays[f[1]] = f[3]
		case len(f) >= 6 && f[0] == "mkplayer" && f[2] == "-as" && f[4] == "-fault" && f[5] == "'end":
			plays[f[1]] = "$" + f[3]
			g.ending = true
		}
	}
	for i, l := range lines {
		f := strings.Fields(l)
		at := slices.Index(f, "$STLUCIA")
		if len(f) < 4 || f[0] != "run" || f[1] != "-status" || f[2] != "0" || at < 0 || len(f) < at+5 {
			continue
		}
		w, err := strconv.Atoi(f[at+2])
		if err != nil {
			return g, false
		}
		g.roll, g.win = f[at+1], w
		for _, p := range f[at+3:] {
			if v, ok := plays[strings.TrimPrefix(p, "$MOCKBIN/")]; ok {
				p = v
			}
			s, ok := strategyVar[p]
			if !ok {
				return g, false
			}
			g.names = append(g.names, s)
		}
		for _, next := range lines[i+1:] {
			c := strings.Fields(next)
			switch {
			case len(c) == 3 && c[0] == "cmp" && c[1] == "stderr",
				len(c) >= 3 && c[0] == "cmpalt" && c[1] == "stderr":
				g.files = c[2:]
			case len(c) >= 4 && c[0] == "cmpexcept":
				// cmpexcept 'REGEXP' stderr FILE ALT...: the regexp is quoted.
				expr, rest, quoted := strings.Cut(strings.TrimPrefix(strings.TrimSpace(next), "cmpexcept '"), "'")
				r := strings.Fields(rest)
				if !quoted || len(r) < 2 || r[0] != "stderr" {
					continue
				}
				re, err := regexp.Compile(expr)
				if err != nil {
					return g, false
				}
				g.except, g.files = re, r[1:]
			default:
				continue
			}
			g.want = g.files[0]
			return g, true
		}
		return g, false
	}
	return g, false
}

// compared is a game's stderr lines as the case compares them: without the lines the case
// leaves out.
func (g suiteGame) compared(stderr []string) string {
	var kept []string
	for _, l := range stderr {
		if g.except == nil || !g.except.MatchString(l) {
			kept = append(kept, l)
		}
	}
	return string(lines(kept))
}

// matches reports whether an expected stderr file holds the game: the game's lines as
// compared, followed by nothing or, when a mock ends in its own way, by the lines of its
// ending (which the game's engine does not know).
func (g suiteGame) matches(file string, game []string) bool {
	want, got := g.compared(strings.Split(strings.TrimSuffix(file, "\n"), "\n")), g.compared(game)
	return want == got || g.ending && strings.HasPrefix(want, got)
}

// TestSuiteGames replays every complete game of the suite's hub cases (the engine's
// Simulate and the independent refPlay) and checks the case's expected stderr against
// both. Every game_* case must have such a game.
func TestSuiteGames(t *testing.T) {
	cases := suiteCases(t, "*.txtar")
	checked := 0
	for name, data := range cases {
		script, files := txtarFiles(data)
		g, ok := hubGame(script)
		if ok && files[g.roll] == "" {
			ok = false // the roll file is made by the script itself
		}
		if !ok {
			if strings.HasPrefix(name, "game_") {
				t.Errorf("%s: no complete reference game found", name)
			}
			continue
		}
		checked++
		t.Run(name, func(t *testing.T) {
			rf, err := ParseRollFile([]byte(files[g.roll]))
			if err != nil {
				t.Fatal(err)
			}
			want, ok := files[g.want]
			if !ok {
				t.Fatalf("no file %s", g.want)
			}
			tr, err := Simulate(rf.Dice(), g.win, strategiesOf(t, g.names), 100000)
			if err != nil {
				t.Fatal(err)
			}
			var stream strings.Builder
			for _, f := range rf.Dice() {
				stream.WriteString(f.String())
			}
			if !g.matches(want, tr.Stderr) {
				t.Errorf("engine's stderr differs from %s:\n%s", g.want, lines(tr.Stderr))
			}
			if got := string(lines(stderrOf(refPlay(stream.String(), g.win, g.names)))); got != string(lines(tr.Stderr)) {
				t.Errorf("refPlay's stderr differs from the engine's:\n%s", got)
			}
			checkRecorded(t, script, files, g.names, tr, refPlay(stream.String(), g.win, g.names), "")
			// The other reading of a kill in StLucia (Rules.NoClaimOnKill): where it
			// changes the game, the case must accept it, in the hub's stderr and in every
			// recorded conversation, with files checked against the engine and refPlay
			// playing that reading.
			alt, err := SimulateRules(Rules{NoClaimOnKill: true}, rf.Dice(), g.win, strategiesOf(t, g.names), 100000)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(lines(stderrOf(refPlayRules(stream.String(), g.win, g.names, true)))); got != string(lines(alt.Stderr)) {
				t.Errorf("with no claim on a kill, refPlay's stderr differs from the engine's:\nrefPlay:\n%s\nengine:\n%s", got, lines(alt.Stderr))
			}
			altWant := g.compared(alt.Stderr)
			refWant := g.compared(tr.Stderr)
			altFile := strings.TrimSuffix(g.want, ".stderr") + "-noclaim.stderr"
			got, has := files[altFile]
			switch {
			case altWant == refWant && has:
				t.Errorf("%s: no claim on a kill changes nothing in this game; remove the file", altFile)
			case altWant != refWant && !has:
				t.Errorf("no claim on a kill (an accepted reading) changes this game, and the case does not accept it: add %s to the files its stderr is compared with:\n%s", altFile, lines(alt.Stderr))
			case has && !g.matches(got, alt.Stderr):
				t.Errorf("%s differs from the engine's game with no claim on a kill:\n%s", altFile, lines(alt.Stderr))
			case has && !slices.Contains(g.files[1:], altFile):
				t.Errorf("%s is not an alternative of the case's stderr (%s)", altFile, g.want)
			}
			if altWant != refWant {
				checkRecorded(t, script, files, g.names, alt, refPlayRules(stream.String(), g.win, g.names, true), "-noclaim")
			}
		})
	}
	if checked < 20 {
		t.Errorf("only %d cases hold a complete reference game", checked)
	}
}

// checkRecorded checks each recorded player's side of the game tr (want-a<suffix>.txt for
// player A, in the form of the transcript command) against its conversation in tr. With a
// suffix (an alternative reading), a file is required when the conversation differs from
// the reference's file, and the script must list it after the reference's. The engine's
// conversation must also be refPlay's (wire, the same game played by refPlay).
func checkRecorded(t *testing.T, script string, files map[string]string, names []string, tr Transcript, wire []string, suffix string) {
	t.Helper()
	for p := range names {
		base := "want-" + strings.ToLower(string(Label(p)))
		ref, isRecorded := files[base+".txt"]
		if !isRecorded {
			continue
		}
		conv, err := tr.Conversation(p)
		if err != nil {
			t.Fatal(err)
		}
		if ref := wireConversation(wire, p); !reflect.DeepEqual(ref, conv) {
			t.Errorf("player %c: refPlay's conversation differs from the engine's (%s):\n%v", Label(p), suffix, ref)
		}
		got := transcriptOf(p, conv)
		file := base + suffix + ".txt"
		recorded, ok := files[file]
		switch {
		case !ok && suffix != "" && got != ref:
			t.Errorf("player %c's conversation changes with %s and the case has no %s:\n%s", Label(p), suffix, file, got)
		case ok && got != recorded:
			t.Errorf("%s differs from the engine's conversation:\n%s", file, got)
		case ok && suffix != "" && !altListed(script, base+".txt", file):
			t.Errorf("%s is not an alternative of %s.txt (`cmpalt stdout %s.txt ... %s`)", file, base, base, file)
		}
	}
}

// altListed reports whether script has a `cmpalt stdout WANT ... ALT` line.
func altListed(script, want, alt string) bool {
	for _, l := range strings.Split(script, "\n") {
		f := strings.Fields(l)
		if len(f) >= 4 && f[0] == "cmpalt" && f[1] == "stdout" && f[2] == want && slices.Contains(f[3:], alt) {
			return true
		}
	}
	return false
}

// wireConversation is player p's side of refPlay's wire transcript.
func wireConversation(wire []string, p int) []judge.Line {
	var conv []judge.Line
	label := string(Label(p))
	for _, w := range wire {
		if m, ok := strings.CutPrefix(w, label+"<- "); ok {
			conv = append(conv, from(m))
		} else if r, ok := strings.CutPrefix(w, label+"-> "); ok {
			conv = append(conv, to(r))
		}
	}
	return conv
}

// transcriptOf writes player p's side of a game as the suite's transcript command prints a
// recording relay's log: the handshake, then one line per message, "FROM -> TO | TEXT".
func transcriptOf(p int, conv []judge.Line) string {
	me := "player " + string(Label(p))
	var b strings.Builder
	b.WriteString(me + " -> hub | ! [no newline]\n")
	for _, l := range conv {
		if l.FromPlayer {
			b.WriteString(me + " -> hub | " + l.Text + "\n")
		} else {
			b.WriteString("hub -> " + me + " | " + l.Text + "\n")
		}
	}
	return b.String()
}

// formatConversation writes a player's conversation in the mock hub's format, as the suite's
// player_game_* cases hold it.
func formatConversation(n, p int, conv []judge.Line) string {
	var b strings.Builder
	b.WriteString("args " + strconv.Itoa(n) + " " + string(Label(p)) + "\nhello \"!\"\n")
	for _, l := range conv {
		if l.FromPlayer {
			b.WriteString("expect " + strconv.Quote(l.Text) + "\n")
		} else {
			b.WriteString("send " + strconv.Quote(l.Text) + "\n")
		}
	}
	b.WriteString("eof\nexit 0\n")
	return b.String()
}

// TestSuiteConversations regenerates the conversation of every player_game_* case (named in
// its header: "# conversation: player X of stlucia ROLL WIN NAMES...", the roll file being
// one of fixtures/stlucia/rolls) and checks the case's conversation and expected stderr.
// The conversation is also checked against refPlay's wire transcript.
func TestSuiteConversations(t *testing.T) {
	cases := suiteCases(t, "player_game_*.txtar")
	if len(cases) < 10 {
		t.Fatalf("only %d player_game cases", len(cases))
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			script, files := txtarFiles(data)
			var spec []string
			for _, l := range strings.Split(script, "\n") {
				if rest, ok := strings.CutPrefix(l, "# conversation: player "); ok {
					spec = strings.Fields(rest)
				}
			}
			// X of stlucia ROLL WIN NAMES...
			if len(spec) < 7 || spec[1] != "of" || spec[2] != "stlucia" || len(spec[0]) != 1 {
				t.Fatalf("no conversation header: %q", spec)
			}
			p := int(spec[0][0] - 'A')
			win, err := strconv.Atoi(spec[4])
			if err != nil {
				t.Fatal(err)
			}
			names := spec[5:]
			rolls := readRolls(t, spec[3])
			convs, err := Conversations(rolls, win, strategiesOf(t, names), 100000)
			if err != nil {
				t.Fatal(err)
			}
			if got := formatConversation(len(names), p, convs[p]); got != files["conv"] {
				t.Errorf("conversation differs from the engine's:\n%s", got)
			}
			var echo strings.Builder
			for _, l := range convs[p] {
				if !l.FromPlayer {
					echo.WriteString("From StLucia:" + l.Text + "\n")
				}
			}
			if echo.String() != files["want.stderr"] {
				t.Errorf("want.stderr differs from the engine's:\n%s", echo.String())
			}
			var stream strings.Builder
			for _, f := range rolls {
				stream.WriteString(f.String())
			}
			ref := wireConversation(refPlay(stream.String(), win, names), p)
			if !reflect.DeepEqual(ref, convs[p]) {
				t.Errorf("refPlay's conversation differs from the engine's:\n%v", ref)
			}
		})
	}
}
