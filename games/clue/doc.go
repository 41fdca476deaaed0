// Package clue is the game of Clue as the project's TCP protocol plays it (docs/clue.md):
// the 21 cards, the 25x25 board with its nine rooms, doors, start squares and secret
// passages, the board state and every message of the protocol, moves for a dice roll,
// suggestions disproved in turn order, accusations, the deal and the dice from a seed, the
// server's side of a game as a judge and the clients' side as responders around pure
// brains. It is pure: no I/O, no clocks, standard library only.
package clue
