package stluciajudges

import (
	"strings"
	"testing"
)

// Every shared St Lucia mutant has its twin in each other player.
func TestStLuciaTwins(t *testing.T) {
	have := map[string]string{}
	for _, m := range Mutants {
		have[m.Name] = m.Prog
	}
	for _, name := range shared {
		for letter, prog := range map[string]string{"S": "SCIENCE", "B": "HABS", "A": "HASS", "M": "MABS"} {
			twin := letter + strings.TrimPrefix(name, "E")
			if have[twin] != prog {
				t.Errorf("no twin %s of %s in %s", twin, name, prog)
			}
		}
	}
}
