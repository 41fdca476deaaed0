// Command clue-strong is the reference Clue client with the strong strategy (docs/clue.md).
package main

import (
	"os"

	"gauntlet/players/clueplayers"
)

func main() { os.Exit(clueplayers.Main("strong")()) }
