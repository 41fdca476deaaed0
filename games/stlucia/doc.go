// Package stlucia is the pure model of "King of St Lucia" (UQ CSSE2310, 2016, assignment 3):
// the codec of the roll file and of every message both ways, the game engine the reference
// hub runs and the grader replays, the player-side state tracker, the five reference
// strategies (EAIT, SCIENCE, HABS, HASS, MABS) and the exit tables of both programs.
//
// The package does no I/O, reads no clock and starts no process: the hub and player
// binaries (gauntlet/hub/stlucia, gauntlet/players/stlucia) are thin adapters around it, and
// the same code serves as the oracle for third-party programs. The rules followed are those
// of the course's assignment and its rules file; every choice where they are silent is
// written in docs/stlucia.md.
package stlucia
