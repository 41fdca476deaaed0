package dealer2310

import (
	"fmt"
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

// suiteDir holds the conformance suite's cases (testscripts/dealer2310). Several of them
// embed expectations produced by the engine; the tests below check them again at every run,
// against the engine and against refPlay (an independent implementation of the spec's
// rules, at the end of this file), so the suite cannot drift from the rules.
const suiteDir = "../../testscripts/dealer2310"

// from and to build the lines of a conversation.
func from(s string) judge.Line { return judge.Line{Text: s} }
func to(s string) judge.Line   { return judge.Line{FromPlayer: true, Text: s} }

// TestConversationSpec checks player 0's side of the spec's example session against the
// spec's own lists ("In the above, Player 0 recieved: ... Player 0 sent to standard out"),
// typed from the spec: each reply follows the YT that asked for it.
func TestConversationSpec(t *testing.T) {
	want := []judge.Line{
		from("7;::-Mo1V11V22Mo1Mo1::-"),
		from("YT"), to("DO1"),
		from("HAP0,1,0,3,0"), from("HAP1,2,0,0,0"),
		from("YT"), to("DO3"),
		from("HAP0,3,0,0,0"), from("HAP1,3,0,0,0"), from("HAP1,4,0,3,0"),
		from("YT"), to("DO6"),
		from("HAP0,6,0,0,0"), from("HAP1,5,0,3,0"), from("HAP1,6,0,0,0"),
		from("DONE"),
	}
	tr, convs, err := Conversations(mustPath(t, "7;::-Mo1V11V22Mo1Mo1::-"), mustDeck(t, "7ABACDEE"), []Strategy{StrategyA, StrategyA})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(convs[0], want) {
		t.Errorf("player 0's conversation:\n got %v\nwant %v", convs[0], want)
	}
	// Player 1 answers five YTs: DO2, DO3, DO4, DO5, DO6 (the HAPs with player 1 above).
	var replies []string
	for _, l := range convs[1] {
		if l.FromPlayer {
			replies = append(replies, l.Text)
		}
	}
	if strings.Join(replies, " ") != "DO2 DO3 DO4 DO5 DO6" || len(convs[1]) != 20 {
		t.Errorf("player 1's conversation: %v", convs[1])
	}
	if tr.Players[0].Stderr != tr.Stdout {
		t.Errorf("player 0's stderr is not the dealer's stdout")
	}
}

// TestConversationErrors checks that transcripts whose replies do not fit their YT
// messages are refused rather than interleaved wrongly.
func TestConversationErrors(t *testing.T) {
	tests := []struct {
		name   string
		pt     PlayerTranscript
		player int
	}{
		{"reply missing", PlayerTranscript{Stdin: "2;::-::-\nYT\n", Stdout: "^"}, 0},
		{"reply unasked", PlayerTranscript{Stdin: "2;::-::-\nHAP0,1,0,0,0\n", Stdout: "^DO1\n"}, 0},
		{"no handshake", PlayerTranscript{Stdin: "2;::-::-\nYT\n", Stdout: "DO1\n"}, 0},
		{"bad message", PlayerTranscript{Stdin: "2;::-::-\nHAP0,1\n", Stdout: "^"}, 0},
		{"no such player", PlayerTranscript{Stdin: "2;::-::-\n", Stdout: "^"}, 1},
		{"negative player", PlayerTranscript{Stdin: "2;::-::-\n", Stdout: "^"}, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := Transcript{Players: []PlayerTranscript{tc.pt}}
			if c, err := tr.Conversation(tc.player); err == nil {
				t.Errorf("no error; conversation %v", c)
			}
		})
	}
}

// refGames are games replayed by both the engine and refPlay: the hand-traced fixtures'
// games and the benchmark game.
var refGames = []struct{ path, deck string }{
	{"7;::-Mo1V11V22Mo1Mo1::-", "7ABACDEE"},
	{"2;::-::-", "4ABCD"},
	{"8;::-Ri2Mo1V22Ri1Do2Ri3::-", "4ABCD"},
	{"10;::-Mo2Do1V11::-::-Ri2V21Do2::-", "5BCADE"},
	{"6;::-V12Mo3Ri1V22::-", "4EEAB"},
	{"8;::-Ri3Do2Mo2::-V23Ri2::-", "4BDCA"},
	{benchPath, benchDeck},
}

// TestRefPlayAgrees plays every refGame with every mix of 2310A and 2310B for 1 to 4
// players, and with 6 players alternating, in the engine and in refPlay, and compares the
// dealer's stdout and every player's conversation.
func TestRefPlayAgrees(t *testing.T) {
	var lineups [][]string
	for n := 1; n <= 4; n++ {
		for mask := 0; mask < 1<<n; mask++ {
			var names []string
			for i := 0; i < n; i++ {
				names = append(names, []string{"2310A", "2310B"}[mask>>i&1])
			}
			lineups = append(lineups, names)
		}
	}
	lineups = append(lineups, benchPlayers)
	for _, g := range refGames {
		for _, names := range lineups {
			tr, convs, err := Conversations(mustPath(t, g.path), mustDeck(t, g.deck), strategiesOf(t, names))
			if err != nil {
				t.Fatalf("%s %v: %v", g.path, names, err)
			}
			out, refConvs, err := refPlay(g.path, g.deck, names)
			if err != nil {
				t.Fatalf("%s %v: refPlay: %v", g.path, names, err)
			}
			if out != tr.Stdout {
				t.Errorf("%s %v: stdout differs:\nengine:\n%s\nrefPlay:\n%s", g.path, names, tr.Stdout, out)
			}
			if !reflect.DeepEqual(convs, refConvs) {
				t.Errorf("%s %v: conversations differ:\nengine:  %v\nrefPlay: %v", g.path, names, convs, refConvs)
			}
		}
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

// programVar maps the program names a case's dealer command uses to strategies. ./myplayer
// is game_renamed_copy's renamed 2310A.
var programVar = map[string]string{"$PLAYER_A": "2310A", "$PLAYER_B": "2310B", "./myplayer": "2310A"}

// suiteGame is a case's complete reference game: its `run -status 0 $DEALER DECK PATH
// PROGS...` command, when every program is a reference player or a fault-free recording
// relay of one (`mkplayer NAME -relay $VAR -record FILE`).
type suiteGame struct {
	deck, path string            // the files' names
	names      []string          // the players' strategies
	want       string            // the file the dealer's stdout is compared with
	records    map[string]string // recording file -> the relay's strategy
}

func findGame(script string) (suiteGame, bool) {
	lines := strings.Split(script, "\n")
	relays := map[string][2]string{} // relay name -> variable, record file
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) == 6 && f[0] == "mkplayer" && f[2] == "-relay" && f[4] == "-record" {
			relays[f[1]] = [2]string{f[3], f[5]}
		}
	}
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) < 7 || f[0] != "run" || f[1] != "-status" || f[2] != "0" || f[3] != "$DEALER" {
			continue
		}
		g := suiteGame{deck: f[4], path: f[5], records: map[string]string{}}
		for _, p := range f[6:] {
			if r, ok := relays[strings.TrimPrefix(p, "$MOCKBIN/")]; ok {
				p = r[0]
				g.records[r[1]] = programVar[p]
			}
			s, ok := programVar[p]
			if !ok {
				return suiteGame{}, false
			}
			g.names = append(g.names, s)
		}
		for _, next := range lines[i+1:] {
			if h := strings.Fields(next); len(h) == 3 && h[0] == "cmp" && h[1] == "stdout" {
				g.want = h[2]
				return g, true
			}
		}
		return suiteGame{}, false
	}
	return suiteGame{}, false
}

// oneLine returns a one-line input file without its '\n', or fails.
func oneLine(t *testing.T, files map[string]string, name string) string {
	t.Helper()
	data, ok := files[name]
	if !ok || !strings.HasSuffix(data, "\n") || strings.Count(data, "\n") != 1 {
		t.Fatalf("no one-line file %s", name)
	}
	return strings.TrimSuffix(data, "\n")
}

// TestSuiteGames replays every complete reference game of the suite's dealer cases with
// the engine (Simulate) and with refPlay, and checks the case's expected stdout against
// both. Each recorded player's side (want-p0.txt for the recording p0.rec, in the form of
// the transcript command) must be its conversation in that game. Every game_* case must
// hold such a game.
func TestSuiteGames(t *testing.T) {
	cases := suiteCases(t, "*.txtar")
	checked := 0
	for name, data := range cases {
		script, files := txtarFiles(data)
		g, ok := findGame(script)
		if ok && (files[g.deck] == "" || files[g.path] == "") {
			ok = false
		}
		if !ok {
			if strings.HasPrefix(name, "game_") {
				t.Errorf("%s: no complete reference game found", name)
			}
			continue
		}
		checked++
		t.Run(name, func(t *testing.T) {
			deck, path := oneLine(t, files, g.deck), oneLine(t, files, g.path)
			want, ok := files[g.want]
			if !ok {
				t.Fatalf("no file %s", g.want)
			}
			tr, convs, err := Conversations(mustPath(t, path), mustDeck(t, deck), strategiesOf(t, g.names))
			if err != nil {
				t.Fatal(err)
			}
			if tr.Stdout != want {
				t.Errorf("the engine's stdout differs from %s:\n%s", g.want, tr.Stdout)
			}
			out, _, err := refPlay(path, deck, g.names)
			if err != nil {
				t.Fatal(err)
			}
			if out != want {
				t.Errorf("refPlay's stdout differs from %s:\n%s", g.want, out)
			}
			for rec := range g.records {
				p := recordedPlayer(t, script, rec)
				file := "want-p" + strconv.Itoa(p) + ".txt"
				recorded, ok := files[file]
				if !ok {
					t.Errorf("no %s for the recording %s", file, rec)
					continue
				}
				if got := transcriptOf(p, convs[p]); got != recorded {
					t.Errorf("%s differs from the engine's conversation:\n%s", file, got)
				}
				// The allowed alternative differs only in the dealer's last line (DONE)
				// having no newline.
				alt := strings.TrimSuffix(file, ".txt") + "-nonl.txt"
				if got, ok := files[alt]; ok && got != strings.TrimSuffix(recorded, "\n")+" [no newline]\n" {
					t.Errorf("%s is not %s with DONE unterminated", alt, file)
				}
			}
		})
	}
	if checked < 15 {
		t.Errorf("only %d cases hold a complete reference game", checked)
	}
}

// recordedPlayer finds the id of the player whose recording is rec: the script's
// `transcript -who 'player N' REC` command names it.
func recordedPlayer(t *testing.T, script, rec string) int {
	t.Helper()
	for _, l := range strings.Split(script, "\n") {
		if rest, ok := strings.CutPrefix(l, "transcript -who 'player "); ok && strings.HasSuffix(l, "' "+rec) {
			p, err := strconv.Atoi(strings.TrimSuffix(rest, "' "+rec))
			if err == nil {
				return p
			}
		}
	}
	t.Fatalf("no transcript command for %s", rec)
	return -1
}

// transcriptOf writes player p's side of a game as the transcript command prints a
// recording relay's log: the handshake, then one line per message, "FROM -> TO | TEXT".
func transcriptOf(p int, conv []judge.Line) string {
	me := "player " + strconv.Itoa(p)
	var b strings.Builder
	b.WriteString(me + " -> hub | ^ [no newline]\n")
	for _, l := range conv {
		if l.FromPlayer {
			b.WriteString(me + " -> hub | " + l.Text + "\n")
		} else {
			b.WriteString("hub -> " + me + " | " + l.Text + "\n")
		}
	}
	return b.String()
}

// formatConversation writes a player's conversation in the mock hub's format, as the
// suite's player_game_* cases hold it.
func formatConversation(n, p int, conv []judge.Line) string {
	var b strings.Builder
	fmt.Fprintf(&b, "args %d %d\nhello \"^\"\n", n, p)
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

// TestSuiteConversations regenerates the conversation of every player_game_* case, named in
// its header ("# conversation: player P of DECK PATH NAMES...", the deck and path lines as
// in the files), and checks the case's conversation and expected stderr (the dealer's
// stdout: players print what the dealer prints) against the engine's and refPlay's.
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
			// P of DECK PATH NAMES...
			if len(spec) < 5 || spec[1] != "of" {
				t.Fatalf("no conversation header: %q", spec)
			}
			p, err := strconv.Atoi(spec[0])
			if err != nil {
				t.Fatal(err)
			}
			deck, path, names := spec[2], spec[3], spec[4:]
			tr, convs, err := Conversations(mustPath(t, path), mustDeck(t, deck), strategiesOf(t, names))
			if err != nil {
				t.Fatal(err)
			}
			if got := formatConversation(len(names), p, convs[p]); got != files["conv"] {
				t.Errorf("conversation differs from the engine's:\n%s", got)
			}
			if tr.Players[p].Stderr != files["want.stderr"] {
				t.Errorf("want.stderr differs from the engine's:\n%s", tr.Players[p].Stderr)
			}
			out, ref, err := refPlay(path, deck, names)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(ref[p], convs[p]) || out != files["want.stderr"] {
				t.Errorf("refPlay's game differs from the engine's:\n%v\n%s", ref[p], out)
			}
		})
	}
}

// playerVar maps the suite's player variables to the strategies they default to.
var playerVar = map[string]string{"$PLAYER_A": "2310A", "$PLAYER_B": "2310B"}

// replay feeds a player's input to refPlayer the way the mock hub or a file would: whole
// lines as they complete, a last line without '\n' at EOF (spec tip 6), then EOF. It
// returns the replies in order.
func (r *refPlayer) replay(input string, eof bool) []string {
	var replies []string
	for !r.done {
		l, rest, ok := strings.Cut(input, "\n")
		if !ok {
			break
		}
		input = rest
		if reply := r.line(l); reply != "" {
			replies = append(replies, reply)
		}
	}
	if eof && !r.done {
		if input != "" {
			if reply := r.line(input); reply != "" {
				replies = append(replies, reply)
			}
		}
		if !r.done {
			r.eof()
		}
	}
	return replies
}

// TestSuitePlayerCases replays the conversation of every player case that runs a player
// under the mock hub (`run -status 0 mockhub conv $PLAYER_X`), and every player case run on
// a file (`run -status S -stdin FILE $PLAYER_X N ID`), through refPlayer: each reply the
// case expects, the exit status and the expected stderr must be refPlayer's. Hand-written
// conversations are checked this way as well as generated ones.
func TestSuitePlayerCases(t *testing.T) {
	checked := 0
	for name, data := range suiteCases(t, "player_*.txtar") {
		script, files := txtarFiles(data)
		printed := ""
		for _, l := range strings.Split(script, "\n") {
			f := strings.Fields(l)
			switch {
			// A file without a final newline, made by the script: run printf, cp stdout.
			case strings.HasPrefix(l, "run -status 0 printf '") && strings.HasSuffix(l, "'"):
				printed = strings.TrimSuffix(strings.TrimPrefix(l, "run -status 0 printf '"), "'")
			case len(f) == 3 && f[0] == "cp" && f[1] == "stdout":
				files[f[2]] = printed
			case len(f) == 6 && f[0] == "run" && f[3] == "mockhub" && f[4] == "conv" && playerVar[f[5]] != "":
				checked++
				t.Run(name, func(t *testing.T) {
					// A conversation that ends with `end` marks stderr only up to its ending.
					cmpWant := "\ncmp stderr want.stderr\n"
					if strings.HasSuffix(strings.TrimSpace(files["conv"]), "\nend") {
						cmpWant = "\ncmpprefix stderr want.stderr\n"
					}
					if !strings.Contains(script, cmpWant) {
						t.Errorf("the script does not check stderr with %q", strings.TrimSpace(cmpWant))
					}
					checkConversation(t, playerVar[f[5]], files["conv"], files["want.stderr"])
				})
			case len(f) == 8 && f[0] == "run" && f[3] == "-stdin" && playerVar[f[5]] != "":
				var want string
				for _, c := range strings.Split(script, "\n") {
					if g := strings.Fields(c); len(g) >= 3 && g[0] == "cmpalt" && g[1] == "stderr" {
						want = files[g[2]]
					}
				}
				checked++
				t.Run(name, func(t *testing.T) {
					status, _, _ := strings.Cut(f[2], ",")
					n, me := mustArgs(t, f[6], f[7])
					r := &refPlayer{name: playerVar[f[5]], n: n, me: me}
					r.replay(files[f[4]], true)
					if strconv.Itoa(r.status) != status || r.output() != want {
						t.Errorf("refPlayer: status %d, stderr:\n%s", r.status, r.output())
					}
				})
			}
		}
	}
	if checked < 50 {
		t.Errorf("only %d player cases checked", checked)
	}
}

func mustArgs(t *testing.T, count, id string) (int, int) {
	t.Helper()
	n, err1 := strconv.Atoi(count)
	me, err2 := strconv.Atoi(id)
	if err1 != nil || err2 != nil || n < 1 || me < 0 || me >= n {
		t.Fatalf("bad player arguments %q %q", count, id)
	}
	return n, me
}

// checkConversation replays a mock hub conversation through refPlayer.
func checkConversation(t *testing.T, name, conv, wantStderr string) {
	t.Helper()
	var r *refPlayer
	var pending, replies []string
	input := ""
	closed := false
	// beforeSend is refPlayer's stderr before the last line sent: with an `end` step, the
	// case marks stderr up to there (that line only ends the conversation).
	beforeSend, ended := "", false
	for i, l := range strings.Split(conv, "\n") {
		f := strings.Fields(l)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		arg := ""
		if len(f) > 1 {
			var err error
			if arg, err = strconv.Unquote(strings.TrimSpace(strings.TrimPrefix(l, f[0]))); err != nil && f[0] != "args" && f[0] != "exit" && f[0] != "sleep" {
				t.Fatalf("line %d: %v", i+1, err)
			}
		}
		switch f[0] {
		case "args":
			n, me := mustArgs(t, f[1], f[2])
			r = &refPlayer{name: name, n: n, me: me}
		case "hello":
			if arg != "^" {
				t.Fatalf("line %d: hello %q", i+1, arg)
			}
		case "send", "send-raw":
			beforeSend = r.output()
			if f[0] == "send" {
				arg += "\n"
			}
			input += arg
			// Complete lines reach the player now; a partial line waits for more or EOF.
			cut := strings.LastIndexByte(input, '\n') + 1
			pending = append(pending, r.replay(input[:cut], false)...)
			input = input[cut:]
		case "sleep":
		case "close":
			pending = append(pending, r.replay(input, true)...)
			input, closed = "", true
		case "expect":
			if len(pending) == 0 || pending[0] != arg {
				t.Errorf("line %d: expect %q, refPlayer's replies %q", i+1, arg, pending)
				return
			}
			replies = append(replies, pending[0])
			pending = pending[1:]
		case "expect-any":
			// Any line passes the case; refPlayer must still send one here.
			if len(pending) == 0 {
				t.Errorf("line %d: expect-any, but refPlayer sends nothing", i+1)
				return
			}
			replies = append(replies, pending[0])
			pending = pending[1:]
		case "eof":
			if len(pending) > 0 || !r.done {
				t.Errorf("line %d: eof, but refPlayer replies %q (ended: %v)", i+1, pending, r.done)
			}
		case "exit":
			if !closed && !r.done {
				t.Errorf("line %d: exit, but refPlayer is still running", i+1)
			}
			if want, err := strconv.Atoi(f[1]); err != nil || want != r.status {
				t.Errorf("line %d: %s, refPlayer exits %d", i+1, l, r.status)
			}
		case "end":
			ended = true
			if got := beforeSend; got != wantStderr {
				t.Errorf("want.stderr differs from refPlayer's stderr before the ending:\n%s", got)
			}
		default:
			t.Fatalf("line %d: step %q not replayed", i+1, f[0])
		}
	}
	if ended {
		return
	}
	if got := r.output(); got != wantStderr {
		t.Errorf("want.stderr differs from refPlayer's stderr:\n%s", got)
	}
}

// refGame is an independent implementation of the game, written from the spec alone
// without the engine's code, for cross-checking what the suite expects. Sites hold stacks
// of player ids (the most recent arrival last), so turn order, the display and capacities
// are derived differently from the engine. The dealer's side is refPlay, a player's side
// refPlayer.
type refGame struct {
	kinds   []string // "::", "Mo", "V1", "V2", "Do", "Ri" per site
	caps    []int
	stacks  [][]int // player ids on each site, earliest arrival first
	where   []int   // each player's site
	money   []int
	points  []int
	v1, v2  []int
	items   [][5]int
	display strings.Builder // what has been printed so far
}

var refPathRE = regexp.MustCompile(`^([1-9][0-9]*);((?:::-|(?:Mo|V1|V2|Do|Ri)[1-9])*)$`)

// newRefGame starts a game of n players on the path line (without '\n'); nil if the line
// is not a valid path (the file format of the spec).
func newRefGame(pathLine string, n int) *refGame {
	m := refPathRE.FindStringSubmatch(pathLine)
	if m == nil {
		return nil
	}
	count, _ := strconv.Atoi(m[1])
	if len(m[2]) != 3*count || count < 2 || m[2][:3] != "::-" || m[2][len(m[2])-3:] != "::-" {
		return nil
	}
	g := &refGame{
		stacks: make([][]int, count), where: make([]int, n), money: make([]int, n),
		points: make([]int, n), v1: make([]int, n), v2: make([]int, n), items: make([][5]int, n),
	}
	for i := 0; i < count; i++ {
		c := m[2][3*i : 3*i+3]
		if c == "::-" {
			g.kinds, g.caps = append(g.kinds, "::"), append(g.caps, n)
		} else {
			g.kinds, g.caps = append(g.kinds, c[:2]), append(g.caps, int(c[2]-'0'))
		}
	}
	for i := n - 1; i >= 0; i-- {
		g.stacks[0] = append(g.stacks[0], i)
		g.money[i] = 7
	}
	return g
}

// show prints the path display.
func (g *refGame) show() {
	rows := 0
	for _, st := range g.stacks {
		rows = max(rows, len(st))
	}
	for _, k := range g.kinds {
		g.display.WriteString(k + " ")
	}
	g.display.WriteString("\n")
	for r := 0; r < rows; r++ {
		for _, st := range g.stacks {
			if r < len(st) {
				g.display.WriteString(strconv.Itoa(st[r]%10) + "  ")
			} else {
				g.display.WriteString("   ")
			}
		}
		g.display.WriteString("\n")
	}
}

func (g *refGame) room(s int) bool { return len(g.stacks[s]) < g.caps[s] }

func (g *refGame) barrierAfter(from int) int {
	for s := from + 1; ; s++ {
		if g.kinds[s] == "::" {
			return s
		}
	}
}

// nearest is the first site after from, up to the next barrier, of one of the kinds (any
// kind when none are given) with room; -1 if none.
func (g *refGame) nearest(from int, kinds ...string) int {
	for s := from + 1; s <= g.barrierAfter(from); s++ {
		if !g.room(s) {
			continue
		}
		if len(kinds) == 0 || slices.Contains(kinds, g.kinds[s]) {
			return s
		}
	}
	return -1
}

func (g *refGame) held(p int) int {
	c := 0
	for _, k := range g.items[p] {
		c += k
	}
	return c
}

// next is the player to move: the top of the first non-empty stack before the last site;
// -1 when everyone has arrived.
func (g *refGame) next() int {
	for s := 0; s < len(g.stacks)-1; s++ {
		if k := len(g.stacks[s]); k > 0 {
			return g.stacks[s][k-1]
		}
	}
	return -1
}

// choose is the spec's strategy of program name for player p.
func (g *refGame) choose(name string, p int) int {
	at := g.where[p]
	if at == len(g.kinds)-1 {
		return -1
	}
	if name == "2310A" {
		if s := g.nearest(at, "Do"); g.money[p] > 0 && s >= 0 {
			return s
		}
		if g.kinds[at+1] == "Mo" && g.room(at+1) {
			return at + 1
		}
		return g.nearest(at, "V1", "V2", "::")
	}
	ahead, most, none := true, true, true
	for q := range g.where {
		if q != p && g.where[q] <= at {
			ahead = false
		}
		if q != p && g.held(q) >= g.held(p) {
			most = false
		}
		if g.held(q) > 0 {
			none = false
		}
	}
	if ahead && g.room(at+1) {
		return at + 1
	}
	if s := g.nearest(at, "Mo"); g.money[p]%2 == 1 && s >= 0 {
		return s
	}
	if s := g.nearest(at, "Ri"); (most || none) && s >= 0 {
		return s
	}
	if s := g.nearest(at, "V2"); s >= 0 {
		return s
	}
	return g.nearest(at)
}

// apply moves player p to site dest with the HAP's effects and prints its status line and
// the display.
func (g *refGame) apply(p, dest, pts, dm, card int) {
	at := g.where[p]
	g.stacks[at] = slices.DeleteFunc(g.stacks[at], func(q int) bool { return q == p })
	g.stacks[dest] = append(g.stacks[dest], p)
	g.where[p] = dest
	g.points[p] += pts
	g.money[p] += dm
	if card > 0 {
		g.items[p][card-1]++
	}
	switch g.kinds[dest] {
	case "V1":
		g.v1[p]++
	case "V2":
		g.v2[p]++
	}
	it := g.items[p]
	fmt.Fprintf(&g.display, "Player %d Money=%d V1=%d V2=%d Points=%d A=%d B=%d C=%d D=%d E=%d\n",
		p, g.money[p], g.v1[p], g.v2[p], g.points[p], it[0], it[1], it[2], it[3], it[4])
	g.show()
}

// scores prints the scores line: Do points, V1 and V2 visits, and item sets (each round
// takes one card of every kind held: 5 kinds 10, 4 kinds 7, 3 kinds 5, 2 kinds 3, 1 kind 1).
func (g *refGame) scores() {
	var out []string
	for p := range g.where {
		score := g.points[p] + g.v1[p] + g.v2[p]
		items := g.items[p]
		for {
			kinds := 0
			for k := range items {
				if items[k] > 0 {
					items[k]--
					kinds++
				}
			}
			if kinds == 0 {
				break
			}
			score += []int{0, 1, 3, 5, 7, 10}[kinds]
		}
		out = append(out, strconv.Itoa(score))
	}
	g.display.WriteString("Scores: " + strings.Join(out, ",") + "\n")
}

// refPlay plays path and deck (the files' lines without '\n') between the named reference
// players and returns the dealer's stdout and every player's conversation.
func refPlay(pathLine, deckLine string, names []string) (string, [][]judge.Line, error) {
	g := newRefGame(pathLine, len(names))
	cards := strings.TrimLeft(deckLine, "0123456789")
	if g == nil || cards == "" {
		return "", nil, fmt.Errorf("refPlay: bad path %q or deck %q", pathLine, deckLine)
	}
	drawn := 0
	convs := make([][]judge.Line, len(names))
	tellAll := func(line string) {
		for p := range convs {
			convs[p] = append(convs[p], from(line))
		}
	}
	tellAll(pathLine)
	g.show()
	for p := g.next(); p >= 0; p = g.next() {
		convs[p] = append(convs[p], from("YT"))
		dest := g.choose(names[p], p)
		convs[p] = append(convs[p], to("DO"+strconv.Itoa(dest)))
		at := g.where[p]
		if dest <= at || dest > g.barrierAfter(at) || !g.room(dest) {
			return "", nil, fmt.Errorf("refPlay: player %d chose %d from %d", p, dest, at)
		}
		pts, dm, card := 0, 0, 0
		switch g.kinds[dest] {
		case "Mo":
			dm = 3
		case "Do":
			pts, dm = g.money[p]/2, -g.money[p]
		case "Ri":
			card = strings.IndexByte("ABCDE", cards[drawn%len(cards)]) + 1
			drawn++
		}
		g.apply(p, dest, pts, dm, card)
		tellAll(fmt.Sprintf("HAP%d,%d,%d,%d,%d", p, dest, pts, dm, card))
	}
	tellAll("DONE")
	g.scores()
	return g.display.String(), convs, nil
}

// refPlayer is a reference player's side, written from the spec: it is fed the lines the
// dealer sends (or EOF), and says what the player writes back, on stderr, and how it ends.
type refPlayer struct {
	name   string
	n, me  int
	g      *refGame
	stderr strings.Builder
	done   bool
	status int
}

var refHAPRE = regexp.MustCompile(`^HAP(0|[1-9][0-9]*),(0|[1-9][0-9]*),(0|[1-9][0-9]*),(0|-?[1-9][0-9]*),([0-5])$`)

func (r *refPlayer) end(status int, msg string) {
	r.done, r.status = true, status
	if msg != "" {
		r.stderr.WriteString(msg + "\n")
	}
}

// line handles one line from the dealer (without '\n') and returns the reply ("" for none).
func (r *refPlayer) line(l string) string {
	if r.g == nil {
		if r.g = newRefGame(l, r.n); r.g == nil {
			r.end(4, "Invalid path")
		} else {
			r.g.show()
		}
		return ""
	}
	switch m := refHAPRE.FindStringSubmatch(l); {
	case l == "YT":
		s := r.g.choose(r.name, r.me)
		if s < 0 {
			r.end(6, "Communications error")
			return ""
		}
		return "DO" + strconv.Itoa(s)
	case l == "EARLY":
		r.end(5, "Early game over")
	case l == "DONE":
		r.g.scores()
		r.end(0, "")
	case m != nil:
		var v [5]int
		for i := range v {
			v[i], _ = strconv.Atoi(m[i+1])
		}
		if v[0] >= r.n || v[1] >= len(r.g.kinds) {
			r.end(6, "Communications error")
			return ""
		}
		r.g.apply(v[0], v[1], v[2], v[3], v[4])
	default:
		r.end(6, "Communications error")
	}
	return ""
}

// eof handles the end of the player's input: before the path it is an invalid path (the
// reference's choice), afterwards a communications error.
func (r *refPlayer) eof() {
	if r.g == nil {
		r.end(4, "Invalid path")
	} else {
		r.end(6, "Communications error")
	}
}

// output is what the player has written on stderr, its display included.
func (r *refPlayer) output() string {
	if r.g == nil {
		return r.stderr.String()
	}
	return r.g.display.String() + r.stderr.String()
}

// TestSuiteHeaders checks every case of the suite against docs/suites.md: a one-sentence
// requirement first, a section, a category that is one of Categories (the spec's marking
// scheme) exactly, and noprocs at the end of the script.
func TestSuiteHeaders(t *testing.T) {
	names := map[string]bool{}
	for _, c := range Categories {
		names[c.Name] = true
	}
	cases := suiteCases(t, "*.txtar")
	if len(cases) < 100 {
		t.Fatalf("only %d cases", len(cases))
	}
	for name, data := range cases {
		script, _ := txtarFiles(data)
		lines := strings.Split(strings.TrimRight(script, "\n"), "\n")
		header := map[string]string{}
		for _, l := range lines {
			if k, v, ok := strings.Cut(strings.TrimPrefix(l, "# "), ": "); ok && strings.HasPrefix(l, "# ") {
				if _, seen := header[k]; !seen {
					header[k] = v
				}
			}
		}
		switch {
		case !strings.HasPrefix(lines[0], "# ") || slices.ContainsFunc([]string{"section", "category", "requirement", "accept"},
			func(k string) bool { return strings.HasPrefix(lines[0], "# "+k+":") }):
			t.Errorf("%s: the first line is not the requirement: %q", name, lines[0])
		case header["section"] == "":
			t.Errorf("%s: no section", name)
		case !names[header["category"]]:
			t.Errorf("%s: category %q is not one of Categories", name, header["category"])
		case !strings.HasPrefix(lines[len(lines)-1], "noprocs"):
			t.Errorf("%s: the script does not end with noprocs", name)
		}
	}
}
