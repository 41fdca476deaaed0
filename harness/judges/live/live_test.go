package live

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"gauntlet/games/judge"
)

// A registered game is set up by New from its settings, read with the helpers every game
// uses; an unknown game, a name registered twice and bad settings are refused.
func TestRegisterAndSettings(t *testing.T) {
	type responder struct{ judge.Responder }
	Register("test-seats", "players=N seat=N [others=NAME,...] [seed=N]", func(p Params, _ func(string) ([]byte, error)) (*Game, error) {
		n, err := p.Int("players")
		if err != nil {
			return nil, err
		}
		seat, err := p.Int("seat")
		if err != nil {
			return nil, err
		}
		if _, err := p.Seed(); err != nil {
			return nil, err
		}
		names, err := p.Others(n, "calm", func(s string) bool { return s == "calm" || s == "bold" })
		if err != nil {
			return nil, err
		}
		return &Game{Seat: seat, Others: Seated(n, seat, names, func(string, int) judge.Responder { return responder{} })}, nil
	})
	g, err := New("test-seats", Params{"players": "3", "seat": "1", "others": "bold,calm"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if g.Seat != 1 || len(g.Others) != 3 || g.Others[0] == nil || g.Others[1] != nil || g.Others[2] == nil {
		t.Errorf("seat %d, others %v: want the two other seats filled", g.Seat, g.Others)
	}
	if Keys["test-seats"] == "" || !strings.Contains(strings.Join(Games(), " "), "test-seats") {
		t.Errorf("the game's keys or name are not listed: %q, %v", Keys["test-seats"], Games())
	}
	for _, tc := range []struct {
		game   string
		params Params
		why    string
	}{
		{"chess", nil, `no game "chess"`},
		{"test-seats", Params{"seat": "0"}, "players= is missing"},
		{"test-seats", Params{"players": "x", "seat": "0"}, `players="x" is not a number`},
		{"test-seats", Params{"players": "3", "seat": "0", "seed": "-2"}, "seed="},
		{"test-seats", Params{"players": "3", "seat": "0", "others": "calm"}, "others= names 1 strategies for 2 other seats"},
		{"test-seats", Params{"players": "2", "seat": "0", "others": "wild"}, `no strategy "wild"`},
	} {
		if _, err := New(tc.game, tc.params, nil); err == nil || !strings.Contains(err.Error(), tc.why) {
			t.Errorf("%s %v: %v, want an error about %q", tc.game, tc.params, err, tc.why)
		}
	}
	twice := func() (err error) {
		defer func() {
			if recover() != nil {
				err = errors.New("panicked")
			}
		}()
		Register("test-seats", "", nil)
		return nil
	}
	if twice() == nil {
		t.Error("a game registered twice was accepted")
	}
}

// File reads and parses the file a setting names; a read or parse error names the setting.
func TestFile(t *testing.T) {
	files := map[string]string{"a.txt": "7\n", "bad.txt": "x\n"}
	read := func(name string) ([]byte, error) {
		if data, ok := files[name]; ok {
			return []byte(data), nil
		}
		return nil, errors.New("no such file")
	}
	parse := func(b []byte) (int, error) { return strconv.Atoi(strings.TrimSpace(string(b))) }
	if n, err := File(Params{"f": "a.txt"}, "f", read, parse); err != nil || n != 7 {
		t.Errorf("File: %d, %v; want 7", n, err)
	}
	for _, name := range []string{"missing.txt", "bad.txt"} {
		if _, err := File(Params{"f": name}, "f", read, parse); err == nil || !strings.HasPrefix(err.Error(), "live: f=: ") {
			t.Errorf("%s: %v; want an error naming f=", name, err)
		}
	}
}
