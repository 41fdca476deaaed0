package scriptcmds

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"gauntlet/harness/judges/mockplayer"
)

// What a run queued in its door before it ended is judged when the door closes, however
// late the witness comes to it: a hub that knocked with what no stand-in sends and exited
// at once is charged as one that waited. Here the door is woken (as close wakes it) before
// the witness has taken anything; the message must still be read and refused.
func TestDoorCloseTakesWhatWasQueued(t *testing.T) {
	wd, err := mockplayer.NewWitnessDoor()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := mockplayer.ListenWitness(filepath.Join(t.TempDir(), "witness"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	d := &door{w: &witness{ln: ln}, wd: wd, served: make(chan struct{})}
	// A knock: a message of the door's own kind, without the stand-in's descriptor.
	if err := syscall.Sendmsg(int(wd.BoxEnd().Fd()), []byte("connect\n"), nil, nil, 0); err != nil {
		t.Fatal(err)
	}
	wd.Wake()
	go d.serve()
	d.close()
	if got := d.refusals(); len(got) != 1 || !strings.Contains(got[0], "no stand-in sends") {
		t.Errorf("refusals %q, want the knock's", got)
	}
}
