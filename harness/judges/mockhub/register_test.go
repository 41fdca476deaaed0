package mockhub_test

// The games the live tests judge are registered by the programs package, which imports
// this one: linking it in from an external test file gives the internal tests the games.
import _ "gauntlet/programs"
