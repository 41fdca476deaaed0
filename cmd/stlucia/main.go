// Command stlucia is the reference hub of King of St Lucia.
package main

import (
	"os"

	"gauntlet/hub/stluciahub"
)

func main() { os.Exit(stluciahub.Main()) }
