package stlucia

import (
	"github.com/rogpeppe/go-internal/txtar"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// suiteDir holds the conformance suite's cases (testscripts/stlucia). Several of them embed
// expectations produced by the engine; the tests below check them again at every run,
// against the engine and against refPlay, so the suite cannot drift from the rules.
const suiteDir = "../../testscripts/stlucia"

// from and to build the lines of a conversation.
func from(s string) ConvLine { return ConvLine{Text: s} }
func to(s string) ConvLine   { return ConvLine{FromPlayer: true, Text: s} }

// TestConversationHandTraced checks player A's side of the rules file's first worked
// example (x.roll, EAIT against EAIT, to 10). The expected lines were traced by hand from
// the rules, die by die, before this code ran; docs/stlucia-suite.md gives the trace.
func TestConversationHandTraced(t *testing.T) {
	want := []ConvLine{
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

// hubGame finds a case's complete reference game: its `run -status 0 $STLUCIA ROLL WIN
// PROGS...` command when every program is a reference player (or a fault-free recording
// relay of one, `mkplayer NAME -relay $VAR -record FILE`), and the file its stderr is
// compared with. ok is false when the case has no such game.
func hubGame(script string) (roll string, win int, names []string, want string, ok bool) {
	lines := strings.Split(script, "\n")
	relays := map[string]string{}
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) == 6 && f[0] == "mkplayer" && f[2] == "-relay" && f[4] == "-record" {
			relays[f[1]] = f[3]
		}
	}
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) < 7 || f[0] != "run" || f[1] != "-status" || f[2] != "0" || f[3] != "$STLUCIA" {
			continue
		}
		w, err := strconv.Atoi(f[5])
		if err != nil {
			return "", 0, nil, "", false
		}
		for _, p := range f[6:] {
			if v, ok := relays[strings.TrimPrefix(p, "$MOCKBIN/")]; ok {
				p = v
			}
			s, ok := strategyVar[p]
			if !ok {
				return "", 0, nil, "", false
			}
			names = append(names, s)
		}
		for _, next := range lines[i+1:] {
			if g := strings.Fields(next); len(g) == 3 && g[0] == "cmp" && g[1] == "stderr" {
				return f[4], w, names, filepath.Base(g[2]), true
			}
		}
		return "", 0, nil, "", false
	}
	return "", 0, nil, "", false
}

// TestSuiteGames replays every complete game of the suite's hub cases (the engine's
// Simulate and the independent refPlay) and checks the case's expected stderr against
// both. Every game_* case must have such a game.
func TestSuiteGames(t *testing.T) {
	cases := suiteCases(t, "*.txtar")
	checked := 0
	for name, data := range cases {
		script, files := txtarFiles(data)
		roll, win, names, wantFile, ok := hubGame(script)
		if ok && files[roll] == "" {
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
			rf, err := ParseRollFile([]byte(files[roll]))
			if err != nil {
				t.Fatal(err)
			}
			want, ok := files[wantFile]
			if !ok {
				t.Fatalf("no file %s", wantFile)
			}
			tr, err := Simulate(rf.Dice(), win, strategiesOf(t, names), 100000)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(lines(tr.Stderr)); got != want {
				t.Errorf("engine's stderr differs from %s:\n%s", wantFile, got)
			}
			var stream strings.Builder
			for _, f := range rf.Dice() {
				stream.WriteString(f.String())
			}
			if got := string(lines(stderrOf(refPlay(stream.String(), win, names)))); got != want {
				t.Errorf("refPlay's stderr differs from %s:\n%s", wantFile, got)
			}
			// A recorded player's side (want-a.txt for player A, in the form of the
			// transcript command) must be its conversation in the engine's game.
			for p := range names {
				file := "want-" + strings.ToLower(string(Label(p))) + ".txt"
				recorded, ok := files[file]
				if !ok {
					continue
				}
				conv, err := tr.Conversation(p)
				if err != nil {
					t.Fatal(err)
				}
				if got := transcriptOf(p, conv); got != recorded {
					t.Errorf("%s differs from the engine's conversation:\n%s", file, got)
				}
			}
		})
	}
	if checked < 20 {
		t.Errorf("only %d cases hold a complete reference game", checked)
	}
}

// transcriptOf writes player p's side of a game as the suite's transcript command prints a
// recording relay's log: the handshake, then one line per message, "FROM -> TO | TEXT".
func transcriptOf(p int, conv []ConvLine) string {
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
func formatConversation(n, p int, conv []ConvLine) string {
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
			var ref []ConvLine
			label := spec[0]
			for _, w := range refPlay(stream.String(), win, names) {
				if m, ok := strings.CutPrefix(w, label+"<- "); ok {
					ref = append(ref, from(m))
				} else if r, ok := strings.CutPrefix(w, label+"-> "); ok {
					ref = append(ref, to(r))
				}
			}
			if !reflect.DeepEqual(ref, convs[p]) {
				t.Errorf("refPlay's conversation differs from the engine's:\n%v", ref)
			}
		})
	}
}
