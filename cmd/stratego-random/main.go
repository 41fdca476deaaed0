// Command stratego-random is the reference Stratego AI that plays any legal move at random.
package main

import (
	"os"

	ai "gauntlet/players/strategoplayers"
)

func main() { os.Exit(ai.MainRandom()) }
