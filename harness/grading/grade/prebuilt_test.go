package grade

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"gauntlet/harness/grading/build"
)

// The files the build removed before make are in every report, and a program the
// submission held only prebuilt is named as one without sources.
func TestReportsSayWhatTheBuildRemoved(t *testing.T) {
	b := &build.Result{OK: true, Missing: []string{"toyplayer"}, Removed: []string{"src/x.o", "toyhub", "toyplayer"}}
	rep := NewReport(toy, "/subs/prebuilt", time.Now(), b, nil)
	removed := "build: removed before make, so that the programs are built from the sources: src/x.o toyhub toyplayer\n"
	noSources := "build: toyplayer: the submission holds a prebuilt toyplayer but no sources that make builds it from\n"
	var sum strings.Builder
	rep.WriteSummary(&sum, false)
	if !strings.Contains(sum.String(), "build: ok, 0 warning(s); not built: toyplayer\n"+removed+noSources) {
		t.Errorf("summary:\n%s", sum.String())
	}
	var gs strings.Builder
	if err := rep.WriteGradescope(&gs); err != nil {
		t.Fatal(err)
	}
	var doc gsResults
	if err := json.Unmarshal([]byte(gs.String()), &doc); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, ts := range doc.Tests {
		if ts.Name == "build" {
			found = strings.Contains(ts.Output, removed+noSources)
		}
	}
	if !found {
		t.Errorf("no build test saying what was removed:\n%s", gs.String())
	}
	var js strings.Builder
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"removed": [`) {
		t.Errorf("JSON has no removed list:\n%s", js.String())
	}
}
