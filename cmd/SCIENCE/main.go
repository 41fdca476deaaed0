// Command SCIENCE is the SCIENCE reference player of King of St Lucia.
package main

import (
	"os"

	player "gauntlet/players/stlucia"
)

func main() { os.Exit(player.Main("SCIENCE")) }
