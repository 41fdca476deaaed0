// Command EAIT is the EAIT reference player of King of St Lucia.
package main

import (
	"os"

	"gauntlet/players/stluciaplayers"
)

func main() { os.Exit(stluciaplayers.Main("EAIT")) }
