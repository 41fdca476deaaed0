// Command stratego is the reference Stratego manager.
package main

import (
	"os"

	hub "gauntlet/hub/strategohub"
)

func main() { os.Exit(hub.Main()) }
