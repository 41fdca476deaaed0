// Command clue-random is the reference Clue client with the random strategy (docs/clue.md).
package main

import (
	"os"

	"gauntlet/players/clueplayers"
)

func main() { os.Exit(clueplayers.Main("random")()) }
