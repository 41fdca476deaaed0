// Package vmfail holds a test that fails on purpose, for internal/vmtest's check that
// GoTest reports a failing test binary as failing (a testdata folder: no ./... pattern
// builds it).
package vmfail

import "testing"

func TestFailsOnPurpose(t *testing.T) {
	t.Error("vmfail: this test fails on purpose")
}
