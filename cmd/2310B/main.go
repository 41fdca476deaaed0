// Command 2310B is the reference player B of the 2310 path game.
package main

import (
	"os"

	player "gauntlet/players/dealer2310players"
)

func main() { os.Exit(player.MainB()) }
