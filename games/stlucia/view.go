package stlucia

import "fmt"

// View is what one player knows of the game, built only from the messages the hub sent it
// (rules section 7). Strategies decide from a View alone.
type View struct {
	N        int              // players at the start
	Me       int              // this player's index
	Health   [MaxPlayers]int  // every player's health as far as this player can tell
	Gone     [MaxPlayers]bool // eliminated players
	Left     int              // players not eliminated
	Occupant int              // the player in StLucia, or -1
	Dice     Roll             // this player's dice in its current turn
	Rerolls  int              // rerolls made in the current turn
}

// NewView returns the view of player me at the start of an n-player game.
func NewView(n, me int) View {
	v := View{N: n, Me: me, Left: n, Occupant: -1}
	for i := 0; i < n; i++ {
		v.Health[i] = MaxHealth
	}
	return v
}

// InStLucia reports whether this player holds StLucia.
func (v *View) InStLucia() bool { return v.Occupant == v.Me }

// Observe updates the view with one message from the hub. It refuses (with an error) a
// message naming a player outside the game, which the player reports as a bad message;
// otherwise it trusts the hub.
func (v *View) Observe(m Msg) error {
	switch m.Kind {
	case MsgRolled, MsgPoints, MsgAttacks, MsgEliminated, MsgClaim, MsgWinner:
		if m.Player >= v.N {
			return fmt.Errorf("stlucia: player %c is not in a %d-player game", Label(m.Player), v.N)
		}
	}
	switch m.Kind {
	case MsgTurn:
		v.Dice, v.Rerolls = m.Dice, 0
	case MsgRerolled:
		v.Dice = m.Dice
		v.Rerolls++
	case MsgRolled:
		if m.Player != v.Occupant {
			v.heal(m.Player, m.Dice.Count(Heal))
		}
	case MsgAttacks:
		if m.Out {
			for y := 0; y < v.N; y++ {
				if y != m.Player && !v.Gone[y] {
					v.hurt(y, m.Value)
				}
			}
		} else if v.Occupant >= 0 && v.Occupant != m.Player {
			v.hurt(v.Occupant, m.Value)
		}
	case MsgEliminated:
		if !v.Gone[m.Player] {
			v.Gone[m.Player] = true
			v.Left--
		}
		if v.Occupant == m.Player {
			v.Occupant = -1
		}
	case MsgClaim:
		v.Occupant = m.Player
	}
	return nil
}

// Kept applies this player's own final dice once it has sent keepall: the hub does not echo
// them back, so healing outside StLucia is counted here.
func (v *View) Kept() {
	if !v.InStLucia() {
		v.heal(v.Me, v.Dice.Count(Heal))
	}
}

func (v *View) heal(p, h int) { v.Health[p] = min(MaxHealth, v.Health[p]+h) }

func (v *View) hurt(p, a int) { v.Health[p] = max(0, v.Health[p]-a) }
