package testscripts

import "embed"

// FS holds every suite, so that the gauntlet binary can grade without the source tree.
//
//go:embed stlucia/*.txtar dealer2310/*.txtar stratego/*.txtar referee/*.txtar clue/*.txtar
var FS embed.FS
