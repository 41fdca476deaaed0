// Command stratego is the reference Stratego manager.
package main

import (
	"os"

	"gauntlet/hub/strategohub"
)

func main() { os.Exit(strategohub.Main()) }
