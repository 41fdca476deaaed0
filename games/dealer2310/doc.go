// Package dealer2310 is the pure model of the 2310 path game (UQ CSSE2310, semester 1 2020,
// assignment 3): the codec of the deck file, the path file and every message, the game
// engine (sites, barriers, turn order, site effects, scoring, the path display), the
// strategies of the reference players 2310A and 2310B, the dealer and player conversation
// logic, and the exit tables of both programs.
//
// The package does no I/O, reads no clock and starts no process. The dealer and player
// binaries (gauntlet/hub/dealer2310, gauntlet/players/dealer2310) are thin adapters around
// Dealer and Player, and the same code serves as the oracle that judges third-party
// programs. The rules are those of the course's assignment as settled by the notes
// gathered about it; every choice where they are silent is written down in
// docs/dealer2310.md.
package dealer2310
