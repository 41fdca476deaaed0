// Command clue-sensible is the reference Clue client with the sensible strategy (docs/clue.md).
package main

import (
	"os"

	client "gauntlet/players/clueplayers"
)

func main() { os.Exit(client.Main("sensible")()) }
