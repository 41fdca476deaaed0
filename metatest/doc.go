// Package metatest proves the grader: it grades subjects whose faults are known (mock
// programs configured to misbehave, a deliberately buggy C submission under fixtures/) and
// the reference programs, through the real gauntlet binary, and checks every verdict and
// mark. It has no code of its own, only tests.
package metatest
