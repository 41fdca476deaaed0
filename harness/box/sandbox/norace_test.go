//go:build !race

package sandbox_test

// slowdown stretches the tests' deadlines (see race_test.go).
const slowdown = 1
