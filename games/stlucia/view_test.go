package stlucia

import "testing"

// feed gives the player the lines in order and returns its replies ("-" for none) and
// whether it finished after the last line.
func feed(t *testing.T, p *Player, lines ...string) ([]string, bool) {
	t.Helper()
	var replies []string
	done := false
	for _, l := range lines {
		r, ok, fin, err := p.Handle(l)
		if err != nil {
			t.Fatalf("Handle(%q): %v", l, err)
		}
		if done {
			t.Fatalf("line %q after the player finished", l)
		}
		done = fin
		if ok {
			replies = append(replies, r.String())
		} else {
			replies = append(replies, "-")
		}
	}
	return replies, done
}

func TestViewTracksHealthAndOccupant(t *testing.T) {
	// Player D of 4. The lines are the spec's example for D, then attacks, healing and an
	// elimination.
	p := NewPlayer(EAIT, 4, 3)
	feed(t, p,
		"rolled A 123HHH", // A outside at 10: heals nothing
		"rolled B 122AAA",
		"claim B",
		"points B 1",
		"rolled C 23HAAP",
		"attacks C 2 in", // B: 10 -> 8
		"claim C",        // B went
		"points C 1",
	)
	v := p.View
	if v.Occupant != 2 || v.Health[1] != 8 || v.Health[0] != 10 {
		t.Fatalf("occupant %d, B %d, A %d", v.Occupant, v.Health[1], v.Health[0])
	}
	feed(t, p,
		"rolled C AAAAAA", // C inside: no healing for C...
		"attacks C 6 out", // everyone but C: A 4, B 2, D 4
		"rolled A 1HHHAA", // A outside heals 3 -> 7
		"attacks A 2 in",  // C: 10 -> 8
		"stay?",           // not D's business, but it answers anyway
		"rolled B 1HAAAA", // B heals 1 -> 3
		"attacks B 4 in",  // C: 8 -> 4
		"claim B",         // C went
		"rolled B 2HAAAA", // B inside: no healing
		"attacks B 4 out", // A 3, C 0, D 0
		"eliminated C",    // C gone
	)
	v = p.View
	want := [4]int{3, 3, 0, 0}
	for i, h := range want {
		if v.Health[i] != h {
			t.Errorf("health of %c = %d, want %d", Label(i), v.Health[i], h)
		}
	}
	if v.Occupant != 1 || v.Left != 3 || !v.Gone[2] || v.Gone[3] {
		t.Errorf("occupant %d left %d gone %v", v.Occupant, v.Left, v.Gone[:4])
	}
	// D has 0 health by its count but waits for its own eliminated line to finish.
	if _, done := feed(t, p, "points B 2"); done {
		t.Error("player finished before its eliminated line")
	}
	if _, done := feed(t, p, "eliminated D"); !done {
		t.Error("player did not finish on its own eliminated line")
	}
}

func TestEliminatedOccupantLeavesView(t *testing.T) {
	p := NewPlayer(HASS, 3, 0)
	feed(t, p, "claim B", "eliminated B")
	if p.View.Occupant != -1 || p.View.Left != 2 {
		t.Errorf("occupant %d left %d", p.View.Occupant, p.View.Left)
	}
}

func TestOwnHealingAfterKeepall(t *testing.T) {
	// A (SCIENCE, health 4 after an attack) keeps H: its own H heal it after keepall, as
	// the hub sends it no rolled line for its own dice.
	p := NewPlayer(SCIENCE, 2, 0)
	replies, _ := feed(t, p,
		"claim B",
		"attacks B 6 out", // A: 4
		"turn 12HHAP",
		"rerolled 2HHAAA",
		"rerolled HHHAAA",
	)
	if got := replies[2:]; got[0] != "reroll 12AP" || got[1] != "reroll 2AAA" || got[2] != "keepall" {
		t.Fatalf("replies %q", got)
	}
	if h := p.View.Health[0]; h != 7 {
		t.Errorf("health after keeping HHH = %d, want 7", h)
	}
	// In StLucia, own H do not heal.
	feed(t, p, "claim A", "turn HHHHHH")
	if h := p.View.Health[0]; h != 7 {
		t.Errorf("health after HHHHHH in StLucia = %d, want 7", h)
	}
}

func TestPlayerFinishes(t *testing.T) {
	tests := []struct {
		line string
		done bool
	}{
		{"winner A", true},
		{"winner B", true},
		{"shutdown", true},
		{"eliminated B", true}, // its own
		{"eliminated A", false},
		{"points A 1", false},
	}
	for _, tc := range tests {
		p := NewPlayer(MABS, 3, 1)
		if _, done := feed(t, p, tc.line); done != tc.done {
			t.Errorf("%q: done %v, want %v", tc.line, done, tc.done)
		}
	}
}

func TestPlayerRefusesBadMessages(t *testing.T) {
	for _, line := range []string{
		"", "turn", "turn 11HPP2", "hello", "winner a", "rolled A 123HHH ",
		"claim C",    // C is not in a 2-player game
		"points Z 1", // nor Z
		"attacks C 1 in",
		"eliminated Z",
		"winner C",
		"rolled C 123HAP",
	} {
		p := NewPlayer(EAIT, 2, 0)
		if _, _, _, err := p.Handle(line); err == nil {
			t.Errorf("Handle(%q) accepted", line)
		}
	}
}

func TestPlayerAnswersStayWheneverAsked(t *testing.T) {
	// The view thinks B is not in StLucia and has 0 health; asked anyway, it answers.
	p := NewPlayer(EAIT, 2, 1)
	replies, done := feed(t, p, "attacks A 6 out", "attacks A 6 out", "stay?")
	if replies[2] != "go" || done {
		t.Errorf("reply %q done %v", replies[2], done)
	}
}
