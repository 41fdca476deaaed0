package grade

import (
	"strings"
	"testing"
)

// The log people read: no environment dump, each run also as a command to type, scratch
// paths replaced.
func TestUserLog(t *testing.T) {
	log := "WORK=/s/case-1/script-x\nPATH=/s/case-1/bin:/usr/bin\nHUB=/s/bin/toyhub\nPLAYER=/s/build/src/toyplayer\n\n" +
		"# a case (0.01s)\n" +
		"> run -status 3 -timeout 10s $PLAYER 2 'a b'\n" +
		"run: /s/build/src/toyplayer: 2 in 5ms\n" +
		"> run -status 0 -allow sleep $HUB $MOCKBIN/bad $PLAYER\n" +
		"> run -status 0 mockhub conv $PLAYER\n" +
		"FAIL: /s/case-1/x.txtar:3: run: /s/build/src/toyplayer: want exit 3, got 2\n"
	paths := map[string]string{"/s/case-1/": "", "/s/build/src/toyplayer": "./toyplayer", "/s/bin/toyhub": "toyhub"}
	got := UserLog(log, toy, TheirPlayers, paths)
	want := "# a case (0.01s)\n" +
		"> run -status 3 -timeout 10s $PLAYER 2 'a b'\n" +
		"  as typed: ./toyplayer 2 'a b'\n" +
		"run: ./toyplayer: 2 in 5ms\n" +
		"> run -status 0 -allow sleep $HUB $MOCKBIN/bad $PLAYER\n" +
		"  as typed: ref/toyhub ./bad ./toyplayer\n" +
		"> run -status 0 mockhub conv $PLAYER\n" +
		"  as typed: gauntlet exec mockhub conv ./toyplayer\n" +
		"FAIL: x.txtar:3: run: ./toyplayer: want exit 3, got 2\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if strings.Contains(got, "/s/") {
		t.Errorf("a scratch path is left:\n%s", got)
	}
}
