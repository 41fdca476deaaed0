// Command HASS is the HASS reference player of King of St Lucia.
package main

import (
	"os"

	"gauntlet/players/stluciaplayers"
)

func main() { os.Exit(stluciaplayers.Main("HASS")) }
