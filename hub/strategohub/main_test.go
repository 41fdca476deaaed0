package strategohub

import (
	"os"
	"testing"

	"gauntlet/internal/buildtest"
)

// TestMain lets the fault tests, which mostly wait out read timeouts and the kill grace,
// run several at once per core.
func TestMain(m *testing.M) {
	buildtest.WaitingTests()
	os.Exit(m.Run())
}
