// Command 2310A is the reference player A of the 2310 path game.
package main

import (
	"os"

	"gauntlet/players/dealer2310players"
)

func main() { os.Exit(dealer2310players.MainA()) }
