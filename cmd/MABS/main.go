// Command MABS is the MABS reference player of King of St Lucia.
package main

import (
	"os"

	"gauntlet/players/stluciaplayers"
)

func main() { os.Exit(stluciaplayers.Main("MABS")) }
