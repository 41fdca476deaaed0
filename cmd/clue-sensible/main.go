// Command clue-sensible is the reference Clue client with the sensible strategy (docs/clue.md).
package main

import (
	"os"

	"gauntlet/players/clueplayers"
)

func main() { os.Exit(clueplayers.Main("sensible")()) }
