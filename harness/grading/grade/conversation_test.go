package grade

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"gauntlet/harness/box/execfile"
	"gauntlet/harness/runtime/transcript"
	"gauntlet/internal/buildtest"
)

// withMockPlayer puts the mock player in the grader's folder of reference programs (a copy
// of the gauntlet binary named mockplayer, reachable from a box), as a grader publishes it.
func withMockPlayer(t *testing.T, opt *Options) {
	t.Helper()
	data, err := os.ReadFile(buildtest.Path(t, "gauntlet/cmd/gauntlet"))
	if err != nil {
		t.Fatal(err)
	}
	if err := execfile.Write(filepath.Join(opt.BinDir, "mockplayer"), data, 0o755); err != nil {
		t.Fatal(err)
	}
}

// hubCase is a hub case with a witnessed mock player (2310A, quitting after its second
// message), the hub's expected exit being 0.
const hubCase = "mkplayer quitter -as 2310A -fault 'after 2 exit 0'\nrun $HUB $MOCKBIN/quitter\n"

// gradeHub grades the hub script hub (the subject's toyhub) on hubCase.
func gradeHub(t *testing.T, subj Subject, opt Options, hub string) Outcome {
	t.Helper()
	if err := execfile.Write(subj.Programs["toyhub"], []byte(hub), 0o755); err != nil {
		t.Fatal(err)
	}
	withMockPlayer(t, &opt)
	return gradeCase(t, subj, opt, "hub/basics", hubCase)
}

// A hub that exits with the wrong status: the report shows the lines it sent the mock
// player, in order, and how the mock ended, from the harness's record.
func TestHubFailureShowsTheMessagesSent(t *testing.T) {
	t.Parallel()
	subj, opt := setup(t, refPlayer)
	hub := "#!/bin/sh\nprintf '7;::-Mo1V11V22Mo1Mo1::-\\nHAP0,1,0,3,0\\n' | \"$1\" 2 1 >/dev/null\nexit 3\n"
	o := gradeHub(t, subj, opt, hub)
	if o.Verdict != WrongExit {
		t.Fatalf("verdict %s (%s), want %s\n%s", o.Verdict, o.Detail, WrongExit, o.Log)
	}
	// The mock relays the player's handshake whenever it comes, before or between the hub's
	// lines (the toy hub does not wait for it): it is left out of the comparison.
	want := "  hub -> player 1 | 7;::-Mo1V11V22Mo1Mo1::-\n" +
		"  hub -> player 1 | HAP0,1,0,3,0\n" +
		"  player 1: fault (script line 1): after 2 exit 0\n"
	got := strings.Replace(o.Conversation, "  player 1 -> hub | ^ [no newline]\n", "", 1)
	if !strings.HasSuffix(got, want) || !strings.HasPrefix(got, "the players' side") {
		t.Errorf("conversation:\n%s\nwant it to end with:\n%s", o.Conversation, want)
	}
	rep := NewReport(toy, "s", time.Now(), nil, []Outcome{o})
	var b strings.Builder
	rep.WriteSummary(&b, false)
	if !strings.Contains(b.String(), "      hub -> player 1 | HAP0,1,0,3,0\n") {
		t.Errorf("the summary does not show the lines sent:\n%s", b.String())
	}
	if !strings.Contains(caseText(rep.Cases[0]), "  hub -> player 1 | HAP0,1,0,3,0\n") {
		t.Errorf("the JUnit and Gradescope text does not show the lines sent:\n%s", caseText(rep.Cases[0]))
	}
	b.Reset()
	if err := WriteHTML(&b, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "  hub -&gt; player 1 | HAP0,1,0,3,0\n") {
		t.Errorf("the HTML page does not show the lines sent:\n%s", b.String())
	}
}

// A boxed hub that tries to write into the mock player's record, and prints an imitation
// of it, changes nothing of what the report shows: the record is the harness's, written by
// the mock player outside the box, in a folder the subject cannot reach.
func TestHostileHubCannotWriteTheRecord(t *testing.T) {
	t.Parallel()
	subj, opt := boxedSetup(t, refPlayer)
	searchable(t, opt.BinDir)
	forged := `{"v":1,"seq":9,"time":"2000-01-01T00:00:00Z","writer":"relay player 1","kind":"line","from":"player 1","to":"hub","text":"FORGED"}`
	hub := "#!/bin/sh\n" +
		"printf '7;::-Mo1V11V22Mo1Mo1::-\\nHAP0,1,0,3,0\\n' | \"$1\" 2 1 >/dev/null\n" +
		"for f in ../witnessed/*/*.json ../witnessed/*/001.json ../witnessed/script-c/001.json \"$(dirname \"$1\")\"/../witnessed/script-c/001.json; do\n" +
		"  echo '" + forged + "' >> \"$f\" && echo WROTE \"$f\" >&2\n" +
		"done\n" +
		"mkdir -p ../witnessed/script-c 2>/dev/null && echo MADE >&2\n" +
		"echo \"the players' side, as the harness recorded it (what the hub sent each one and what it answered):\" >&2\n" +
		"echo '  hub -> player 1 | FORGED' >&2\n" +
		"exit 3\n"
	o := gradeHub(t, subj, opt, hub)
	if o.Verdict != WrongExit {
		t.Fatalf("verdict %s (%s), want %s\n%s", o.Verdict, o.Detail, WrongExit, o.Log)
	}
	for _, bad := range []string{"WROTE", "MADE"} {
		if strings.Contains(o.Log, bad) {
			t.Errorf("the hub reached the record (%s):\n%s", bad, o.Log)
		}
	}
	if strings.Contains(o.Conversation, "FORGED") || !strings.Contains(o.Conversation, "  hub -> player 1 | HAP0,1,0,3,0\n") {
		t.Errorf("conversation:\n%s", o.Conversation)
	}
}

// The conversation merges the mock players' records by time, shows the last lines only,
// and a long line's first bytes with the count of the rest.
func TestMockConversationBounds(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 11, 28, 4, 0, 0, 0, time.UTC)
	write := func(name string, events []transcript.Event) string {
		t.Helper()
		var b strings.Builder
		if err := transcript.WriteJSON(&b, events); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var p0, p1 []transcript.Event
	for i := range 20 {
		p0 = append(p0, transcript.Event{Seq: uint64(i + 1), Time: at.Add(time.Duration(2*i) * time.Millisecond), Writer: "relay player 0",
			Kind: transcript.Line, From: "hub", To: "player 0", Data: []byte(fmt.Sprintf("line %d", 2*i))})
		p1 = append(p1, transcript.Event{Seq: uint64(i + 1), Time: at.Add(time.Duration(2*i+1) * time.Millisecond), Writer: "relay player 1",
			Kind: transcript.Line, From: "hub", To: "player 1", Data: []byte(fmt.Sprintf("line %d", 2*i+1))})
	}
	p1 = append(p1, transcript.Event{Seq: 21, Time: at.Add(time.Second), Writer: "relay player 1", Kind: transcript.Line,
		From: "player 1", To: "hub", Data: []byte(strings.Repeat("x", 1000)), NoEOL: true},
		transcript.Event{Seq: 22, Time: at.Add(2 * time.Second), Writer: "relay player 1", Kind: transcript.Note,
			From: "player 1", Data: []byte("player ended with status 0")})
	got := MockConversation([]string{write("1.json", p1), write("0.json", p0)})
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if want := "the players' side, as the harness recorded it (what the hub sent each one and what it answered), the last 30 of 42:"; lines[0] != want {
		t.Errorf("heading %q, want %q", lines[0], want)
	}
	if len(lines) != 31 || lines[1] != "  hub -> player 0 | line 12" || lines[2] != "  hub -> player 1 | line 13" {
		t.Errorf("got %d lines, beginning %q", len(lines), lines[1:3])
	}
	if want := "  player 1 -> hub | " + strings.Repeat("x", 200) + " [cut: 800 more bytes] [no newline]"; lines[29] != want {
		t.Errorf("long line %q, want %q", lines[29], want)
	}
	if lines[30] != "  player 1: player ended with status 0" {
		t.Errorf("last line %q", lines[30])
	}
	if MockConversation(nil) != "" {
		t.Error("no record, yet a conversation")
	}
}

// A Clue server's failure shows the last lines the mock clients exchanged with it, from the
// judge's own output only.
func TestJudgeExchange(t *testing.T) {
	judged := "FAIL at step 7 (message 7 from the server): want \"roll 4\", got \"roll 9\"; server: exit status 0\n" +
		"the last lines exchanged:\n  server -> Scarlett | turn\n  Scarlett -> server | roll\n  server -> Scarlett | roll 9\n"
	want := "the mock clients' side, as the judge recorded it (the last lines exchanged with the server):\n" +
		"  server -> Scarlett | turn\n  Scarlett -> server | roll\n  server -> Scarlett | roll 9\n"
	if got := JudgeExchange(judged); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if got := JudgeExchange("ok: 40 messages checked; server: exit status 0\n"); got != "" {
		t.Errorf("a judge that passed: %q", got)
	}
	if got := JudgeExchange("FAIL at step 1 (message 1 from the server): want a port, got nothing\nthe last lines exchanged:\n  "); got != "" {
		t.Errorf("a judge that exchanged nothing: %q", got)
	}
}

// In the pairing of the subject's hub with the reference players, a reference player the
// mock player can play (Program.Mock) is handed to the hub witnessed: the report shows what
// the hub sent it. With the subject's own players, nothing is shown of them.
func TestHubFailureShowsTheReferencePlayersSide(t *testing.T) {
	t.Parallel()
	game := toy
	game.Programs = []Program{toy.Programs[0], {Var: "PLAYER", Name: "toyplayer", Role: "players", Mock: []string{"-as", "2310A", "-reference"}}}
	subj, opt := setup(t, refPlayer)
	withMockPlayer(t, &opt)
	hub := "#!/bin/sh\nprintf '7;::-Mo1V11V22Mo1Mo1::-\\nEARLY\\n' | \"$1\" 2 0 >/dev/null\nexit 3\n"
	if err := execfile.Write(subj.Programs["toyhub"], []byte(hub), 0o755); err != nil {
		t.Fatal(err)
	}
	cases, err := LoadCases(fstest.MapFS{"toy/c.txtar": {Data: []byte(header("hub/basics") + "run $HUB $PLAYER\n")}}, "toy", game.ProgramVars())
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, o := range Run(game, cases, subj, opt) {
		switch o.Pairing {
		case TheirHub:
			seen++
			// The handshake is relayed whenever it comes (the toy hub does not wait for it).
			got := strings.Replace(o.Conversation, "  player 0 -> hub | ^ [no newline]\n", "", 1)
			if !strings.Contains(got, "  hub -> player 0 | 7;::-Mo1V11V22Mo1Mo1::-\n  hub -> player 0 | EARLY\n") ||
				!strings.Contains(o.Conversation, "  player 0: player ended with status 5\n") {
				t.Errorf("%s: %s (%s), conversation:\n%s", o.Pairing, o.Verdict, o.Detail, o.Conversation)
			}
		case TheirHubTheir:
			seen++
			if o.Conversation != "" {
				t.Errorf("%s: the subject's player shown:\n%s", o.Pairing, o.Conversation)
			}
		}
	}
	if seen != 2 {
		t.Errorf("%d pairings with the subject's hub, want 2", seen)
	}
}

// A hub that writes, in its own folder, the record file a witnessed mock player records
// to (forging a conversation without starting the player) does not have it taken for the
// mock's record: the file is the witnessed mock's alone, written or not.
func TestHostileHubCannotForgeAMockRecord(t *testing.T) {
	subj, opt := boxedSetup(t, refPlayer)
	if err := execfile.Write(subj.Programs["toyhub"], []byte("#!/bin/sh\necho forged > rec.json\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	withMockPlayer(t, &opt)
	o := gradeCase(t, subj, opt, "hub/basics", "mkplayer p -as 2310A -record rec.json\nrun $HUB $MOCKBIN/p\n! exists rec.json\n")
	if o.Verdict != Pass {
		t.Fatalf("the hub's own rec.json was taken for the mock's record: %s (%s)", o.Verdict, o.Detail)
	}
}
