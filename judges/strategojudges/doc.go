// Package strategojudges is Stratego's harness-side code, what the harness judges the
// game's programs with: now its tournament match (match.go, Match), which boxes the AIs
// (harness/grading/tournament, and so the sandbox), apart from the reference manager
// (hub/strategohub), whose binary links no sandbox (internal/deps,
// TestReferenceProgramsLinkNoSandbox).
package strategojudges
