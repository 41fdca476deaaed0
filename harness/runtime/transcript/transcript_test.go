package transcript_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sebdah/goldie/v2"

	"gauntlet/harness/runtime/transcript"
)

func readFixture(t *testing.T, name string) []transcript.Event {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	events, err := transcript.ReadJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	return events
}

func golden(t *testing.T) *goldie.Goldie {
	return goldie.New(t, goldie.WithFixtureDir("testdata/golden"), goldie.WithNameSuffix(".txt"))
}

// TestTextGolden renders a small hand-written transcript (testdata/small.jsonl) and compares
// it with the rendering written by hand in testdata/golden/small.txt.
func TestTextGolden(t *testing.T) {
	var b bytes.Buffer
	if err := transcript.WriteText(&b, readFixture(t, "small.jsonl")); err != nil {
		t.Fatal(err)
	}
	golden(t).Assert(t, "small", b.Bytes())
}

// TestMergedGolden merges a harness transcript with a relay's and renders them with the
// writer column.
func TestMergedGolden(t *testing.T) {
	merged := transcript.Merge(readFixture(t, "relay.jsonl"), readFixture(t, "harness.jsonl"))
	var b bytes.Buffer
	if err := transcript.WriteText(&b, merged); err != nil {
		t.Fatal(err)
	}
	golden(t).Assert(t, "merged", b.Bytes())
}

// TestJSONRoundTrip: the hand-written JSON lines are the canonical form, so reading and
// writing them again gives the same bytes.
func TestJSONRoundTrip(t *testing.T) {
	for _, name := range []string{"small.jsonl", "harness.jsonl", "relay.jsonl"} {
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := transcript.WriteJSON(&got, readFixture(t, name)); err != nil {
				t.Fatal(err)
			}
			if got.String() != string(want) {
				t.Errorf("got:\n%s\nwant:\n%s", got.String(), want)
			}
		})
	}
}

func TestReadJSONErrors(t *testing.T) {
	good := `{"v":1,"seq":1,"time":"2024-05-01T10:00:00Z","writer":"w","kind":"note","text":"a"}` + "\n"
	cases := []struct {
		name  string
		input string
		n     int
		err   string
	}{
		{"blank lines skipped", "\n" + good + "\n\n" + good, 2, ""},
		{"cut last line", good + `{"v":1,"seq":2,"ti`, 1, "line 2"},
		{"newer version", good + strings.Replace(good, `"v":1`, `"v":2`, 1), 1, "unsupported event version 2"},
		{"no version", `{"seq":1}`, 0, "unsupported event version 0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			events, err := transcript.ReadJSON(strings.NewReader(tc.input))
			if len(events) != tc.n {
				t.Errorf("%d events, want %d", len(events), tc.n)
			}
			if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("error %v, want %q", err, tc.err)
			}
		})
	}
}

// TestConcurrentOrder: goroutines appending at once get distinct increasing sequence
// numbers, non-decreasing times, and each goroutine's events keep their order.
func TestConcurrentOrder(t *testing.T) {
	const writers, lines = 8, 500
	l := transcript.New(transcript.Options{})
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lw := l.LineWriter(fmt.Sprintf("p%d", w), transcript.Stdout)
			for i := range lines {
				// Lines written in pieces, as pipes deliver them.
				fmt.Fprintf(lw, "line %d", i)
				lw.Write([]byte(" end\n"))
			}
		}()
	}
	wg.Wait()
	events := l.Events()
	if len(events) != writers*lines {
		t.Fatalf("%d events, want %d", len(events), writers*lines)
	}
	next := map[string]int{}
	for i, e := range events {
		if e.Seq != uint64(i+1) {
			t.Fatalf("event %d has seq %d", i, e.Seq)
		}
		if i > 0 && e.Time.Before(events[i-1].Time) {
			t.Fatalf("event %d goes back in time", i)
		}
		if want := fmt.Sprintf("line %d end", next[e.From]); string(e.Data) != want {
			t.Fatalf("%s: got %q, want %q", e.From, e.Data, want)
		}
		next[e.From]++
	}
}

func TestLineWriter(t *testing.T) {
	cases := []struct {
		name    string
		maxLine int
		writes  []string
		want    []string // Escape(data), then flags
	}{
		{"pieces", 0, []string{"ab", "c\nde", "\n", "f"}, []string{"abc", "de", "f noeol"}},
		{"empty lines", 0, []string{"\n\n"}, []string{"", ""}},
		{"cut line", 4, []string{"abcdefgh\nxy"}, []string{"abcd cut=4", "xy noeol"}},
		{"cut across writes", 4, []string{"abc", "def", "ghi\n"}, []string{"abcd cut=5"}},
		{"endless", 4, []string{"xxxxxx", "xxxxxx", "xxxxxx"}, []string{"xxxx cut=14 noeol"}},
		{"binary", 0, []string{"a\x00\xff\r\n"}, []string{`a\x00\xff\r`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := transcript.New(transcript.Options{MaxLine: tc.maxLine})
			lw := l.LineWriter("p", "q")
			for _, w := range tc.writes {
				if n, err := lw.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("write %d, %v", n, err)
				}
			}
			lw.Close()
			lw.Write([]byte("after close\n"))
			var got []string
			for _, e := range l.Events() {
				s := transcript.Escape(e.Data)
				if e.Cut > 0 {
					s += fmt.Sprintf(" cut=%d", e.Cut)
				}
				if e.NoEOL {
					s += " noeol"
				}
				got = append(got, s)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestBounds: past MaxEvents lines are counted, one note says so, and exits are still kept.
func TestBounds(t *testing.T) {
	l := transcript.New(transcript.Options{MaxEvents: 3})
	for i := range 10 {
		l.Line("p", transcript.Stdout, []byte(fmt.Sprint(i)), true)
	}
	l.Exited("p", 1, 0)
	var kinds []string
	for _, e := range l.Events() {
		kinds = append(kinds, string(e.Kind))
	}
	if got := strings.Join(kinds, " "); got != "line line line note exit" || l.Dropped() != 7 {
		t.Errorf("kept %q, dropped %d", got, l.Dropped())
	}
	// Through a LineWriter, once full, lines are only counted.
	l3 := transcript.New(transcript.Options{MaxEvents: 2})
	lw := l3.LineWriter("p", transcript.Stdout)
	lw.Write([]byte("a\nb\nc\nd\ne"))
	lw.Write([]byte("f\ng\n"))
	lw.Close()
	// Lines a, b, c, d, "ef", g: two kept, four dropped.
	if n := len(l3.Events()); n != 3 || l3.Dropped() != 4 {
		t.Errorf("line writer: kept %d events, dropped %d; want 2 lines + note, 4 dropped", n, l3.Dropped())
	}
	l2 := transcript.New(transcript.Options{MaxBytes: 10})
	for range 5 {
		l2.Line("p", transcript.Stdout, []byte("abcd"), true)
	}
	if l2.Dropped() != 3 {
		t.Errorf("byte bound: dropped %d, want 3", l2.Dropped())
	}
}

func TestMergeOrder(t *testing.T) {
	t0 := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	ev := func(w string, seq uint64, ms int) transcript.Event {
		return transcript.Event{Writer: w, Seq: seq, Time: t0.Add(time.Duration(ms) * time.Millisecond), Kind: transcript.Note}
	}
	a := []transcript.Event{ev("a", 1, 0), ev("a", 2, 5), ev("a", 3, 5)}
	b := []transcript.Event{ev("b", 1, 1), ev("b", 2, 5), ev("b", 3, 9)}
	var got []string
	for _, e := range transcript.Merge(b, a) {
		got = append(got, fmt.Sprintf("%s%d", e.Writer, e.Seq))
	}
	if want := "a1 b1 a2 a3 b2 b3"; strings.Join(got, " ") != want {
		t.Errorf("merged %v, want %s", got, want)
	}
}

// TestAppendFromTwoWriters: two Logs (a harness and a relay) append to one O_APPEND file at
// once, as two processes would; the file reads back whole, and merging keeps each writer's
// order.
func TestAppendFromTwoWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "transcript.jsonl")
	var wg sync.WaitGroup
	for _, name := range []string{"harness", "relay 1"} {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		l := transcript.New(transcript.Options{Writer: name, Sink: f})
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 300 {
				l.Line(name, "x", []byte(fmt.Sprintf("%d %s", i, strings.Repeat("z", i))), true)
			}
			if err := l.SinkErr(); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	events, err := transcript.ReadJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	next := map[string]int{}
	for _, e := range transcript.Merge(events) {
		if want := fmt.Sprintf("%d %s", next[e.Writer], strings.Repeat("z", next[e.Writer])); string(e.Data) != want {
			t.Fatalf("%s: got %.20q, want %.20q", e.Writer, e.Data, want)
		}
		next[e.Writer]++
	}
	if next["harness"] != 300 || next["relay 1"] != 300 {
		t.Errorf("read %v", next)
	}
}

func TestEscape(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain text 123 ~", "plain text 123 ~"},
		{"tab\tcr\rnl\n", `tab\tcr\rnl\n`},
		{`back\slash`, `back\\slash`},
		{"\x00\x1b\x7f", `\x00\x1b\x7f`},
		{"é", `\xc3\xa9`},
	}
	for _, tc := range cases {
		if got := transcript.Escape([]byte(tc.in)); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestEventJSON: events marshal through encoding/json in the same format, bytes exactly.
func TestEventJSON(t *testing.T) {
	status := 3
	e := transcript.Event{Seq: 4, Time: time.Date(2024, 5, 1, 10, 0, 0, 5, time.UTC), Writer: "w",
		Kind: transcript.Exit, From: "p<1>", Status: &status, Pid: 9}
	b, err := e.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"v":1,"seq":4,"time":"2024-05-01T10:00:00.000000005Z","writer":"w","kind":"exit","from":"p<1>","status":3,"pid":9}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	var back transcript.Event
	if err := back.UnmarshalJSON(b); err != nil || back.From != "p<1>" || *back.Status != 3 || !back.Time.Equal(e.Time) {
		t.Errorf("back %+v, %v", back, err)
	}
}

func TestConversation(t *testing.T) {
	events := readFixture(t, "small.jsonl")
	cases := []struct{ who, want string }{
		{"player 0", "hub -> player 0 | 5,2\nplayer 0 -> hub | M1\\r\nplayer 0 -> stderr | bad\\xff\\x01 [no newline]\n"},
		{"", "hub -> player 0 | 5,2\nplayer 0 -> hub | M1\\r\nplayer 0 -> stderr | bad\\xff\\x01 [no newline]\nhub -> stdout | xxxx\n"},
		{"nobody", ""},
	}
	for _, tc := range cases {
		if got := transcript.Conversation(events, tc.who); got != tc.want {
			t.Errorf("Conversation(%q) =\n%s\nwant\n%s", tc.who, got, tc.want)
		}
	}
}
