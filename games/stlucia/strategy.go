package stlucia

// Strategy is a reference player's decision making: two pure functions of its View.
type Strategy struct {
	Name string
	// Reroll returns the dice to reroll from v.Dice; empty means keep them all. It is only
	// consulted while a reroll is still allowed.
	Reroll func(v View) Roll
	// Retreat answers stay?: true for "go", false for "stay".
	Retreat func(v View) bool
}

// DiceReply is the player's answer to turn or rerolled: keepall once MaxRerolls rerolls are
// used or when the strategy keeps everything, else the reroll of the chosen dice, faces
// listed in increasing order.
func (s Strategy) DiceReply(v View) Reply {
	if v.Rerolls >= MaxRerolls {
		return Reply{Kind: ReplyKeepAll}
	}
	return Reroll(s.Reroll(v))
}

// StayReply is the player's answer to stay?.
func (s Strategy) StayReply(v View) Reply {
	if s.Retreat(v) {
		return Reply{Kind: ReplyGo}
	}
	return Reply{Kind: ReplyStay}
}

// Strategies lists the five reference strategies, by program name.
var Strategies = map[string]Strategy{
	"EAIT":    EAIT,
	"SCIENCE": SCIENCE,
	"HABS":    HABS,
	"HASS":    HASS,
	"MABS":    MABS,
}

// allBut returns the dice of r except those showing one of keep: what to reroll when the
// faces keep are kept. Strategies never split a face.
func allBut(r Roll, keep ...Face) Roll {
	return r.Minus(r.Only(keep...))
}

// EAIT keeps each number face shown 3 or more times, keeps H while health is under 6, and
// rerolls the rest as often as allowed. It retreats when health is under 5.
var EAIT = Strategy{
	Name: "EAIT",
	Reroll: func(v View) Roll {
		var keep []Face
		for _, f := range []Face{One, Two, Three} {
			if v.Dice.Count(f) > 2 {
				keep = append(keep, f)
			}
		}
		if v.Health[v.Me] < 6 {
			keep = append(keep, Heal)
		}
		return allBut(v.Dice, keep...)
	},
	Retreat: func(v View) bool { return v.Health[v.Me] < 5 },
}

// SCIENCE keeps H when health is under 5, else A, and rerolls the rest. It always retreats.
var SCIENCE = Strategy{
	Name: "SCIENCE",
	Reroll: func(v View) Roll {
		if v.Health[v.Me] < 5 {
			return allBut(v.Dice, Heal)
		}
		return allBut(v.Dice, Attack)
	},
	Retreat: func(View) bool { return true },
}

// HABS rerolls its A dice when health is under 5 and otherwise keeps everything. It
// retreats only when health is under 4 and more than two players remain.
var HABS = Strategy{
	Name: "HABS",
	Reroll: func(v View) Roll {
		if v.Health[v.Me] < 5 {
			return v.Dice.Only(Attack)
		}
		return Roll{}
	},
	Retreat: func(v View) bool { return v.Health[v.Me] < 4 && v.Left > 2 },
}

// HASS keeps P in StLucia and rerolls the rest. Outside it rerolls everything, but keeps its
// A dice when they are enough to eliminate the occupant (none when StLucia is empty). It
// never retreats.
var HASS = Strategy{
	Name: "HASS",
	Reroll: func(v View) Roll {
		if v.InStLucia() {
			return allBut(v.Dice, Point)
		}
		if a := v.Dice.Count(Attack); a > 0 && v.Occupant >= 0 && a >= v.Health[v.Occupant] {
			return allBut(v.Dice, Attack)
		}
		return v.Dice
	},
	Retreat: func(View) bool { return false },
}

// MABS keeps H and 3 outside StLucia, 3 and A inside, and rerolls the rest. It always
// retreats.
var MABS = Strategy{
	Name: "MABS",
	Reroll: func(v View) Roll {
		if v.InStLucia() {
			return allBut(v.Dice, Three, Attack)
		}
		return allBut(v.Dice, Heal, Three)
	},
	Retreat: func(View) bool { return true },
}
