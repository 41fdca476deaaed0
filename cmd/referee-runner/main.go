// Command referee-runner is the reference match runner of the referee protocol.
package main

import (
	"os"

	"gauntlet/hub/refereehub"
)

func main() { os.Exit(refereehub.Main()) }
