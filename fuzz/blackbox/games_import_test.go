package blackbox

// The fuzzer's tests fuzz the real games: their adapters are their games' code
// (judges/<game>judges), which registers them with fuzz/pipegame.
import (
	_ "gauntlet/judges/dealer2310judges"
	_ "gauntlet/judges/stluciajudges"
)
