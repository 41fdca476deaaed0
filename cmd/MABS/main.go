// Command MABS is the MABS reference player of King of St Lucia.
package main

import (
	"os"

	player "gauntlet/players/stluciaplayers"
)

func main() { os.Exit(player.Main("MABS")) }
