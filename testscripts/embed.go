package testscripts

import "embed"

// FS holds every suite (a folder per game, named as the game), so that the gauntlet binary
// can grade without the source tree.
//
//go:embed */*.txtar
var FS embed.FS
