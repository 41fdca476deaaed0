// Command stratego-random is the reference Stratego AI that plays any legal move at random.
package main

import (
	"os"

	"gauntlet/players/strategoplayers"
)

func main() { os.Exit(strategoplayers.MainRandom()) }
