// Command clue-leech is the reference Clue client with the leech strategy (docs/clue.md).
package main

import (
	"os"

	client "gauntlet/players/clueplayers"
)

func main() { os.Exit(client.Main("leech")()) }
