// Command stratego-hunter is the stronger reference Stratego AI: it remembers what enemy
// pieces have revealed and attacks only what it knows it beats.
package main

import (
	"os"

	"gauntlet/players/strategoplayers"
)

func main() { os.Exit(strategoplayers.MainHunter()) }
