// Package refereejudges is the referee protocol's harness-side code, what the harness
// judges the protocol's programs with:
//
//   - the referee probe (probe.go): a kind of conversation of the mock hub
//     (harness/judges/mockhub's probes) that makes the program a referee of the referee protocol,
//     of any game, and probes it as the protocol's match runner would; the protocol's
//     registration (programs) registers it under the word `referee`;
//   - the mutant library of the example referees (mutants.go, Mutants);
//   - the tournament match (match.go, Match), which boxes the programs
//     (harness/grading/tournament, and so the sandbox), apart from the reference runner
//     (hub/refereehub), whose binary links no sandbox (internal/deps,
//     TestReferenceProgramsLinkNoSandbox).
package refereejudges
