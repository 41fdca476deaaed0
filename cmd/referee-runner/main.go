// Command referee-runner is the reference match runner of the referee protocol.
package main

import (
	"os"

	hub "gauntlet/hub/refereehub"
)

func main() { os.Exit(hub.Main()) }
