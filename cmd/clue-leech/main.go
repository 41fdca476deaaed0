// Command clue-leech is the reference Clue client with the leech strategy (docs/clue.md).
package main

import (
	"os"

	"gauntlet/players/clueplayers"
)

func main() { os.Exit(clueplayers.Main("leech")()) }
