// Package acceptance proves the grader: it grades subjects whose faults are known (mock
// programs configured to misbehave, a deliberately buggy C submission under fixtures/) and
// the reference programs, through the real gauntlet binary, and checks every verdict and
// mark. It has no code of its own, only tests.
//
// It is the module's longest package by far (about four minutes of its two cores' time
// under go test ./...), and go test starts packages in the order of their paths: its name
// sorts first, so that it runs beside the others instead of alone after them. Named
// metatest until 2026-12-08, it started two minutes in and ran alone at the end (5 min
// 13 to 19 s for go test ./... on 2 cores, against 4 min 58 s since).
package acceptance
