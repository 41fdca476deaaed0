package blackbox

import (
	"syscall"
	"testing"
	"time"

	"gauntlet/fuzz/record"
	"gauntlet/harness/judges/mockhub"
)

// TestConversation: a case and the reference's record become a mock hub conversation that
// expects what the reference answered at each wait, and stops expecting once it closed its
// stdout.
func TestConversation(t *testing.T) {
	c := &PlayerCase{Ref: "EAIT", Args: []string{"2", "B"}, Steps: []Step{
		{Op: OpSend, Text: "turn 111AAA", Await: true},
		{Op: OpSleep, Delay: 5 * time.Millisecond},
		{Op: OpRaw, Text: "rerol"},
		{Op: OpRaw, Text: "led 1111HA\n", Await: true},
		{Op: OpSignal, Sig: syscall.SIGUSR1},
		{Op: OpSend, Text: "points C 1"},
		{Op: OpSend, Text: "turn 111111", Await: true},
		{Op: OpSend, Text: "two\nlines"},
	}}
	ref := &record.Result{
		Exit: record.Exit{Code: 5},
		Awaited: []record.Awaited{
			{Data: []byte("!"), End: record.Got},
			{Data: []byte("reroll AAA\n"), End: record.Got},
			{Data: []byte("reroll HA\n"), End: record.Got},
			{Data: []byte{}, End: record.EOF},
		},
	}
	conv, err := c.Conversation("!", ref)
	if err != nil {
		t.Fatal(err)
	}
	want := `args 2 B
hello "!"
send "turn 111AAA"
expect "reroll AAA"
sleep 5ms
send-raw "rerol"
send-raw "led 1111HA\n"
expect "reroll HA"
sleep 20ms
signal USR1
sleep 100ms
send "points C 1"
send "turn 111111"
send-raw "two\nlines\n"
close
eof
exit 5
`
	text := conv.Format()
	if text != want {
		t.Errorf("conversation:\n%s\nwant:\n%s", text, want)
	}
	// The mock hub reads it back as the same steps.
	back, err := mockhub.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Steps) != len(conv.Steps) {
		t.Fatalf("%d steps read back, want %d", len(back.Steps), len(conv.Steps))
	}
	for i := range back.Steps {
		a, b := back.Steps[i], conv.Steps[i]
		a.Source, b.Source = 0, 0
		if a != b {
			t.Errorf("step %d: %+v read back as %+v", i, b, a)
		}
	}
}

// TestConversationBadArgs: a reference that refused its arguments wrote no handshake; the
// conversation expects none, and the exit by signal is written by name.
func TestConversationBadArgs(t *testing.T) {
	c := &PlayerCase{Ref: "EAIT", Args: []string{"27", "A"}, Steps: []Step{{Op: OpSend, Text: "turn 111AAA", Await: true}}}
	ref := &record.Result{Exit: record.Exit{Signal: syscall.SIGHUP}, Awaited: []record.Awaited{{End: record.EOF}, {End: record.EOF}}}
	conv, err := c.Conversation("!", ref)
	if err != nil {
		t.Fatal(err)
	}
	want := "args 27 A\nsend \"turn 111AAA\"\nclose\neof\nexit signal HUP\n"
	if got := conv.Format(); got != want {
		t.Errorf("conversation:\n%s\nwant:\n%s", got, want)
	}
	if _, err := c.Conversation("!", &record.Result{Exit: record.Exit{Hung: true}}); err == nil {
		t.Error("a reference that hung gives a conversation")
	}
}

func TestScript(t *testing.T) {
	c := &PlayerCase{Steps: []Step{
		{Op: OpSend, Text: "a", Await: true}, {Op: OpClose}, {Op: OpSignal, Sig: syscall.SIGINT},
	}}
	got := c.script("!")
	want := []record.Kind{record.AwaitBytes, record.Write, record.AwaitLine, record.Close, record.Quiet, record.Signal}
	if len(got) != len(want) {
		t.Fatalf("script %+v", got)
	}
	for i := range got {
		if got[i].Kind != want[i] {
			t.Errorf("step %d is %v, want %v", i, got[i].Kind, want[i])
		}
	}
	if got[0].N != 1 || string(got[1].Data) != "a\n" || got[4].Delay != Settle || got[5].Signal != syscall.SIGINT {
		t.Errorf("script %+v", got)
	}
}
