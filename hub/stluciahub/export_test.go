package stluciahub

import "time"

// SetGrace sets how long Run gives players to exit before SIGKILL, and returns what it was.
// Tests set an hour: a hub that waited it out for players that had already exited would
// then never end, whatever the machine's load, instead of ending 2 s late.
func SetGrace(d time.Duration) time.Duration {
	old := policy.Grace
	policy.Grace = d
	return old
}
