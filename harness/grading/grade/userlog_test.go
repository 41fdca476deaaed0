package grade

import (
	"strings"
	"testing"

	"gauntlet/harness/grading/scriptcmds"
)

// The log people read: no environment dump, each run also as a command to type (from its
// record, where run marked it), scratch paths replaced.
func TestUserLog(t *testing.T) {
	runs := scriptcmds.NewRuns()
	log := "WORK=/s/case-1/script-x\nPATH=/s/case-1/bin:/usr/bin\nHUB=/s/bin/toyhub\nPLAYER=/s/build/src/toyplayer\n\n" +
		"# a case (0.01s)\n" +
		"> run -status 3 -timeout 10s $PLAYER 2 'a b'\n" +
		runs.Add(scriptcmds.RunRecord{Program: "/s/build/src/toyplayer", Args: []string{"2", "a b"}}) + "\n" +
		"run: /s/build/src/toyplayer: 2 in 5ms\n" +
		"> run -status 0 -allow sleep $HUB $MOCKBIN/bad $PLAYER\n" +
		runs.Add(scriptcmds.RunRecord{Program: "/s/bin/toyhub", Args: []string{"/s/case-1/bin/bad", "/s/build/src/toyplayer"}}) + "\n" +
		"> run -status 0 mockhub conv $PLAYER\n" +
		runs.Add(scriptcmds.RunRecord{Program: "mockhub", Args: []string{"conv", "/s/build/src/toyplayer"}, Judge: true}) + "\n" +
		runs.Mark() + "7\n" + // a mark of no record is left out too
		"FAIL: /s/case-1/x.txtar:3: run: /s/build/src/toyplayer: want exit 3, got 2\n"
	paths := map[string]string{"/s/case-1/": "", "/s/build/src/toyplayer": "./toyplayer", "/s/bin/toyhub": "toyhub"}
	typed := typing{programs: map[string]string{"/s/build/src/toyplayer": "./toyplayer", "/s/bin/toyhub": "ref/toyhub"}, mockBin: "/s/case-1/bin"}
	got := UserLog(log, runs, typed, paths)
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

// A subject's output that looks like a command of the script gets no "as typed" line: the
// annotations come from the commands run recorded (scriptcmds.Runs), one after each run
// the script made, never from the log's text (issue 56: "> run evil" printed by a player
// got "as typed: evil" under it).
func TestUserLogAnnotatesNoSubjectOutput(t *testing.T) {
	subj, opt := setup(t, "#!/bin/sh\necho '> run evil'\necho '> run -status 0 $HUB evil' >&2\nexit 3\n")
	o := gradeOne(t, subj, opt, "run $PLAYER 'a b'\n")
	if o.Verdict != WrongExit {
		t.Fatalf("verdict %s (%s), want WRONG-EXIT; log:\n%s", o.Verdict, o.Detail, o.Log)
	}
	if n := strings.Count(o.Log, "as typed:"); n != 1 || !strings.Contains(o.Log, "> run $PLAYER 'a b'\n  as typed: ./toyplayer 'a b'\n") {
		t.Errorf("want one annotation, under the script's run (%d found):\n%s", n, o.Log)
	}
	for _, fake := range []string{"> run evil\n", "> run -status 0 $HUB evil\n"} {
		i := strings.Index(o.Log, fake)
		if i < 0 {
			t.Errorf("the subject's line %q is not in the log:\n%s", fake, o.Log)
		} else if strings.HasPrefix(o.Log[i+len(fake):], "  as typed") {
			t.Errorf("the subject's line %q got an annotation:\n%s", fake, o.Log)
		}
	}
}
