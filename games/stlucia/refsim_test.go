package stlucia

import (
	"sort"
	"strconv"
	"strings"
)

// refPlay is a second implementation of the rules and of the five strategies, written
// straight from the assignment's rules file with strings only. It shares no code with the
// engine, the view or the strategies (it does not even use Face or Roll), and its players
// decide from the true game state rather than from what they were told, so agreement with
// the engine also checks that the players' views track the game exactly. It returns the
// wire transcript in the format of render: "hub: line", "X<- message", "X-> reply".
func refPlay(stream string, win int, names []string) []string {
	return refPlayRules(stream, win, names, false)
}

// refPlayRules is refPlay with the other reading of a kill in StLucia when noClaimOnKill is
// set: the attacker from outside who kills the occupant does not take StLucia.
func refPlayRules(stream string, win int, names []string, noClaimOnKill bool) []string {
	n := len(names)
	hp := make([]int, n)
	score := make([]int, n)
	tokens := make([]int, n)
	gone := make([]bool, n)
	for i := range hp {
		hp[i] = 10
	}
	alive := n
	occ := -1
	pos := 0
	var wire []string
	lab := func(i int) string { return string(rune('A' + i)) }
	hub := func(s string) { wire = append(wire, "hub: "+s) }
	to := func(i int, s string) { wire = append(wire, lab(i)+"<- "+s) }
	toAll := func(s string) {
		for i := 0; i < n; i++ {
			if !gone[i] {
				to(i, s)
			}
		}
	}
	sorted := func(s string) string {
		b := []byte(s)
		sort.Slice(b, func(i, j int) bool { return strings.IndexByte("123HAP", b[i]) < strings.IndexByte("123HAP", b[j]) })
		return string(b)
	}
	draw := func(k int) string {
		var b []byte
		for ; k > 0; k-- {
			b = append(b, stream[pos%len(stream)])
			pos++
		}
		return string(b)
	}
	// keep says which faces player x keeps from dice d.
	keep := func(x int, d string) string {
		c := func(f string) int { return strings.Count(d, f) }
		switch names[x] {
		case "EAIT":
			k := ""
			for _, f := range []string{"1", "2", "3"} {
				if c(f) >= 3 {
					k += f
				}
			}
			if hp[x] < 6 {
				k += "H"
			}
			return k
		case "SCIENCE":
			if hp[x] < 5 {
				return "H"
			}
			return "A"
		case "HABS":
			if hp[x] < 5 {
				return "123HP"
			}
			return "123HAP"
		case "HASS":
			if occ == x {
				return "P"
			}
			if occ >= 0 && c("A") > 0 && c("A") >= hp[occ] {
				return "A"
			}
			return ""
		case "MABS":
			if occ == x {
				return "3A"
			}
			return "3H"
		}
		panic(names[x])
	}
	goes := func(y int) bool {
		switch names[y] {
		case "EAIT":
			return hp[y] < 5
		case "HABS":
			return hp[y] < 4 && alive > 2
		case "HASS":
			return false
		}
		return true // SCIENCE, MABS
	}
	for x := 0; ; {
		bonus := 0
		if occ == x {
			bonus = 2
		}
		d := sorted(draw(6))
		to(x, "turn "+d)
		for r := 0; ; r++ {
			k := keep(x, d)
			var kept, redo string
			for i := 0; i < len(d); i++ {
				if strings.IndexByte(k, d[i]) >= 0 {
					kept += d[i : i+1]
				} else {
					redo += d[i : i+1]
				}
			}
			if r == 2 || redo == "" {
				wire = append(wire, lab(x)+"-> keepall")
				break
			}
			wire = append(wire, lab(x)+"-> reroll "+redo)
			d = sorted(kept + draw(len(redo)))
			to(x, "rerolled "+d)
		}
		hub("Player " + lab(x) + " rolled " + d)
		for i := 0; i < n; i++ {
			if i != x && !gone[i] {
				to(i, "rolled "+lab(x)+" "+d)
			}
		}
		if h := strings.Count(d, "H"); h > 0 && occ != x {
			k := min(h, 10-hp[x])
			hp[x] += k
			hub("Player " + lab(x) + " healed " + strconv.Itoa(k) + ", health is now " + strconv.Itoa(hp[x]))
		}
		hurt := func(y, a int) {
			k := min(a, hp[y])
			hp[y] -= k
			hub("Player " + lab(y) + " took " + strconv.Itoa(k) + " damage, health is now " + strconv.Itoa(hp[y]))
		}
		claim := false
		if a := strings.Count(d, "A"); a > 0 {
			switch {
			case occ == x:
				toAll("attacks " + lab(x) + " " + strconv.Itoa(a) + " out")
				for y := 0; y < n; y++ {
					if y != x && !gone[y] {
						hurt(y, a)
					}
				}
			case occ >= 0:
				y := occ
				hurt(y, a)
				toAll("attacks " + lab(x) + " " + strconv.Itoa(a) + " in")
				if hp[y] == 0 {
					claim = !noClaimOnKill
				} else {
					to(y, "stay?")
					if goes(y) {
						wire = append(wire, lab(y)+"-> go")
						claim = true
					} else {
						wire = append(wire, lab(y)+"-> stay")
					}
				}
			default:
				claim = true
			}
		}
		pts := bonus
		if claim {
			occ = x
			pts++
			hub("Player " + lab(x) + " claimed StLucia")
			toAll("claim " + lab(x))
		}
		for i, f := range []string{"1", "2", "3"} {
			if c := strings.Count(d, f); c >= 3 {
				pts += c - 2 + i
			}
		}
		tokens[x] += strings.Count(d, "P")
		if tokens[x] >= 10 {
			tokens[x] -= 10
			pts++
		}
		if pts > 0 {
			score[x] += pts
			hub("Player " + lab(x) + " scored " + strconv.Itoa(pts) + " for a total of " + strconv.Itoa(score[x]))
			toAll("points " + lab(x) + " " + strconv.Itoa(pts))
		}
		for y := 0; y < n; y++ {
			if !gone[y] && hp[y] == 0 {
				toAll("eliminated " + lab(y))
				gone[y] = true
				alive--
				if occ == y {
					occ = -1
				}
			}
		}
		if score[x] >= win || alive == 1 {
			hub("Player " + lab(x) + " wins")
			toAll("winner " + lab(x))
			return wire
		}
		for x = (x + 1) % n; gone[x]; x = (x + 1) % n {
		}
	}
}
