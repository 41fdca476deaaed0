package testscripts

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"gauntlet/games/judge"
	"gauntlet/games/stratego"
	"gauntlet/players/strategoplayers"
)

// The result lines the manager's game cases want are the engine's: each case's two
// reference AIs (seed 1, as the mock player runs them) are played again through the
// engine's judge, and the line must be the case's want.stdout.
func TestStrategoManagerExpectations(t *testing.T) {
	files, _ := filepath.Glob("stratego/manager_game_*.txtar")
	if len(files) == 0 {
		t.Fatal("no manager game cases")
	}
	as := regexp.MustCompile(`(?m)^mkplayer (red|blue) -as stratego-(random|hunter)`)
	for _, f := range files {
		a, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		brains := map[string]stratego.Brain{}
		for _, m := range as.FindAllStringSubmatch(string(a.Comment), -1) {
			if m[2] == "hunter" {
				brains[m[1]] = strategoplayers.NewHunter(1)
			} else {
				brains[m[1]] = strategoplayers.NewRandom(1)
			}
		}
		var want string
		for _, file := range a.Files {
			if file.Name == "want.stdout" {
				want = string(file.Data)
			}
		}
		if len(brains) != 2 || want == "" {
			t.Fatalf("%s: want two reference AIs and want.stdout", f)
		}
		j := stratego.NewJudge([2]string{"$MOCKBIN/red", "$MOCKBIN/blue"}, 0) // the paths the cases give, unexpanded in want.stdout
		g, err := judge.Play(j, []judge.Responder{stratego.NewResponder(brains["red"]), stratego.NewResponder(brains["blue"])}, 20000)
		if err != nil || len(g.Log()) != 1 {
			t.Fatalf("%s: %v %v", f, err, g.Log())
		}
		if got := g.Log()[0] + "\n"; got != want {
			t.Errorf("%s: the engine says %q, the case wants %q", filepath.Base(f), got, strings.TrimSpace(want))
		}
	}
}
