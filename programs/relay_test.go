package programs

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gauntlet/games/dealer2310"
	stlucia "gauntlet/games/stlucia"
	"gauntlet/harness/box/execfile"
	"gauntlet/harness/runtime/transcript"
	"gauntlet/internal/buildtest"
)

// links makes a folder of links named after programs, pointing at the gauntlet binary.
func links(t *testing.T, names ...string) string {
	t.Helper()
	gauntlet := buildtest.Path(t, "gauntlet/cmd/gauntlet")
	dir := t.TempDir()
	for _, n := range names {
		if err := os.Symlink(gauntlet, filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// relayed writes a wrapper that runs the real player behind a recording relay.
func relayed(t *testing.T, dir, name, real, record string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	script := fmt.Sprintf("#!/bin/sh\nexec %s -relay %s -record %s -- \"$@\"\n",
		filepath.Join(dir, "mockplayer"), filepath.Join(dir, real), record)
	if err := execfile.Write(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// partyLines splits one party's recorded view into the lines it received and sent
// (the handshake, which has no newline, is left out of the sent lines).
func partyLines(t *testing.T, record, who string) (received, sent []string) {
	t.Helper()
	f, err := os.Open(record)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	events, err := transcript.ReadJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		switch {
		case e.Kind != transcript.Line:
		case e.To == who:
			received = append(received, string(e.Data))
		case e.From == who && !e.NoEOL:
			sent = append(sent, string(e.Data))
		}
	}
	return received, sent
}

// The conversation recorded by relays around the reference players of a reference game
// equals the engine's own account of that game, line for line, for every player.
func TestRelayTranscriptMatchesEngineStLucia(t *testing.T) {
	strategies := []string{"EAIT", "HASS", "MABS", "SCIENCE", "HABS"}
	dir := links(t, append([]string{"stlucia", "mockplayer"}, strategies...)...)
	rollText := "1221AAHHAAHHAAHH12333\n331221AAHHHPPPPP\nPAPAPHHAPPA123\n"
	rollFile := filepath.Join(dir, "z.roll")
	os.WriteFile(rollFile, []byte(rollText), 0o644)
	record := filepath.Join(dir, "rec.json")
	args := []string{rollFile, "15"}
	var strats []stlucia.Strategy
	for i, s := range strategies {
		args = append(args, relayed(t, dir, fmt.Sprintf("relay%d", i), s, record))
		strats = append(strats, stlucia.Strategies[s])
	}
	cmd := exec.Command(filepath.Join(dir, "stlucia"), args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("stlucia: %v\n%s", err, stderr.String())
	}

	rolls, err := stlucia.ParseRollFile([]byte(rollText))
	if err != nil {
		t.Fatal(err)
	}
	want, err := stlucia.Simulate(rolls.Dice(), 15, strats, 10000)
	if err != nil {
		t.Fatal(err)
	}
	if got := stderr.String(); got != strings.Join(want.Stderr, "\n")+"\n" {
		t.Errorf("hub stderr differs from the engine's:\n%s\nwant\n%s", got, strings.Join(want.Stderr, "\n"))
	}
	for i := range strategies {
		who := fmt.Sprintf("player %c", 'A'+i)
		received, sent := partyLines(t, record, who)
		if strings.Join(received, "\n") != strings.Join(want.Received[i], "\n") {
			t.Errorf("%s received:\n%q\nengine says:\n%q", who, received, want.Received[i])
		}
		if strings.Join(sent, "\n") != strings.Join(want.Sent[i], "\n") {
			t.Errorf("%s sent:\n%q\nengine says:\n%q", who, sent, want.Sent[i])
		}
		if len(received) == 0 || len(sent) == 0 {
			t.Errorf("%s: empty conversation recorded", who)
		}
	}
}

func TestRelayTranscriptMatchesEngineDealer2310(t *testing.T) {
	players := []string{"2310B", "2310A", "2310B", "2310A"}
	dir := links(t, "2310dealer", "mockplayer", "2310A", "2310B")
	deckText, pathText := "5ABCDE\n", "9;::-Ri2Mo1Do2::-V12Ri1V22::-\n"
	deckFile, pathFile := filepath.Join(dir, "d.deck"), filepath.Join(dir, "p.path")
	os.WriteFile(deckFile, []byte(deckText), 0o644)
	os.WriteFile(pathFile, []byte(pathText), 0o644)
	record := filepath.Join(dir, "rec.json")
	args := []string{deckFile, pathFile}
	var strats []dealer2310.Strategy
	for i, p := range players {
		args = append(args, relayed(t, dir, fmt.Sprintf("relay%d", i), p, record))
		strats = append(strats, dealer2310.Strategies[p])
	}
	cmd := exec.Command(filepath.Join(dir, "2310dealer"), args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("2310dealer: %v\n%s", err, stderr.String())
	}
	deck, err := dealer2310.ParseDeckFile([]byte(deckText))
	if err != nil {
		t.Fatal(err)
	}
	path, err := dealer2310.ParsePathFile([]byte(pathText))
	if err != nil {
		t.Fatal(err)
	}
	want, err := dealer2310.Simulate(path, deck, strats)
	if err != nil {
		t.Fatal(err)
	}
	if stdout.String() != want.Stdout {
		t.Errorf("dealer stdout differs from the engine's:\n%s\nwant\n%s", stdout.String(), want.Stdout)
	}
	for i := range players {
		who := fmt.Sprintf("player %d", i)
		received, sent := partyLines(t, record, who)
		wantIn := strings.Split(strings.TrimSuffix(want.Players[i].Stdin, "\n"), "\n")
		// The engine's stdout of a player starts with the handshake, which has no newline.
		wantOut := strings.Split(strings.TrimSuffix(strings.TrimPrefix(want.Players[i].Stdout, "^"), "\n"), "\n")
		if strings.Join(received, "\n") != strings.Join(wantIn, "\n") {
			t.Errorf("%s received:\n%q\nengine says:\n%q", who, received, wantIn)
		}
		if strings.Join(sent, "\n") != strings.Join(wantOut, "\n") {
			t.Errorf("%s sent:\n%q\nengine says:\n%q", who, sent, wantOut)
		}
		if len(received) < 3 || len(sent) == 0 {
			t.Errorf("%s: conversation too short: %q %q", who, received, sent)
		}
	}
}
