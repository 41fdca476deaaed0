// Package cluejudges is Clue's harness-side code: its mock clients, the judge of a Clue
// server. Six mock clients connect to the server under test, play a whole game with
// reference brains and check every message the server sends. Together they see every
// hand, so they know the solution, and they follow the game on the server's own judge
// (gauntlet/games/clue) fed with that deal and with the rolls the server reports: each
// message, to each client, must be the one the protocol gives, byte for byte (turn order,
// board states, who must disprove, counters, the end). One client can be made faulty
// (silent, gone, malformed, moving through a wall); the server must then drop it as the
// protocol says and go on. The mock clients run as a program of their own
// (programs/standalone), so this package stays light: Clue's fuzzer, which runs them, is
// judges/cluefuzz.
package cluejudges
