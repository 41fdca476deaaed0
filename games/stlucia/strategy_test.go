package stlucia

import "testing"

// state builds a view of player me among n players: dice, own health, the occupant, the
// occupant's health, players left and rerolls used.
type state struct {
	n, me     int
	dice      string
	health    int
	occupant  int // -1 for none
	occHealth int
	left      int
	rerolls   int
}

func (s state) view(t *testing.T) View {
	t.Helper()
	n := s.n
	if n == 0 {
		n = 4
	}
	v := NewView(n, s.me)
	if s.dice != "" {
		r, err := ParseRoll(s.dice)
		if err != nil {
			t.Fatal(err)
		}
		v.Dice = r
	}
	if s.health != 0 {
		v.Health[s.me] = s.health
	}
	v.Occupant = s.occupant
	if s.occupant >= 0 && s.occupant != s.me && s.occHealth != 0 {
		v.Health[s.occupant] = s.occHealth
	}
	if s.left != 0 {
		v.Left = s.left
	}
	v.Rerolls = s.rerolls
	return v
}

func TestDiceDecisions(t *testing.T) {
	const none = -1
	tests := []struct {
		strategy Strategy
		why      string
		s        state
		want     string
	}{
		// EAIT
		{EAIT, "keeps three 1s, rerolls the rest", state{dice: "111HAP", health: 10, occupant: none}, "reroll HAP"},
		{EAIT, "two of a number are rerolled", state{dice: "1122AP", health: 10, occupant: none}, "reroll 1122AP"},
		{EAIT, "keeps 2s and 3s shown 3 times", state{dice: "222333", health: 10, occupant: none}, "keepall"},
		{EAIT, "keeps four 3s", state{dice: "13333A", health: 10, occupant: none}, "reroll 1A"},
		{EAIT, "keeps H under 6 health", state{dice: "1112HA", health: 5, occupant: none}, "reroll 2A"},
		{EAIT, "rerolls H at 6 health", state{dice: "12HHAP", health: 6, occupant: none}, "reroll 12HHAP"},
		{EAIT, "keeps H in StLucia too", state{dice: "12HHAP", health: 3, occupant: 0}, "reroll 12AP"},
		{EAIT, "second reroll allowed", state{dice: "123HAP", health: 10, occupant: none, rerolls: 1}, "reroll 123HAP"},
		{EAIT, "no third reroll", state{dice: "123HAP", health: 10, occupant: none, rerolls: 2}, "keepall"},
		// SCIENCE
		{SCIENCE, "under 5 health keeps H", state{dice: "12HHAP", health: 4, occupant: none}, "reroll 12AP"},
		{SCIENCE, "at 5 health keeps A", state{dice: "12HHAP", health: 5, occupant: none}, "reroll 12HHP"},
		{SCIENCE, "all A kept", state{dice: "AAAAAA", health: 10, occupant: none}, "keepall"},
		{SCIENCE, "no A: rerolls all", state{dice: "1223HP", health: 10, occupant: 1}, "reroll 1223HP"},
		{SCIENCE, "no third reroll", state{dice: "1223HP", health: 10, occupant: none, rerolls: 2}, "keepall"},
		// HABS
		{HABS, "under 5 health rerolls A", state{dice: "12AAPP", health: 4, occupant: none}, "reroll AA"},
		{HABS, "under 5 health without A keeps all", state{dice: "123HHP", health: 4, occupant: none}, "keepall"},
		{HABS, "at 5 health keeps all", state{dice: "12AAPP", health: 5, occupant: none}, "keepall"},
		{HABS, "second reroll of A", state{dice: "1AAAAA", health: 1, occupant: 0, rerolls: 1}, "reroll AAAAA"},
		{HABS, "no third reroll", state{dice: "1AAAAA", health: 1, occupant: 0, rerolls: 2}, "keepall"},
		// HASS
		{HASS, "in StLucia keeps P", state{dice: "12AAPP", health: 10, occupant: 0}, "reroll 12AA"},
		{HASS, "in StLucia all P", state{dice: "PPPPPP", health: 10, occupant: 0}, "keepall"},
		{HASS, "A count equal to occupant health: kept", state{dice: "1AAPPP", health: 10, occupant: 1, occHealth: 2}, "reroll 1PPP"},
		{HASS, "A count above occupant health: kept", state{dice: "1AAAPP", health: 10, occupant: 1, occHealth: 2}, "reroll 1PP"},
		{HASS, "A count one short: rerolled", state{dice: "1AAPPP", health: 10, occupant: 1, occHealth: 3}, "reroll 1AAPPP"},
		{HASS, "occupant at full health", state{dice: "AAAAAA", health: 10, occupant: 2, occHealth: 10}, "reroll AAAAAA"},
		{HASS, "six A kill a 6-health occupant", state{dice: "AAAAAA", health: 10, occupant: 2, occHealth: 6}, "keepall"},
		{HASS, "no occupant: A rerolled", state{dice: "AAAAAA", health: 10, occupant: none}, "reroll AAAAAA"},
		{HASS, "no A, occupant at 1", state{dice: "12HHPP", health: 10, occupant: 1, occHealth: 1}, "reroll 12HHPP"},
		{HASS, "no third reroll", state{dice: "12HHPP", health: 10, occupant: none, rerolls: 2}, "keepall"},
		// MABS
		{MABS, "outside keeps H and 3", state{dice: "13HAPP", health: 10, occupant: none}, "reroll 1APP"},
		{MABS, "inside keeps 3 and A", state{dice: "13HAPP", health: 10, occupant: 0}, "reroll 1HPP"},
		{MABS, "outside all kept", state{dice: "333HHH", health: 10, occupant: 1}, "keepall"},
		{MABS, "inside all kept", state{dice: "333AAA", health: 10, occupant: 0}, "keepall"},
		{MABS, "no third reroll", state{dice: "11HAPP", health: 10, occupant: none, rerolls: 2}, "keepall"},
	}
	for _, tc := range tests {
		t.Run(tc.strategy.Name+"/"+tc.why, func(t *testing.T) {
			if got := tc.strategy.DiceReply(tc.s.view(t)).String(); got != tc.want {
				t.Errorf("%s with %+v: %q, want %q", tc.strategy.Name, tc.s, got, tc.want)
			}
		})
	}
}

func TestStayDecisions(t *testing.T) {
	tests := []struct {
		strategy Strategy
		why      string
		s        state
		want     string
	}{
		{EAIT, "health 4 goes", state{health: 4, occupant: 0}, "go"},
		{EAIT, "health 5 stays", state{health: 5, occupant: 0}, "stay"},
		{EAIT, "two players, health 1 goes", state{n: 2, health: 1, occupant: 0}, "go"},
		{SCIENCE, "full health goes", state{health: 10, occupant: 0}, "go"},
		{SCIENCE, "low health goes", state{health: 1, occupant: 0}, "go"},
		{HABS, "health 3 of 3 players goes", state{n: 3, health: 3, occupant: 0}, "go"},
		{HABS, "health 4 stays", state{n: 3, health: 4, occupant: 0}, "stay"},
		{HABS, "two players left, health 1 stays", state{n: 5, left: 2, health: 1, occupant: 0}, "stay"},
		{HABS, "two-player game, health 3 stays", state{n: 2, health: 3, occupant: 0}, "stay"},
		{HABS, "three left of 5, health 2 goes", state{n: 5, left: 3, health: 2, occupant: 0}, "go"},
		{HASS, "full health stays", state{health: 10, occupant: 0}, "stay"},
		{HASS, "health 1 stays", state{health: 1, occupant: 0}, "stay"},
		{MABS, "full health goes", state{health: 10, occupant: 0}, "go"},
		{MABS, "low health goes", state{health: 2, occupant: 0}, "go"},
	}
	for _, tc := range tests {
		t.Run(tc.strategy.Name+"/"+tc.why, func(t *testing.T) {
			if got := tc.strategy.StayReply(tc.s.view(t)).String(); got != tc.want {
				t.Errorf("%s with %+v: %q, want %q", tc.strategy.Name, tc.s, got, tc.want)
			}
		})
	}
}

func TestStrategiesByName(t *testing.T) {
	for name, s := range Strategies {
		if s.Name != name || s.Reroll == nil || s.Retreat == nil {
			t.Errorf("Strategies[%q] = %+v", name, s.Name)
		}
	}
	if len(Strategies) != 5 {
		t.Errorf("%d strategies, want 5", len(Strategies))
	}
}
