// Package dealer2310judges is the 2310 game's harness-side code, what the harness judges
// the game's programs with: the mutant library of its reference programs (mutants.go,
// Mutants), which its registration (programs) hands to harness/grading/mutants.
package dealer2310judges
