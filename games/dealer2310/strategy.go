package dealer2310

// Strategy is a reference player's decision: given the game as player me sees it, the site
// to move to, or -1 when the player has no move (it is already on the final barrier).
// Strategies only read the game.
type Strategy func(g *Game, me int) int

// Strategies are the reference strategies by the name of their program.
var Strategies = map[string]Strategy{
	"2310A": StrategyA,
	"2310B": StrategyB,
}

// closest returns the first site after from, up to and including the next barrier, whose
// type is one of types and which has room; -1 if there is none. Sites past the next
// barrier are never considered, and full sites are skipped.
func (g *Game) closest(from int, types ...SiteType) int {
	end := g.path.NextBarrier(from)
	for s := from + 1; s <= end; s++ {
		t := g.path[s].Type
		for _, want := range types {
			if t == want && g.HasRoom(s) {
				return s
			}
		}
	}
	return -1
}

// StrategyA is player 2310A's strategy, the first matching rule wins:
//  1. if it has money and there is a Do site before the next barrier, go to the closest;
//  2. if the next site is Mo and has room, go there;
//  3. go to the closest V1, V2 or barrier.
//
// Full sites are ignored throughout. 2310A never chooses a Ri site.
func StrategyA(g *Game, me int) int {
	from := g.players[me].Site
	if from >= len(g.path)-1 {
		return -1
	}
	if g.players[me].Money > 0 {
		if s := g.closest(from, Do); s >= 0 {
			return s
		}
	}
	if next := from + 1; g.path[next].Type == Mo && g.HasRoom(next) {
		return next
	}
	return g.closest(from, V1, V2, Barrier)
}

// StrategyB is player 2310B's strategy, the first matching rule wins:
//  1. if the next site has room and every other player is on a later site (strictly),
//     move one site forward;
//  2. if its money is odd and there is a Mo before the next barrier, go to the closest;
//  3. if it has strictly more cards than every other player, or every player (itself
//     included) has none, and there is a Ri before the next barrier, go to the closest;
//  4. if there is a V2 before the next barrier, go to the closest;
//  5. go to the closest site with room (the next barrier always has room).
//
// Full sites are ignored throughout. With one player, rules 1 and 3's "every other player"
// conditions hold vacuously.
func StrategyB(g *Game, me int) int {
	self := &g.players[me]
	from := self.Site
	if from >= len(g.path)-1 {
		return -1
	}
	if next := from + 1; g.HasRoom(next) && g.allOthersAhead(me) {
		return next
	}
	if self.Money%2 != 0 {
		if s := g.closest(from, Mo); s >= 0 {
			return s
		}
	}
	if g.mostCards(me) || g.noCards() {
		if s := g.closest(from, Ri); s >= 0 {
			return s
		}
	}
	if s := g.closest(from, V2); s >= 0 {
		return s
	}
	return g.closest(from, Barrier, Mo, V1, V2, Do, Ri)
}

// allOthersAhead reports whether every player but me is on a site after me's.
func (g *Game) allOthersAhead(me int) bool {
	from := g.players[me].Site
	for i := range g.players {
		if i != me && g.players[i].Site <= from {
			return false
		}
	}
	return true
}

// mostCards reports whether me holds strictly more cards than every other player.
func (g *Game) mostCards(me int) bool {
	mine := g.players[me].CardCount()
	for i := range g.players {
		if i != me && g.players[i].CardCount() >= mine {
			return false
		}
	}
	return true
}

// noCards reports whether no player holds any card.
func (g *Game) noCards() bool {
	for i := range g.players {
		if g.players[i].CardCount() > 0 {
			return false
		}
	}
	return true
}
