package refereehub

import (
	"os"
	"testing"

	"gauntlet/internal/buildtest"
)

// TestMain lets the fault tests, which mostly wait out read timeouts and the kill grace,
// run several at once per core.
//
// The programs that never exit get a tenth of the kill grace (Grace stays 2 s for the
// runner itself): each match with one waited 2 s for its SIGKILL. What the tests check,
// that such a program is killed and the match ends with its result, is the same.
func TestMain(m *testing.M) {
	buildtest.WaitingTests()
	grace = Grace / 10
	os.Exit(m.Run())
}
