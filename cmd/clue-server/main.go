// Command clue-server is the reference Clue server (docs/clue.md).
package main

import (
	"os"

	"gauntlet/hub/cluehub"
)

func main() { os.Exit(cluehub.Main()) }
