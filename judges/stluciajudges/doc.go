// Package stluciajudges is King of St Lucia's harness-side code, what the harness judges
// the game's programs with: the mutant library of its reference programs (mutants.go,
// Mutants), which its registration (programs) hands to harness/grading/mutants.
package stluciajudges
