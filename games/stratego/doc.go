// Package stratego is the game of the 2012 programming competition's Stratego manager, as
// a pure value: the board and its lakes, the 40 pieces of each side and their setup, moves
// (scouts through empty squares, bombs and flags immobile), combat, the confirmation line
// both AIs get after each move, the board each side sees, the ends of a game and the
// manager's result line. It does no I/O: the manager program, the mock programs, the grader
// and the fuzzer all call it.
//
// Coordinates: x 0-9 from left to right, y 0-9 from top to bottom. RED sets up rows y=0..3,
// BLUE rows y=6..9; the lakes are x=2,3 and x=6,7 on rows y=4,5. See docs/stratego.md for
// the protocol and every decision taken where the manager's manual is silent.
package stratego
