// Command clue-random is the reference Clue client with the random strategy (docs/clue.md).
package main

import (
	"os"

	client "gauntlet/players/clueplayers"
)

func main() { os.Exit(client.Main("random")()) }
