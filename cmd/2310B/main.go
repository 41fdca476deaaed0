// Command 2310B is the reference player B of the 2310 path game.
package main

import (
	"os"

	"gauntlet/players/dealer2310players"
)

func main() { os.Exit(dealer2310players.MainB()) }
