//go:build race

package sandbox_test

// slowdown stretches the tests' deadlines: under the race detector every subject is started
// by a race-instrumented copy of the test binary, which takes far longer to start.
const slowdown = 4
