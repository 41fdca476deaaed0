// Command 2310A is the reference player A of the 2310 path game.
package main

import (
	"os"

	player "gauntlet/players/dealer2310players"
)

func main() { os.Exit(player.MainA()) }
