// Command 2310dealer is the reference dealer of the 2310 path game.
package main

import (
	"os"

	"gauntlet/hub/dealer2310hub"
)

func main() { os.Exit(dealer2310hub.Main()) }
